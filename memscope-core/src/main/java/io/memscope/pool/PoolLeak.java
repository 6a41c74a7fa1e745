package io.memscope.pool;

import java.util.List;

/**
 * A lease that was not returned: its {@link Lease} became unreachable while borrowed ({@link Kind#UNREACHABLE},
 * found by the garbage collector, as Netty's ResourceLeakDetector finds leaked buffers), or it is still borrowed
 * ({@link Kind#NOT_RETURNED}, listed by {@link PoolTracker#outstanding()}; at the end of a run, a resource never
 * returned).
 *
 * @param pool         the pool's name
 * @param kind         how it was found
 * @param leaseId      the lease's id (unique in the JVM, per copy of memscope-core)
 * @param resourceType the borrowed resource's class
 * @param size         the size given at borrow
 * @param borrowNanos  {@link System#nanoTime()} of the borrow
 * @param foundNanos   when the leak was found ({@link Kind#UNREACHABLE}: the first look after the collector
 *                     cleared the lease; {@link Kind#NOT_RETURNED}: the time of the listing)
 * @param threadId     the borrowing thread
 * @param threadName   its name
 * @param stack        the borrowing stack, innermost first, as {@code pkg.Class.method(File.java:LINE)} (empty when
 *                     stacks are off for the pool)
 */
public record PoolLeak(String pool, Kind kind, long leaseId, String resourceType, long size, long borrowNanos,
                       long foundNanos, long threadId, String threadName, List<String> stack) {

    /** How a leak was found. */
    public enum Kind {
        /** The lease object became unreachable while its resource was borrowed: it can never be returned. */
        UNREACHABLE,
        /** Still borrowed when listed. */
        NOT_RETURNED
    }
}
