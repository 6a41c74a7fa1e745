package io.memscope.analysis;

/**
 * One garbage collection as the JVM reported it.
 *
 * @param startNanos      start, on the capture's {@link System#nanoTime()} clock (precision: 1 ms, as the JVM reports it)
 * @param durationNanos   duration in nanoseconds (precision: 1 ms); for a pause collector this is the pause
 * @param name            collector name, for example {@code G1 Young Generation}
 * @param action          the JVM's action text, for example {@code end of minor GC}
 * @param cause           the cause, for example {@code G1 Evacuation Pause} or {@code System.gc()}
 * @param heapUsedBefore  heap bytes used in all pools before the collection
 * @param heapUsedAfter   heap bytes used in all pools after the collection
 * @param heapCommitted   heap bytes committed after the collection
 */
public record GcRecord(long startNanos, long durationNanos, String name, String action, String cause,
                       long heapUsedBefore, long heapUsedAfter, long heapCommitted) {

    /**
     * @return true if this collection stopped the application for its whole duration; false for the concurrent
     *     cycles some collectors report as separate "collections" (G1 Concurrent GC, ZGC Cycles, Shenandoah Cycles)
     */
    public boolean isPause() {
        return !(name.contains("Concurrent") || name.contains("Cycles"));
    }
}
