package io.memscope.events;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The process-wide table of event names and custom type names, independent of whether a ring file is open.
 * Ids are dense and never reused: event ids from 1, custom type ids from {@link #FIRST_CUSTOM_TYPE}. The ring
 * file's names region receives every entry (all of them when a file starts, then each new one as it is added).
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
            byte[] b = name.getBytes(StandardCharsets.UTF_8);
            if (b.length > RingLayout.MAX_NAME_BYTES) {
                throw new IllegalArgumentException("name longer than " + RingLayout.MAX_NAME_BYTES
                        + " UTF-8 bytes: " + name.substring(0, 40) + "...");
            }
            this.utf8 = b;
        }

        int bytes() {
            return RingLayout.align8(RingLayout.ENTRY_HEADER_BYTES + utf8.length);
        }
    }

    private static final Map<String, Entry> EVENTS = new HashMap<>();
    private static final Map<String, Entry> TYPES = new HashMap<>();
    private static final List<Entry> ALL = new ArrayList<>();
    private static int nextEventId = 1;
    private static int nextTypeId = FIRST_CUSTOM_TYPE;

    private NameRegistry() {
    }

    /** @return the entry of this event, registering it (and writing it to the open file) if new */
    static Entry event(int eventKind, String name, int typeId) {
        Entry e;
        synchronized (NameRegistry.class) {
            String key = eventKind + ":" + name;
            e = EVENTS.get(key);
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
            EVENTS.put(key, e);
            ALL.add(e);
        }
        RuntimeEvents.published(e);
        return e;
    }

    /** @return the entry of this custom type, registering it if new */
    static Entry type(String name) {
        Entry e;
        synchronized (NameRegistry.class) {
            e = TYPES.get(name);
            if (e != null) {
                return e;
            }
            if (nextTypeId > MAX_ID) {
                throw new IllegalStateException("more than " + MAX_ID + " custom types registered");
            }
            e = new Entry(RingLayout.ENTRY_TYPE, 0, nextTypeId++, 0, name);
            TYPES.put(name, e);
            ALL.add(e);
        }
        RuntimeEvents.published(e);
        return e;
    }

    static synchronized List<Entry> all() {
        return new ArrayList<>(ALL);
    }
}
