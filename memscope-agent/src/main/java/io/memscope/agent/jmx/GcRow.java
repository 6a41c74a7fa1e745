package io.memscope.agent.jmx;

/**
 * One garbage collection as an MXBean value ({@code CompositeData} items {@code name}, {@code action}, {@code cause},
 * {@code startMillis}, {@code durationMillis}, {@code pause}, {@code heapUsedBeforeBytes}, {@code heapUsedAfterBytes},
 * {@code examined}), as the JVM reported it (1 ms precision).
 */
public final class GcRow {
    private final String name;
    private final String action;
    private final String cause;
    private final long startMillis;
    private final long durationMillis;
    private final boolean pause;
    private final long heapUsedBeforeBytes;
    private final long heapUsedAfterBytes;
    private final String examined;

    GcRow(String name, String action, String cause, long startMillis, long durationMillis, boolean pause,
          long heapUsedBeforeBytes, long heapUsedAfterBytes, String examined) {
        this.name = name;
        this.action = action;
        this.cause = cause;
        this.startMillis = startMillis;
        this.durationMillis = durationMillis;
        this.pause = pause;
        this.heapUsedBeforeBytes = heapUsedBeforeBytes;
        this.heapUsedAfterBytes = heapUsedAfterBytes;
        this.examined = examined;
    }

    /** @return the collector, e.g. {@code G1 Young Generation} */
    public String getName() {
        return name;
    }

    /** @return the JVM's action text, e.g. {@code end of minor GC} */
    public String getAction() {
        return action;
    }

    /** @return the cause, e.g. {@code G1 Evacuation Pause} */
    public String getCause() {
        return cause;
    }

    /** @return start, milliseconds since the capture started (may be negative for a GC just before it) */
    public long getStartMillis() {
        return startMillis;
    }

    /** @return duration in milliseconds: the pause, or for a concurrent cycle its whole length */
    public long getDurationMillis() {
        return durationMillis;
    }

    /** @return false for a concurrent cycle (ZGC Cycles, Shenandoah Cycles), which is no pause */
    public boolean isPause() {
        return pause;
    }

    /** @return heap bytes used (all heap pools) before the collection */
    public long getHeapUsedBeforeBytes() {
        return heapUsedBeforeBytes;
    }

    /** @return heap bytes used (all heap pools) after the collection */
    public long getHeapUsedAfterBytes() {
        return heapUsedAfterBytes;
    }

    /**
     * @return what the collection examined: {@code young} (the young generation only), {@code whole-heap} (every
     *         object allocated before its snapshot), or {@code unknown}
     */
    public String getExamined() {
        return examined;
    }
}
