package io.memscope.recording;

/**
 * One garbage collection, as the recorded JVM reported it ({@code GarbageCollectionNotificationInfo} for the
 * agent).
 *
 * @param startNanos        when it started, {@link System#nanoTime()} ns of the recorded JVM (the agent's
 *                          precision: about 1 ms, the JVM reports start times in milliseconds)
 * @param durationNanos     how long it took, ns (the agent's precision: 1 ms); for a stop-the-world collector the
 *                          pause
 * @param name              collector or collection name, for example {@code G1 Young Generation}; null if unknown
 * @param cause             cause, for example {@code G1 Evacuation Pause} or {@code System.gc()}; null if unknown
 * @param heapUsedBefore    heap bytes in use before the collection (all heap pools)
 * @param heapUsedAfter     heap bytes in use after the collection (all heap pools)
 * @param heapCommitted     heap bytes committed after the collection
 * @param action            the JVM's action text, for example {@code end of minor GC} or {@code end of major GC};
 *                          null if unknown (recordings of format 1.0 do not store it: GC_DETAILS block, format 1.1)
 */
public record GcRecord(long startNanos, long durationNanos, String name, String cause, long heapUsedBefore,
                       long heapUsedAfter, long heapCommitted, String action) {

    /** A record without the action text (format 1.0). */
    public GcRecord(long startNanos, long durationNanos, String name, String cause, long heapUsedBefore,
                    long heapUsedAfter, long heapCommitted) {
        this(startNanos, durationNanos, name, cause, heapUsedBefore, heapUsedAfter, heapCommitted, null);
    }

    /**
     * @return true if this collection stopped the application for its whole duration; false for the concurrent
     *     cycles some collectors report as separate collections (names containing {@code Concurrent} or
     *     {@code Cycles}: {@code G1 Concurrent GC}, {@code ZGC Cycles}, {@code Shenandoah Cycles})
     */
    public boolean isPause() {
        return name == null || !(name.contains("Concurrent") || name.contains("Cycles"));
    }
}
