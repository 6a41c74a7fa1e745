package io.memscope.analysis;

import io.memscope.recording.GcRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The collections that reclaim memory, in start order: the points at which held memory is measured, and the one
 * home of the rule that says which collection freed a sampled object.
 *
 * <p><b>Attribution rule.</b> The agent observes a sampled object's collection when its weak reference is
 * enqueued, shortly after the collection that freed it: a DEALLOCATE observed at time {@code t} is attributed to
 * the last collection that started before {@code t} ({@link #collectedBy}). The object was held at every earlier
 * collection that started after its allocation. Precision: a DEALLOCATE observed only after the next collection
 * started (back-to-back collections a few milliseconds apart, a busy reference handler) is attributed to that next
 * one, so the object counts as held at one collection too many; collection start times themselves have the JVM's
 * 1 ms precision. Capture that checks its weak references right after each collection makes the rule exact
 * without changing it.
 *
 * <p><b>Which records.</b> Every record but the {@code ... Pauses} records of concurrent collectors (ZGC,
 * Shenandoah), which report the pauses inside a cycle separately from the cycle that reclaims: their heap figures are
 * taken mid-cycle. Young collections are included: they do not free old-generation garbage, so the held figure
 * measured at a young collection counts sampled objects promoted and since become garbage as held, as the JVM's
 * own heap-used-after figure counts them; at a full collection (the agent's final {@code System.gc()}) it is
 * reachable memory.
 *
 * <p>With no such record (GC notifications off), a single synthetic point at the end of the capture stands in:
 * held at it means allocated and never observed collected.
 */
final class GcTimeline {
    private final List<GcRecord> points;
    private final long[] starts;
    private final boolean synthetic;

    private GcTimeline(List<GcRecord> points, boolean synthetic) {
        this.points = points;
        this.synthetic = synthetic;
        this.starts = new long[points.size()];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = points.get(i).startNanos();
        }
    }

    /**
     * @param records every collection of the recording
     * @param endNanos the end of the capture, where the synthetic point goes when no record reclaims memory
     */
    static GcTimeline of(List<GcRecord> records, long endNanos) {
        List<GcRecord> l = new ArrayList<>();
        for (GcRecord r : records) {
            if (reclaims(r)) {
                l.add(r);
            }
        }
        l.sort(Comparator.comparingLong(GcRecord::startNanos));
        if (l.isEmpty()) {
            l.add(new GcRecord(endNanos, 0, "end of capture", null, 0, 0, 0, null));
            return new GcTimeline(l, true);
        }
        return new GcTimeline(l, false);
    }

    /** @return whether a record is a collection whose heap figures are taken after memory was reclaimed */
    static boolean reclaims(GcRecord r) {
        return r.name() == null || !r.name().endsWith("Pauses");
    }

    /**
     * The attribution rule: the collection that freed an object whose collection was observed at {@code observed}.
     *
     * @return the index of the last point that started strictly before {@code observed}, -1 if none did
     */
    int collectedBy(long observed) {
        int lo = 0;
        int hi = starts.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (starts[mid] < observed) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    int size() {
        return starts.length;
    }

    long start(int k) {
        return starts[k];
    }

    GcRecord record(int k) {
        return points.get(k);
    }

    /** @return true when the only point is the synthetic end of the capture (the recording has no collection) */
    boolean synthetic() {
        return synthetic;
    }

    /** @return the first point starting at or after {@code fromNanos}, or {@link #size()} */
    int firstAtOrAfter(long fromNanos) {
        int i = 0;
        while (i < starts.length && starts[i] < fromNanos) {
            i++;
        }
        return i;
    }

    /** @return the last point starting at or before {@code toNanos}, or -1 */
    int lastAtOrBefore(long toNanos) {
        int i = starts.length - 1;
        while (i >= 0 && starts[i] > toNanos) {
            i--;
        }
        return i;
    }

    /**
     * @return among points {@code from..to}, the one after which the heap held the most ({@code heapUsedAfter}, the
     *     first of equals), or -1 when the range is empty or the timeline is synthetic
     */
    int peak(int from, int to) {
        if (synthetic) {
            return -1;
        }
        int best = -1;
        for (int k = Math.max(0, from); k <= to && k < starts.length; k++) {
            if (best < 0 || points.get(k).heapUsedAfter() > points.get(best).heapUsedAfter()) {
                best = k;
            }
        }
        return best;
    }
}
