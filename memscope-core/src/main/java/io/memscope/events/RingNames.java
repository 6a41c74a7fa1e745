package io.memscope.events;

import io.memscope.error.CorruptFileException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static io.memscope.events.RingLayout.*;

/**
 * A reader's view of a ring file's names region (its entries are drawn in {@link RingLayout}): the event names with
 * their payload types, and the custom types' names, read incrementally as the producer appends entries. One per
 * {@link EventCursor}; not thread-safe.
 */
final class RingNames {
    private final ByteBuffer buf;
    private final String path;
    private final int capacity;
    private String[] eventNames = new String[64];
    private int[] eventTypes = new int[64];
    private final Map<Integer, String> typeNames = new HashMap<>();
    /** Bytes of the region read so far. */
    private int parsed;

    RingNames(ByteBuffer buf, String path, int capacity) {
        this.buf = buf;
        this.path = path;
        this.capacity = capacity;
    }

    /** @return whether the producer appended entries since the last {@link #refresh} */
    boolean grown() {
        return (int) INT.getAcquire(buf, H_NAMES_USED) != parsed;
    }

    /** @return the payload type id of event {@code id} (0 when unknown) */
    int eventType(int id) {
        return id < eventTypes.length ? eventTypes[id] : 0;
    }

    /** @return the name of event {@code id}, or {@code #id} when the full names region did not store it */
    String eventName(int id) {
        if (id >= eventNames.length || eventNames[id] == null) {
            refresh();
            if (id >= eventNames.length) {
                grow(id);
            }
            if (eventNames[id] == null) {
                eventNames[id] = "#" + id; // name not stored (names region full)
            }
        }
        return eventNames[id];
    }

    /** @return the name of payload type {@code typeId} (built-in or custom), or {@code #type<id>} */
    String typeName(int typeId) {
        EventType<?> b = EventType.builtin(typeId);
        if (b != null) {
            return b.name();
        }
        String s = typeNames.get(typeId);
        return s != null ? s : "#type" + typeId;
    }

    /** Reads the entries appended since the last call. */
    void refresh() {
        int used = (int) INT.getAcquire(buf, H_NAMES_USED);
        if (used < 0 || used > capacity) {
            throw corrupt(H_NAMES_USED, "names used " + used + " exceeds capacity " + capacity);
        }
        int at = parsed;
        while (at < used) {
            int off = HEADER_BYTES + at;
            int len = buf.getShort(off) & 0xFFFF;
            int entryKind = buf.get(off + 2) & 0xFF;
            int id = buf.getShort(off + 4) & 0xFFFF;
            int typeId = buf.getShort(off + 6) & 0xFFFF;
            int nameLen = buf.getShort(off + 8) & 0xFFFF;
            if (len < 16 || (len & 7) != 0 || at + len > used || ENTRY_HEADER_BYTES + nameLen > len) {
                throw corrupt(off, "names entry of length " + len + " with a name of " + nameLen + " bytes");
            }
            byte[] nb = new byte[nameLen];
            for (int k = 0; k < nameLen; k++) {
                nb[k] = buf.get(off + ENTRY_HEADER_BYTES + k);
            }
            String name = new String(nb, StandardCharsets.UTF_8).intern();
            if (entryKind == ENTRY_EVENT) {
                grow(id);
                eventNames[id] = name;
                eventTypes[id] = typeId;
            } else if (entryKind == ENTRY_TYPE) {
                typeNames.put(id, name);
            } else {
                throw corrupt(off + 2, "names entry kind " + entryKind);
            }
            at += len;
        }
        parsed = at;
    }

    private void grow(int id) {
        if (id >= eventNames.length) {
            int n = Math.max(id + 1, eventNames.length * 2);
            eventNames = Arrays.copyOf(eventNames, n);
            eventTypes = Arrays.copyOf(eventTypes, n);
        }
    }

    private CorruptFileException corrupt(long offset, String what) {
        return new CorruptFileException(path, offset, what);
    }
}
