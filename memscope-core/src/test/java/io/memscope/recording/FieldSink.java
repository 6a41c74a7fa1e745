package io.memscope.recording;

import io.memscope.MemoryEventType;

/** Tests' sinks written field by field: {@code store.drainTo(FieldSink.of((ts, type, ...) -> ...))}. */
@FunctionalInterface
public interface FieldSink {
    void accept(long timestampNanos, MemoryEventType type, long address, long size, long previousSize,
                long threadId, int threadNameId, int variableNameId, int typeNameId, long stackId, int siteId);

    /** @return a sink that hands each event's fields to {@code f} */
    static EventSink of(FieldSink f) {
        return e -> f.accept(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(), e.threadId(),
                e.threadNameId(), e.variableNameId(), e.typeNameId(), e.stackId(), e.siteId());
    }
}
