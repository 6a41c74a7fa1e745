package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import io.memscope.internal.store.EventStore;

/**
 * The capture's {@link AllocationSink}: the core {@link EventStore} (per-thread buffers, no shared lock on the hot
 * path, lossless until drained into the recording by {@link RecordingStream}). Type names are interned in the
 * store's string table.
 */
final class StoreSink implements AllocationSink {
    private final EventStore store = EventStore.unbounded();

    @Override
    public void record(MemoryEventType type, long address, long size, long previousSize, int siteId, long stackId,
                       String typeName) {
        store.record(type, address, size, previousSize, siteId, stackId, store.strings().internName(typeName), 0);
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
