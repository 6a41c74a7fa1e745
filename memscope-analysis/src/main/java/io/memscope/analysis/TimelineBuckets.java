package io.memscope.analysis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The report's timeline while the replay fills it ({@link ReportReplay}): about
 * {@value ReportBuilder#TIMELINE_BUCKETS} buckets of whole milliseconds over the window, each with the bytes
 * allocated in it and the figures of its last collection (held, unconfirmed, the heap's, the sites holding most),
 * native bytes outstanding, pauses; the figures of the last collection before the window carry into its first
 * buckets. {@link #timeline} turns them into the report's {@link Timeline}.
 */
final class TimelineBuckets {
    final long from;
    final long bucketNanos;
    final int count;
    final double[] alloc;
    final long[] held;
    final long[] unconfirmed;
    final long[] heapUsed;
    final long[] heapCommitted;
    final boolean[] measured;
    final long[] nativeOutstanding;
    final boolean[] nativeSet;
    final double[] pause;
    final int[] gcs;
    final List<List<Timeline.HeldSite>> top;
    /** The figures of the last collection before the window, shown until a bucket has its own. */
    long carryHeld;
    long carryUnconfirmed;
    long carryHeapUsed;
    long carryHeapCommitted;
    List<Timeline.HeldSite> carryTop = List.of();
    /** Native bytes outstanding when the window began. */
    long nativeAtFrom;

    /** The buckets of the window {@code from} to {@code to} (nanoseconds). */
    TimelineBuckets(long from, long to) {
        this.from = from;
        long duration = Math.max(1, to - from);
        long width = Math.max(1_000_000L,
                ceilDiv(ceilDiv(duration, ReportBuilder.TIMELINE_BUCKETS), 1_000_000L) * 1_000_000L);
        this.bucketNanos = width;
        this.count = (int) Math.max(1, ceilDiv(duration, width));
        alloc = new double[count];
        held = new long[count];
        unconfirmed = new long[count];
        heapUsed = new long[count];
        heapCommitted = new long[count];
        measured = new boolean[count];
        nativeOutstanding = new long[count];
        nativeSet = new boolean[count];
        pause = new double[count];
        gcs = new int[count];
        top = new ArrayList<>(Collections.nCopies(count, null));
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    /** @return the bucket of time {@code t} (times outside the window: the first or the last) */
    int bucketOf(long t) {
        long b = (t - from) / bucketNanos;
        return (int) Math.max(0, Math.min(count - 1, b));
    }

    /** Native bytes outstanding after an event at {@code t} in the window. */
    void nativeAt(long t, long outstanding) {
        int b = bucketOf(t);
        nativeOutstanding[b] = outstanding;
        nativeSet[b] = true;
    }

    /**
     * @param allocated   bytes allocated per bucket, before rounding
     * @param total       what the rounded figures add up to (the report's allocated bytes)
     * @param runStart    the run's start: bucket times are milliseconds from it
     * @param noHeldFigures the recording has no collections to measure held memory at (held and unconfirmed 0)
     * @return the timeline: a bucket without a collection shows the figures of the last one before it
     */
    Timeline timeline(double[] allocated, long total, long runStart, boolean noHeldFigures) {
        long[] rounded = Apportion.round(allocated, total);
        List<Timeline.Bucket> buckets = new ArrayList<>(count);
        long h = carryHeld;
        long u = carryUnconfirmed;
        long used = carryHeapUsed;
        long committed = carryHeapCommitted;
        List<Timeline.HeldSite> t = carryTop;
        long nat = nativeAtFrom;
        for (int b = 0; b < count; b++) {
            if (measured[b]) {
                h = held[b];
                u = unconfirmed[b];
                used = heapUsed[b];
                committed = heapCommitted[b];
                if (top.get(b) != null) {
                    t = top.get(b);
                }
            }
            if (nativeSet[b]) {
                nat = nativeOutstanding[b];
            }
            buckets.add(new Timeline.Bucket((from - runStart + b * bucketNanos) / 1e6, rounded[b],
                    noHeldFigures ? 0 : h, used, committed, nat, pause[b], gcs[b], t, noHeldFigures ? 0 : u));
        }
        return new Timeline(from, bucketNanos, buckets);
    }
}
