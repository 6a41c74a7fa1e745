package io.memscope.agent.capture;

import io.memscope.MemoryEventType;

/**
 * Where the capture code puts memory events. Mirrors the hot-path {@code record} of the core EventStore, which
 * backs it ({@link StoreSink}). Called with the recursion guard held;
 * implementations must not throw.
 */
public interface AllocationSink {
    /**
     * @param type         what happened
     * @param address      native address, or the sample id of a heap object
     * @param size         bytes
     * @param previousSize old size of a reallocation; lifetime in nanoseconds of a collected heap sample
     * @param siteId       allocation site id, 0 if none
     * @param stackId      stack id in the {@link StackTable}, 0 if none
     * @param typeName     exact allocated type, or null
     */
    void record(MemoryEventType type, long address, long size, long previousSize, int siteId, long stackId,
                String typeName);
}
