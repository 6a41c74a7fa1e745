package io.memscope.analysis;

import io.memscope.recording.GcRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The collections that reclaim memory, in order: the points at which held memory is measured, what each examined,
 * and the one home of the rule that says which collection freed a sampled object.
 *
 * <p><b>Positions.</b> A collection's position is the moment from which its verdict holds
 * ({@link GcRecord#verdictNanos()}): its start for a pause (the objects it frees are observed after its start), its
 * end for a concurrent cycle that examined the whole heap (ZGC, Shenandoah: the objects it frees are observed while it
 * runs, and objects allocated meanwhile are not judged). Records of recordings before format 1.4 have their start.
 *
 * <p><b>Attribution rule.</b> The agent observes a sampled object's collection when its weak reference is found
 * cleared, after the collection that freed it: a DEALLOCATE observed at time {@code t} is attributed to the last
 * collection positioned before {@code t} ({@link #collectedBy}). The object was present at every earlier collection
 * positioned after its allocation. Precision: a DEALLOCATE observed only after the next collection's position
 * (back-to-back collections a few milliseconds apart, a busy reference handler) is attributed to that next one, so
 * the object counts as present at one collection too many; the JVM's sampler checks its references between every two
 * pauses, which makes the rule exact for stop-the-world collectors.
 *
 * <p><b>What each examined.</b> A young collection frees young garbage and proves nothing about objects that may have
 * been promoted; a collection that examined the whole heap judged every object allocated before its snapshot
 * ({@link GcRecord#snapshotNanos()}, at most its start). The timeline's <i>boundaries</i> are the collections'
 * positions (points) and the snapshots of the whole-heap ones (marks), in time order, a mark before a point at the same
 * time: {@link HeldLedger} moves its samples between buckets there.
 *
 * <p><b>Overlapping snapshots.</b> {@link HeldLedger} keeps one snapshot pending at a time. A snapshot whose
 * collection's verdict comes after the pending one's is not taken (that verdict will confirm the pending snapshot,
 * which it covers): so overlapping whole-heap collections (generational ZGC's major cycles, whose snapshots lag their
 * starts by many young collections) still confirm, one in a few. One whose verdict comes first replaces the pending
 * one, and so does the last snapshot of the window (normally the end check's cycle, placed over the one it waited for
 * within the clock's uncertainty, or starting while another cycle ends): no later collection would judge what was
 * allocated between the two snapshots. Which snapshots are taken and which collection confirms which follow from the
 * timeline alone ({@link #markTaken}, {@link #confirms}). A whole-heap collection that confirms nothing measures, as
 * held, what was reachable at an earlier snapshot and is still there: less than what it held for anything that turns
 * over. So the leak rule compares held only at collections that confirm, each at the snapshot it confirmed
 * ({@link #confirmedSnapshot}).
 *
 * <p><b>Which records.</b> Every record but the {@code ... Pauses} records of concurrent collectors (ZGC, Shenandoah),
 * which report the pauses inside a cycle separately from the cycle that reclaims: their heap figures are taken
 * mid-cycle. With no such record (GC notifications off), a single synthetic point at the end of the capture stands
 * in: held at it means allocated and never observed collected, confirmed by nothing.
 */
final class GcTimeline {
    private final List<GcRecord> points;
    private final long[] positions;
    private final boolean synthetic;
    /** Boundaries in time order: their time, and the point they are (>= 0) or the point whose snapshot they are (-1 - k). */
    private final long[] boundaryTime;
    private final int[] boundaryOf;
    /** Per point: its boundary, and (whole-heap points) its snapshot's boundary, else -1. */
    private final int[] pointBoundary;
    private final int[] markBoundary;
    /** Per boundary: whether it is a snapshot the held ledger takes (class comment: overlapping snapshots). */
    private final boolean[] markTaken;
    /** Per point: the boundary of the snapshot its verdict confirms, or -1. */
    private final int[] confirms;

    private GcTimeline(List<GcRecord> points, boolean synthetic, long endNanos) {
        this.points = points;
        this.synthetic = synthetic;
        int n = points.size();
        this.positions = new long[n];
        for (int i = 0; i < n; i++) {
            positions[i] = position(points.get(i));
        }
        List<long[]> b = new ArrayList<>(n * 2);
        for (int k = 0; k < n; k++) {
            GcRecord r = points.get(k);
            if (r.wholeHeap()) {
                b.add(new long[] {Math.min(r.snapshotNanos(), positions[k]), 0, -1 - k}); // marks first at equal times
            }
            b.add(new long[] {positions[k], 1, k});
        }
        b.sort((x, y) -> {
            int c = Long.compare(x[0], y[0]);
            if (c == 0) {
                c = Long.compare(x[1], y[1]); // a snapshot before a position at the same time
            }
            return c != 0 ? c : Long.compare(x[2] >= 0 ? x[2] : -1 - x[2], y[2] >= 0 ? y[2] : -1 - y[2]);
        });
        this.boundaryTime = new long[b.size()];
        this.boundaryOf = new int[b.size()];
        this.pointBoundary = new int[n];
        this.markBoundary = new int[n];
        Arrays.fill(markBoundary, -1);
        for (int i = 0; i < b.size(); i++) {
            boundaryTime[i] = b.get(i)[0];
            int of = (int) b.get(i)[2];
            boundaryOf[i] = of;
            if (of >= 0) {
                pointBoundary[of] = i;
            } else {
                markBoundary[-1 - of] = i;
            }
        }
        this.markTaken = new boolean[b.size()];
        this.confirms = new int[n];
        schedule(endNanos);
    }

    /**
     * Decides, in time order, which snapshots the held ledger takes and which collection confirms each (class
     * comment). A point's verdict is taken when the replay leaves it (its frees observed): before the next boundary.
     *
     * @param endNanos the end of the timeline's window: its last snapshot is that of the last whole-heap collection
     *                 whose verdict is in it (collections recorded after the capture's end check are not)
     */
    private void schedule(long endNanos) {
        Arrays.fill(confirms, -1);
        int lastMark = -1;
        for (int k = positions.length - 1; k >= 0 && lastMark < 0; k--) {
            if (markBoundary[k] >= 0 && positions[k] <= endNanos) {
                lastMark = markBoundary[k];
            }
        }
        int pending = -1;
        int left = -1; // the point whose verdict is taken before the next boundary
        for (int b = 0; b <= boundaryOf.length; b++) {
            if (left >= 0 && pending >= 0 && markBoundary[left] >= pending) {
                confirms[left] = pending;
                pending = -1;
            }
            left = -1;
            if (b == boundaryOf.length) {
                break;
            }
            if (boundaryOf[b] >= 0) {
                left = boundaryOf[b];
            } else if (pending < 0 || b == lastMark
                    || pointBoundary[-1 - boundaryOf[b]] < pointBoundary[-1 - boundaryOf[pending]]) {
                markTaken[b] = true;
                pending = b;
            }
        }
    }

    /** @return whether boundary {@code b} is a snapshot the held ledger takes (class comment) */
    boolean markTaken(int b) {
        return markTaken[b];
    }

    /** @return the boundary of the snapshot point {@code k}'s verdict confirms, or -1 (class comment) */
    int confirms(int k) {
        return confirms[k];
    }

    /** @return the time of the snapshot point {@code k} confirms: held there was reachable then; MIN_VALUE if none */
    long confirmedSnapshot(int k) {
        return confirms[k] < 0 ? Long.MIN_VALUE : boundaryTime[confirms[k]];
    }

    /** @return the last point among {@code from..to} that confirms a snapshot, or -1 */
    int lastConfirming(int from, int to) {
        for (int k = Math.min(to, positions.length - 1); k >= Math.max(0, from); k--) {
            if (confirms[k] >= 0) {
                return k;
            }
        }
        return -1;
    }

    /** @return when a record's verdict holds: its start, or the end of a whole-heap concurrent cycle */
    static long position(GcRecord r) {
        return Math.max(r.startNanos(), r.verdictNanos());
    }

    /**
     * The collections of a recording, with what each examined; a recording that does not say (before format 1.4, or
     * written without GC_SCOPE blocks: no record says anything) has its stop-the-world full collections and the
     * concurrent cycles of ZGC and Shenandoah recognized by their names ({@link GcRecord.Examined#ofCollector}; G1's
     * marking-end pauses not, their marking's snapshot being unknown), the others stay unknown.
     *
     * @param endNanos the end of the window: where the synthetic point goes when no record reclaims memory, and the
     *                 bound of the last snapshot (class comment: overlapping snapshots)
     */
    static GcTimeline of(RecordedRun run, long endNanos) {
        return of(withExamined(run.gcRecords()), endNanos);
    }

    /** @return the records, what each examined inferred from its name when none of them says (see {@link #of}) */
    static List<GcRecord> withExamined(List<GcRecord> records) {
        for (GcRecord g : records) {
            if (g.examined() != GcRecord.Examined.UNKNOWN) {
                return records;
            }
        }
        List<GcRecord> l = new ArrayList<>(records.size());
        for (GcRecord g : records) {
            GcRecord.Examined e = GcRecord.Examined.ofCollector(g.name());
            if ("G1 Concurrent GC".equals(g.name())) {
                e = GcRecord.Examined.UNKNOWN;
            }
            long verdict = e == GcRecord.Examined.WHOLE_HEAP && !g.isPause()
                    ? g.startNanos() + g.durationNanos() : g.startNanos();
            l.add(g.withExamined(e, g.startNanos(), verdict));
        }
        return l;
    }

    /**
     * @param records every collection of the recording
     * @param endNanos the end of the window: where the synthetic point goes when no record reclaims memory, and the
     *                 bound of the last snapshot (class comment: overlapping snapshots)
     */
    static GcTimeline of(List<GcRecord> records, long endNanos) {
        List<GcRecord> l = new ArrayList<>();
        for (GcRecord r : records) {
            if (reclaims(r)) {
                l.add(r);
            }
        }
        l.sort(Comparator.comparingLong((GcRecord r) -> position(r)).thenComparingLong(GcRecord::startNanos));
        if (l.isEmpty()) {
            l.add(new GcRecord(endNanos, 0, "end of capture", null, 0, 0, 0, null));
            return new GcTimeline(l, true, endNanos);
        }
        return new GcTimeline(l, false, endNanos);
    }

    /** @return whether a record is a collection whose heap figures are taken after memory was reclaimed */
    static boolean reclaims(GcRecord r) {
        return r.name() == null || !r.name().endsWith("Pauses");
    }

    /**
     * The attribution rule: the collection that freed an object whose collection was observed at {@code observed}.
     *
     * @return the index of the last point positioned strictly before {@code observed}, -1 if none was
     */
    int collectedBy(long observed) {
        int lo = 0;
        int hi = positions.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (positions[mid] < observed) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    int size() {
        return positions.length;
    }

    /** @return the position of point {@code k} (see the class comment) */
    long position(int k) {
        return positions[k];
    }

    GcRecord record(int k) {
        return points.get(k);
    }

    /** @return the snapshot of point {@code k}: objects allocated before it were judged (its start if not whole-heap) */
    long snapshot(int k) {
        return Math.min(points.get(k).snapshotNanos(), positions[k]);
    }

    /** @return whether point {@code k} examined the whole heap */
    boolean wholeHeap(int k) {
        return !synthetic && points.get(k).wholeHeap();
    }

    /** @return the boundaries: positions and snapshots */
    int boundaries() {
        return boundaryTime.length;
    }

    long boundaryTime(int b) {
        return boundaryTime[b];
    }

    /** @return the point boundary {@code b} is, or -1 when it is a snapshot */
    int pointAt(int b) {
        return boundaryOf[b] >= 0 ? boundaryOf[b] : -1;
    }

    /**
     * @return the points among the boundaries {@code from .. to - 1}: how many collections a sample allocated after
     *         crossing {@code from} boundaries saw when {@code to} boundaries are crossed
     */
    int pointsBetween(int from, int to) {
        if (pointsBefore == null) {
            int[] c = new int[boundaryOf.length + 1];
            for (int i = 0; i < boundaryOf.length; i++) {
                c[i + 1] = c[i] + (boundaryOf[i] >= 0 ? 1 : 0);
            }
            pointsBefore = c;
        }
        int a = Math.max(0, Math.min(from, pointsBefore.length - 1));
        int b = Math.max(0, Math.min(to, pointsBefore.length - 1));
        return pointsBefore[b] - pointsBefore[a];
    }

    private int[] pointsBefore;

    /** @return the boundary of point {@code k}'s snapshot, or -1 when it did not examine the whole heap */
    int markOf(int k) {
        return markBoundary[k];
    }

    /** @return true when the only point is the synthetic end of the capture (the recording has no collection) */
    boolean synthetic() {
        return synthetic;
    }

    /** @return the first point positioned at or after {@code fromNanos}, or {@link #size()} */
    int firstAtOrAfter(long fromNanos) {
        int i = 0;
        while (i < positions.length && positions[i] < fromNanos) {
            i++;
        }
        return i;
    }

    /** @return the last point positioned at or before {@code toNanos}, or -1 */
    int lastAtOrBefore(long toNanos) {
        int i = positions.length - 1;
        while (i >= 0 && positions[i] > toNanos) {
            i--;
        }
        return i;
    }

    /**
     * @return the latest snapshot of a whole-heap point at or before {@code k}: a sample allocated before it and not
     *         freed by {@code k} is held at {@code k}; {@link Long#MIN_VALUE} when none
     */
    long confirmedBefore(int k) {
        long best = Long.MIN_VALUE;
        for (int i = Math.min(k, positions.length - 1); i >= 0; i--) {
            if (wholeHeap(i)) {
                best = Math.max(best, Math.min(points.get(i).snapshotNanos(), positions[i]));
            }
        }
        return best;
    }

    /** @return whole-heap points among {@code from..to} */
    int wholeHeapCount(int from, int to) {
        int n = 0;
        for (int k = Math.max(0, from); k <= to && k < positions.length; k++) {
            if (wholeHeap(k)) {
                n++;
            }
        }
        return n;
    }

    /**
     * The JVM's peak: among the whole-heap points of {@code from..to} (only there is what the heap holds reachable
     * memory), the one after which the JVM reported the most heap in use (the first of equals); when none of them has
     * the JVM's figures, the last of them. Only the API sections analysed alone use it ({@link ApiAnalysis}): the
     * report's peak is where the held ledger measured the most ({@link HeldReplay}), since a whole-heap point
     * without the JVM's figures (G1's Remark on JDK 17) may hold the most.
     *
     * @return the point, or -1 when the range has no whole-heap point or the timeline is synthetic
     */
    int peak(int from, int to) {
        if (synthetic) {
            return -1;
        }
        int best = -1;
        int last = -1;
        for (int k = Math.max(0, from); k <= to && k < positions.length; k++) {
            GcRecord r = points.get(k);
            if (!r.wholeHeap()) {
                continue;
            }
            last = k;
            if (r.hasHeapFigures() && (best < 0 || r.heapUsedAfter() > points.get(best).heapUsedAfter())) {
                best = k;
            }
        }
        return best >= 0 ? best : last;
    }
}
