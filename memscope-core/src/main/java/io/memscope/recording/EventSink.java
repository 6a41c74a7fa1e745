package io.memscope.recording;

import io.memscope.MemoryEventType;

/**
 * Receives stored events one at a time in primitive form, without an object per event: how the
 * {@code EventStore} hands events to a recording writer, an exporter or an analysis. String-valued fields are ids
 * in the string table of the store or the recording (0 = none): {@link Recording#string(int)}.
 */
@FunctionalInterface
public interface EventSink {
    void accept(long timestampNanos, MemoryEventType type, long address, long size, long previousSize,
                long threadId, int threadNameId, int variableNameId, int typeNameId, long stackId, int siteId);
}
