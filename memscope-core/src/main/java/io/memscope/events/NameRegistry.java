package io.memscope.events;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One producer's table of event names and the custom type names its events use, independent of whether its ring
 * file is open. Event ids are dense and never reused, from 1; custom type ids are the process-wide ids of
 * {@link EventType#register} (from {@link #FIRST_CUSTOM_TYPE}: a type is a value any producer's events may use).
 * The ring file's names region receives every entry (all of them when a file starts, then each new one as it is
 * added).
 */
final class NameRegistry {
    /** Built-in payload types of custom events; custom codecs get ids from {@link #FIRST_CUSTOM_TYPE}. */
    static final int TYPE_UNIT = 0;
    static final int TYPE_INT = 1;
    static final int TYPE_LONG = 2;
    static final int TYPE_SPAN = 3;
    static final int FIRST_CUSTOM_TYPE = 16;
    static final int MAX_ID = 0xFFFF;

    /** One names-region entry. */
    static final class Entry {
        final int entryKind;
        final int eventKind;
        final int id;
        final int typeId;
        final String name;
        final byte[] utf8;

        Entry(int entryKind, int eventKind, int id, int typeId, String name) {
            this.entryKind = entryKind;
            this.eventKind = eventKind;
            this.id = id;
            this.typeId = typeId;
            this.name = name;
            this.utf8 = utf8(name);
        }

        int bytes() {
            return RingLayout.align8(RingLayout.ENTRY_HEADER_BYTES + utf8.length);
        }
    }

    /** @return the UTF-8 bytes of a name that fits a names-region entry; IllegalArgumentException if too long */
    static byte[] utf8(String name) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        if (b.length > RingLayout.MAX_NAME_BYTES) {
            throw new IllegalArgumentException("name longer than " + RingLayout.MAX_NAME_BYTES
                    + " UTF-8 bytes: " + name.substring(0, 40) + "...");
        }
        return b;
    }

    private final EventsProducer producer;
    private final Map<String, Entry> events = new HashMap<>();
    private final Map<Integer, Entry> types = new HashMap<>();
    private final List<Entry> all = new ArrayList<>();
    private int nextEventId = 1;

    NameRegistry(EventsProducer producer) {
        this.producer = producer;
    }

    /** @return the entry of this event, registering it (and writing it to the open file) if new */
    Entry event(int eventKind, String name, int typeId) {
        Entry e;
        synchronized (this) {
            String key = eventKind + ":" + name;
            e = events.get(key);
            if (e != null) {
                if (e.typeId != typeId) {
                    throw new IllegalArgumentException("event '" + name + "' is already registered with another type");
                }
                return e;
            }
            if (nextEventId > MAX_ID) {
                throw new IllegalStateException("more than " + MAX_ID + " event names registered");
            }
            e = new Entry(RingLayout.ENTRY_EVENT, eventKind, nextEventId++, typeId, name);
            events.put(key, e);
            all.add(e);
        }
        producer.published(e);
        return e;
    }

    /** Writes the name of a custom payload type to this producer's file (once), before an event that uses it. */
    void type(EventType<?> type) {
        if (type.id() < FIRST_CUSTOM_TYPE) {
            return;
        }
        Entry e;
        synchronized (this) {
            if (types.containsKey(type.id())) {
                return;
            }
            e = new Entry(RingLayout.ENTRY_TYPE, 0, type.id(), 0, type.name());
            types.put(type.id(), e);
            all.add(e);
        }
        producer.published(e);
    }

    synchronized List<Entry> all() {
        return new ArrayList<>(all);
    }
}
