package io.memscope.agent.capture;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.store.EventStore;
import io.memscope.store.StringTable;
import java.util.ArrayList;
import java.util.List;

/**
 * The capture's {@link AllocationSink}: the core {@link EventStore} (per-thread buffers, no shared lock on the hot
 * path, lossless until drained). Type names are interned in the store's string table. At the end of a capture,
 * {@link #drain()} hands every event out in timestamp order.
 */
final class StoreSink implements AllocationSink {
    private final EventStore store = EventStore.unbounded();

    @Override
    public void record(MemoryEventType type, long address, long size, long previousSize, int siteId, long stackId,
                       String typeName) {
        store.record(type, address, size, previousSize, siteId, stackId, store.strings().intern(typeName), 0);
    }

    /** Removes and returns every event recorded so far, oldest first, strings resolved. */
    List<MemoryEvent> drain() {
        StringTable strings = store.strings();
        List<MemoryEvent> out = new ArrayList<>((int) Math.min(Integer.MAX_VALUE - 8, store.size()));
        store.drainTo((t, type, address, size, previousSize, threadId, threadNameId, variableNameId, typeNameId,
                       stackId, siteId) -> out.add(new MemoryEvent(t, type, address, size, previousSize, threadId,
                strings.get(threadNameId), strings.get(variableNameId), strings.get(typeNameId), stackId, siteId)));
        return out;
    }

    /** @return the store itself (drained into the recording by {@link RecordingStream}) */
    EventStore store() {
        return store;
    }

    /** @return events recorded and not yet drained */
    long size() {
        return store.size();
    }
}
