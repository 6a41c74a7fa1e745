package io.memscope.analysis;

import java.util.List;

/**
 * The moment the run held the most memory, and who held it.
 *
 * <p>Heap: a peak is memory really held. Among the collections of the window that examined the whole heap (only after
 * those is what the heap holds reachable memory), the one where the sampled objects held the most
 * ({@link #estimatedBytes}: objects that collection, or an earlier whole-heap one, judged reachable and that were not
 * collected since); the first of equals, unless the JVM's figures break the tie (the most heap in use after it, else
 * the later one). The JVM's heap figures do not choose: G1's Remark (a concurrent mark's whole-heap point) has none on
 * JDK 17 and may be where the most was held.
 * {@link #unconfirmedBytes} is what was present but judged by no whole-heap collection (allocated while a concurrent
 * cycle marked, or after a G1 marking's conservative snapshot). Sampled objects cover what memscope samples (allocated
 * while it ran, by the classes it tracks), so the estimate is at most the JVM's figure plus the sampling error
 * ({@link Report.HeapCheck}).
 *
 * @param timeNanos            start of the peak collection, {@code System.nanoTime()} of the recorded JVM
 * @param timeMs               the same, ms since the run's start
 * @param gcName               the collector, for example {@code G1 Young Generation}
 * @param gcCause              its cause
 * @param heapUsedAfterGcBytes heap in use after it (the JVM's figure), 0 when the collection has none
 * @param estimatedBytes       held bytes estimated from samples (the report's {@code totals.peakHeldBytes})
 * @param estimatedObjects     held objects estimated from samples
 * @param sites                sites by held bytes at the peak, largest first, at most 10
 * @param unconfirmedBytes     present at the peak collection but judged by no whole-heap collection (estimate)
 */
public record Peak(long timeNanos, double timeMs, String gcName, String gcCause, long heapUsedAfterGcBytes,
                   long estimatedBytes, long estimatedObjects, List<Holder> sites, long unconfirmedBytes) {

    /**
     * A site's share of a peak.
     *
     * @param site  the site as a frame
     * @param type  allocated type
     * @param bytes bytes it held (heap: estimate) or had outstanding (native)
     * @param count   objects (native: blocks) behind {@code bytes}
     * @param samples heap: the sampled objects behind {@code bytes}; native: 0 (exact)
     * @param stack   one sampled stack of the site, innermost first
     * @param unconfirmedBytes heap: the site's objects present then that no whole-heap collection judged (never in
     *                {@code bytes}); native: 0
     */
    public record Holder(String site, String type, long bytes, long count, long samples, List<String> stack,
                         long unconfirmedBytes) {
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
