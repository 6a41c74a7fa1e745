package io.memscope.analysis;

import java.util.List;

/**
 * The moment the run held the most memory, and who held it.
 *
 * <p>Heap: the collection of the window after which the heap held the most, as the JVM reported it
 * ({@code heapUsedAfter}; collections as in {@code GcTimeline}: every record but the pause records of concurrent
 * collectors). {@link #estimatedBytes} is what sampled objects say was held there: objects allocated before that
 * collection and not collected by it. It covers the objects memscope samples (allocated while it ran, by the
 * classes it tracks), so it is at most the JVM's figure plus the sampling error; after a young collection both count
 * old-generation garbage not collected yet.
 *
 * @param timeNanos            start of the peak collection, {@code System.nanoTime()} of the recorded JVM
 * @param timeMs               the same, ms since the run's start
 * @param gcName               the collector, for example {@code G1 Young Generation}
 * @param gcCause              its cause
 * @param heapUsedAfterGcBytes heap in use after it (the JVM's figure)
 * @param estimatedBytes       held bytes estimated from samples (the report's {@code totals.peakLiveBytes})
 * @param estimatedObjects     held objects estimated from samples
 * @param sites                sites by held bytes at the peak, largest first, at most 10
 */
public record Peak(long timeNanos, double timeMs, String gcName, String gcCause, long heapUsedAfterGcBytes,
                   long estimatedBytes, long estimatedObjects, List<Holder> sites) {

    /**
     * A site's share of a peak.
     *
     * @param site  the site as a frame
     * @param type  allocated type
     * @param bytes bytes it held (heap: estimate) or had outstanding (native)
     * @param count   objects (native: blocks) behind {@code bytes}
     * @param samples heap: the sampled objects behind {@code bytes}; native: 0 (exact)
     * @param stack   one sampled stack of the site, innermost first
     */
    public record Holder(String site, String type, long bytes, long count, long samples, List<String> stack) {
    }

    /**
     * The native peak: the moment of the window with the most native memory outstanding (exact; the first such
     * moment).
     *
     * @param timeNanos        when, {@code System.nanoTime()} of the recorded JVM
     * @param timeMs           the same, ms since the run's start
     * @param outstandingBytes native bytes outstanding then
     * @param sites            sites by outstanding bytes then, largest first, at most 10
     */
    public record NativePeak(long timeNanos, double timeMs, long outstandingBytes, List<Holder> sites) {
    }
}
