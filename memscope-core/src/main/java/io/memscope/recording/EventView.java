package io.memscope.recording;

import io.memscope.MemoryEventType;

/**
 * One stored event, as an {@link EventSink} sees it: a view its producer fills and hands over again for every event,
 * so that streaming hundreds of millions of events creates no object per event. The view is valid only during the
 * {@link EventSink#accept} call it is passed to: a sink that keeps an event copies the fields it needs (or
 * {@link #copy()} for a detached copy).
 *
 * <p>String-valued fields are ids in the string table of the store or the recording (0 = none):
 * {@link Recording#string(int)}. A field added in a later version gets its accessor here and its value from the
 * producers that know it; sinks compiled before it keep working unchanged, and producers that do not set it leave
 * its documented default.
 */
public final class EventView {
    private long timestampNanos;
    private MemoryEventType type;
    private long address;
    private long size;
    private long previousSize;
    private long threadId;
    private int threadNameId;
    private int variableNameId;
    private int typeNameId;
    private long stackId;
    private int siteId;

    /**
     * Sets every field (a producer, before each {@link EventSink#accept} call).
     *
     * @return this view
     */
    public EventView set(long timestampNanos, MemoryEventType type, long address, long size, long previousSize,
                         long threadId, int threadNameId, int variableNameId, int typeNameId, long stackId,
                         int siteId) {
        this.timestampNanos = timestampNanos;
        this.type = type;
        this.address = address;
        this.size = size;
        this.previousSize = previousSize;
        this.threadId = threadId;
        this.threadNameId = threadNameId;
        this.variableNameId = variableNameId;
        this.typeNameId = typeNameId;
        this.stackId = stackId;
        this.siteId = siteId;
        return this;
    }

    /** @return a new view holding this one's fields: one that outlives the call it was passed to */
    public EventView copy() {
        return new EventView().set(timestampNanos, type, address, size, previousSize, threadId, threadNameId,
                variableNameId, typeNameId, stackId, siteId);
    }

    /** @return when it happened: {@code System.nanoTime()} of the recorded JVM */
    public long timestampNanos() {
        return timestampNanos;
    }

    public MemoryEventType type() {
        return type;
    }

    /** @return the object's or block's identity: a sample id (heap), a native address, a lease or object id (API) */
    public long address() {
        return address;
    }

    /** @return bytes */
    public long size() {
        return size;
    }

    /**
     * @return REALLOCATE: the block's size before; a heap DEALLOCATE: the sample's age in nanoseconds; MOVE: the
     *         previous owner's thread id; otherwise 0
     */
    public long previousSize() {
        return previousSize;
    }

    public long threadId() {
        return threadId;
    }

    /** @return string id of the thread's name (0 = none) */
    public int threadNameId() {
        return threadNameId;
    }

    /** @return string id of the variable, pool or scope path (0 = none) */
    public int variableNameId() {
        return variableNameId;
    }

    /** @return string id of the type's name (0 = none) */
    public int typeNameId() {
        return typeNameId;
    }

    /** @return the call stack's id (0 = none) */
    public long stackId() {
        return stackId;
    }

    /** @return the allocation site's id */
    public int siteId() {
        return siteId;
    }

    @Override
    public String toString() {
        return "EventView[" + timestampNanos + " " + type + " @" + address + " " + size + " B (prev " + previousSize
                + "), thread " + threadId + "/" + threadNameId + ", var " + variableNameId + ", type " + typeNameId
                + ", stack " + stackId + ", site " + siteId + "]";
    }
}
