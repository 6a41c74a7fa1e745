package io.memscope.internal.recording;

import io.memscope.MemoryEventType;
import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;

import java.util.Arrays;

/**
 * Events in columnar form: one primitive array per field, no object per event (about 65 bytes per event).
 * Grows by doubling; {@link #trim()} drops the slack once reading is done. Not thread-safe while appending;
 * immutable in practice once handed to a {@link Recording}.
 */
public final class EventColumns {
    private static final MemoryEventType[] TYPES = MemoryEventType.values();

    public int size;
    public long[] timestamp;
    byte[] type;
    public long[] address;
    public long[] eventSize;
    public long[] previousSize;
    public long[] threadId;
    public int[] threadNameId;
    public int[] variableNameId;
    public int[] typeNameId;
    public long[] stackId;
    public int[] siteId;

    public EventColumns(int capacity) {
        allocate(Math.max(capacity, 1));
    }

    private void allocate(int cap) {
        timestamp = new long[cap];
        type = new byte[cap];
        address = new long[cap];
        eventSize = new long[cap];
        previousSize = new long[cap];
        threadId = new long[cap];
        threadNameId = new int[cap];
        variableNameId = new int[cap];
        typeNameId = new int[cap];
        stackId = new long[cap];
        siteId = new int[cap];
    }

    private void resize(int cap) {
        timestamp = Arrays.copyOf(timestamp, cap);
        type = Arrays.copyOf(type, cap);
        address = Arrays.copyOf(address, cap);
        eventSize = Arrays.copyOf(eventSize, cap);
        previousSize = Arrays.copyOf(previousSize, cap);
        threadId = Arrays.copyOf(threadId, cap);
        threadNameId = Arrays.copyOf(threadNameId, cap);
        variableNameId = Arrays.copyOf(variableNameId, cap);
        typeNameId = Arrays.copyOf(typeNameId, cap);
        stackId = Arrays.copyOf(stackId, cap);
        siteId = Arrays.copyOf(siteId, cap);
    }

    /** Empties the columns (their arrays are kept, for reuse). */
    public void clear() {
        size = 0;
    }

    public void add(long ts, int typeCode, long addr, long sz, long prev, long tid, int tname, int var, int tnameType,
             long stack, int site) {
        if (size == timestamp.length) {
            resize(Math.max(16, (int) Math.min(Integer.MAX_VALUE - 8L, size * 2L)));
        }
        int i = size++;
        timestamp[i] = ts;
        type[i] = (byte) typeCode;
        address[i] = addr;
        eventSize[i] = sz;
        previousSize[i] = prev;
        threadId[i] = tid;
        threadNameId[i] = tname;
        variableNameId[i] = var;
        typeNameId[i] = tnameType;
        stackId[i] = stack;
        siteId[i] = site;
    }

    public void addAll(EventColumns other) {
        if (size + other.size > timestamp.length) {
            resize((int) Math.min(Integer.MAX_VALUE - 8L, Math.max(size + (long) other.size, size * 2L)));
        }
        System.arraycopy(other.timestamp, 0, timestamp, size, other.size);
        System.arraycopy(other.type, 0, type, size, other.size);
        System.arraycopy(other.address, 0, address, size, other.size);
        System.arraycopy(other.eventSize, 0, eventSize, size, other.size);
        System.arraycopy(other.previousSize, 0, previousSize, size, other.size);
        System.arraycopy(other.threadId, 0, threadId, size, other.size);
        System.arraycopy(other.threadNameId, 0, threadNameId, size, other.size);
        System.arraycopy(other.variableNameId, 0, variableNameId, size, other.size);
        System.arraycopy(other.typeNameId, 0, typeNameId, size, other.size);
        System.arraycopy(other.stackId, 0, stackId, size, other.size);
        System.arraycopy(other.siteId, 0, siteId, size, other.size);
        size += other.size;
    }

    public void trim() {
        if (size < timestamp.length) {
            resize(size);
        }
    }

    public MemoryEventType typeOf(int i) {
        return TYPES[type[i]];
    }

    /** @return {@code view} holding event {@code i} */
    public EventView view(int i, EventView view) {
        return view.set(timestamp[i], TYPES[type[i]], address[i], eventSize[i], previousSize[i], threadId[i],
                threadNameId[i], variableNameId[i], typeNameId[i], stackId[i], siteId[i]);
    }

    /** Hands every event to {@code sink}, in order, through one view. */
    public void forEach(EventSink sink) {
        EventView v = new EventView();
        for (int i = 0; i < size; i++) {
            sink.accept(view(i, v));
        }
    }
}
