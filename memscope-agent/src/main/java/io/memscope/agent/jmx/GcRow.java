package io.memscope.agent.jmx;

/**
 * One garbage collection as an MXBean value ({@code CompositeData}, one item per component), as the JVM reported it
 * (1 ms precision).
 *
 * @param name                the collector, e.g. {@code G1 Young Generation}
 * @param action              the JVM's action text, e.g. {@code end of minor GC}
 * @param cause               the cause, e.g. {@code G1 Evacuation Pause}
 * @param startMillis         start, milliseconds since the capture started (may be negative for a GC just before it)
 * @param durationMillis      duration in milliseconds: the pause, or for a concurrent cycle its whole length
 * @param pause               false for a concurrent cycle (ZGC Cycles, Shenandoah Cycles), which is no pause
 * @param heapUsedBeforeBytes heap bytes used (all heap pools) before the collection
 * @param heapUsedAfterBytes  heap bytes used (all heap pools) after the collection
 * @param examined            what the collection examined: {@code young} (the young generation only),
 *                            {@code whole-heap} (every object allocated before its snapshot), or {@code unknown}
 */
public record GcRow(String name, String action, String cause, long startMillis, long durationMillis, boolean pause,
                    long heapUsedBeforeBytes, long heapUsedAfterBytes, String examined) {
}
