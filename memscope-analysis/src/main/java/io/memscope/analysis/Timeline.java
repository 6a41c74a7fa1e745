package io.memscope.analysis;

import java.util.List;

/**
 * Memory over time: the report's window cut into equal buckets (about {@value ReportBuilder#TIMELINE_BUCKETS},
 * whatever the run's length; a whole number of milliseconds each, at least 1 ms).
 *
 * @param startNanos  start of the first bucket, {@code System.nanoTime()} of the recorded JVM (the window's start)
 * @param bucketNanos width of a bucket
 * @param buckets     the buckets, oldest first
 */
public record Timeline(long startNanos, long bucketNanos, List<Bucket> buckets) {

    /**
     * One bucket.
     *
     * @param startMs                start, ms since the run's start
     * @param allocatedBytes         heap bytes allocated in the bucket (estimated like {@link Report.Totals}; the
     *                               buckets add up to {@code totals.allocatedBytes})
         * @param heldBytes              held heap at the last collection in or before the bucket: confirmed reachable
     *                               (estimate, see {@link SiteProfile}); 0 before the first whole-heap collection

     * @param heapUsedBytes          heap in use right after that same collection, as the JVM reported it
     * @param heapCommittedBytes     heap committed after that collection
     * @param nativeOutstandingBytes native memory outstanding at the end of the bucket
     * @param gcPauseMs              pauses of collections that started in the bucket, ms
     * @param gcCount                collections (of any kind) that started in the bucket
     * @param topSites               the sites holding the most at that collection, largest first, at most 5
     * @param unconfirmedBytes       present at that collection but judged by no whole-heap collection (estimate;
     *                               never in {@code heldBytes})
     */
    public record Bucket(double startMs, long allocatedBytes, long heldBytes, long heapUsedBytes,
                         long heapCommittedBytes, long nativeOutstandingBytes, double gcPauseMs, int gcCount,
                         List<HeldSite> topSites, long unconfirmedBytes) {
    }

    /**
     * A site's held bytes at one collection.
     *
     * @param site  the site as a frame
     * @param type  allocated type
     * @param bytes held bytes (estimate)
     */
    public record HeldSite(String site, String type, long bytes) {
    }
}
