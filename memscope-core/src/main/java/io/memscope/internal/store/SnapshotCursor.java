package io.memscope.internal.store;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;

/**
 * A flyweight over a {@link Snapshot}: one object for the whole iteration, whose accessors read the current
 * event's columns. Not thread-safe; make one cursor per thread.
 *
 * <pre>{@code
 * SnapshotCursor c = snapshot.cursor();
 * while (c.next()) {
 *     if (c.type() == MemoryEventType.ALLOCATE) bytes += c.size();
 * }
 * }</pre>
 */
public final class SnapshotCursor {
    private final Snapshot snapshot;
    private final EventColumns columns;
    private int index = -1;
    private int row = -1;

    SnapshotCursor(Snapshot snapshot) {
        this.snapshot = snapshot;
        this.columns = snapshot.columns();
    }

    /** Moves to the next event. @return false when there is none (the cursor stays after the last event) */
    public boolean next() {
        if (index + 1 >= snapshot.size()) {
            index = snapshot.size();
            row = -1;
            return false;
        }
        row = snapshot.row(++index);
        return true;
    }

    /** @return the position of the current event in the snapshot (0 = oldest) */
    public int index() {
        return index;
    }

    private int r() {
        if (row < 0) {
            throw new IllegalStateException("no current event: call next() first and check its result");
        }
        return row;
    }

    /** @return clock nanoseconds ({@link System#nanoTime()} unless the store uses another clock) */
    public long timestampNanos() {
        return columns.timestamps[r()];
    }

    public MemoryEventType type() {
        return columns.type(r());
    }

    public long address() {
        return columns.addresses[r()];
    }

    /** @return bytes (the new size for a reallocation) */
    public long size() {
        return columns.sizes[r()];
    }

    /** @return the old size for a reallocation, 0 otherwise (unless the recorder gave another value) */
    public long previousSize() {
        return columns.previousSize(r());
    }

    public long threadId() {
        return columns.threadId(r());
    }

    /** @return id of the thread name in {@link Snapshot#strings()}, 0 if none */
    public int threadNameId() {
        return columns.threadNameId(r());
    }

    public String threadName() {
        return columns.strings.get(threadNameId());
    }

    public int siteId() {
        return columns.siteId(r());
    }

    public long stackId() {
        return columns.stackId(r());
    }

    /** @return id of the type name in {@link Snapshot#strings()}, 0 if none */
    public int typeNameId() {
        return columns.typeNameId(r());
    }

    /** @return id of the variable name in {@link Snapshot#strings()}, 0 if none */
    public int variableNameId() {
        return columns.variableNameId(r());
    }

    /** @return the current event as an object (allocates) */
    public MemoryEvent toEvent() {
        return columns.event(r());
    }
}
