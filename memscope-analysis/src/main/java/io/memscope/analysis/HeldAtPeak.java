package io.memscope.analysis;

import java.util.HashMap;
import java.util.Map;

/**
 * The API sections' held-at-the-peak figures while the peak is not known yet: the report's peak is the whole-heap
 * collection where the most was held, learnt by the report's replay as it measures ({@link HeldReplay}), after the API
 * sections' pass ({@link ApiAnalysis}) has settled its samples. A settled sample is held at the collections
 * {@code from .. until - 1} of a {@link GcTimeline} (judged reachable from the first whole-heap collection whose
 * snapshot came after its allocation, until the collection that freed it); its bytes are kept as a difference over
 * those collections per target (a scope cell, or a stack key's profiled functions), and {@link #at} sums them at the
 * peak once it is known.
 *
 * <p>Memory: per target and per collection where a settled sample's interval starts or ends; never per sample.
 */
final class HeldAtPeak {
    /** A scope cell's figures ({@link SampleCells#cell}). */
    static final int CELL = 0;
    /** A stack key's profiled functions ({@link SampleCells#functions}). */
    static final int FUNCTIONS = 1;

    /** Per (kind, target, collection): the bytes whose interval starts there minus those whose interval ends there. */
    private final Map<Long, long[]> deltas = new HashMap<>();
    /** Per collection, the latest snapshot of a whole-heap collection at or before it. */
    private final long[] confirmedBefore;

    HeldAtPeak(GcTimeline gcs) {
        confirmedBefore = new long[gcs.size()];
        long c = Long.MIN_VALUE;
        for (int k = 0; k < gcs.size(); k++) {
            if (gcs.wholeHeap(k)) {
                c = Math.max(c, gcs.snapshot(k));
            }
            confirmedBefore[k] = c;
        }
    }

    /** @return the latest whole-heap snapshot at or before {@code gc} ({@link GcTimeline#confirmedBefore}) */
    long confirmedBefore(int gc) {
        return confirmedBefore[gc];
    }

    /** @return the first collection at which a sample allocated at {@code allocated} was judged, or their count */
    int firstConfirming(long allocated) {
        int lo = 0;
        int hi = confirmedBefore.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (confirmedBefore[mid] > allocated) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * Adds {@code bytes} held at the collections {@code from .. until - 1}.
     *
     * @param kind   {@link #CELL} or {@link #FUNCTIONS}
     * @param target the cell or the stack key
     */
    void add(int kind, int target, int from, int until, long bytes) {
        if (from >= until) {
            return;
        }
        delta(kind, target, from)[0] += bytes;
        if (until != Integer.MAX_VALUE) {
            delta(kind, target, until)[0] -= bytes;
        }
    }

    private long[] delta(int kind, int target, int gc) {
        return deltas.computeIfAbsent(key(kind, target, gc), k -> new long[1]);
    }

    private static long key(int kind, int target, int gc) {
        return (long) kind << 62 | (long) target << 31 | gc;
    }

    /** A target's bytes held at the peak. */
    interface Sink {
        void held(int kind, int target, long bytes);
    }

    /** Hands each target its bytes held at collection {@code peak} (none when {@code peak} is -1). */
    void at(int peak, Sink sink) {
        if (peak < 0) {
            return;
        }
        Map<Long, long[]> sums = new HashMap<>();
        for (Map.Entry<Long, long[]> e : deltas.entrySet()) {
            long k = e.getKey();
            int gc = (int) (k & Integer.MAX_VALUE);
            if (gc <= peak) {
                sums.computeIfAbsent(k >>> 31, x -> new long[1])[0] += e.getValue()[0];
            }
        }
        for (Map.Entry<Long, long[]> e : sums.entrySet()) {
            long t = e.getKey();
            if (e.getValue()[0] != 0) {
                sink.held((int) (t >>> 31), (int) (t & Integer.MAX_VALUE), e.getValue()[0]);
            }
        }
    }
}
