package io.memscope.agent.capture;

import io.memscope.recording.GcRecord;
import io.memscope.recording.GcRecord.Examined;
import java.util.ArrayList;
import java.util.List;

/**
 * One collection the JVM reported through JVMTI (a pause, numbered in the order they start, timed on
 * {@link System#nanoTime()}'s clock), with what {@link CollectionLog} learned of it: the bean collections placed in
 * it, what it examined. Guarded by the log's lock.
 */
final class GcPause {
    final int ordinal;
    final long start;
    final long end;
    /** What the bean collections inside it said, one per bean collection (by key). */
    final List<GcDetails> details = new ArrayList<>(1);
    /** The keys of the bean collections a cut placed in it; null while not known. */
    long[] expected;
    /** Placed by time with other pauses of a cut (several pauses between two cuts). */
    PauseGroup group;
    boolean classified;
    /** Sampled objects this pause was seen to free (the heap sampler's scans), and the latest one's allocation. */
    int freed;
    long latestFreedAllocation = Long.MIN_VALUE;
    Examined examined = Examined.UNKNOWN;
    /** Classified as the end of a G1 marking no bean counts (JDK 17 to 19): known to hold no bean collection. */
    boolean unnamedMarkingEnd;
    long snapshot;
    /**
     * The start of the capture's end check when this pause is the one the check took for its own before the pause's
     * bean collections were known (whole heap, unless they say young: another thread's young collection after the
     * check's own); MIN_VALUE: not so.
     */
    long endCheckFrom = Long.MIN_VALUE;
    /** The heap used and committed read right after it, when no notification can say them; -1: not read. */
    long measuredUsed = -1;
    long measuredCommitted;

    GcPause(int ordinal, long start, long end) {
        this.ordinal = ordinal;
        this.start = start;
        this.end = end;
        this.snapshot = start;
    }

    boolean resolved() {
        return expected != null || group != null && group.complete();
    }

    /**
     * @param beans           the beans the log reads (names of the collections placed by key), or null
     * @param endCheckFigures the end check's pause's ordinal and the heap measured around it, or null
     * @return this pause's record: the figures of its bean collection(s) in start order
     */
    GcRecord record(GcBeans beans, long[] endCheckFigures) {
        long duration = Math.max(0, end - start);
        Examined examined = this.examined;
        long snapshot = examined == Examined.WHOLE_HEAP ? Math.min(this.snapshot, start) : start;
        if (details.isEmpty()) {
            String name = CollectionLog.UNNAMED;
            if ((expected != null && expected.length == 0 || unnamedMarkingEnd) && examined == Examined.WHOLE_HEAP) {
                // a G1 pause no bean counts that freed sampled objects: a Remark (JDK 17 to 19); also when a cut
                // with several pauses placed no bean collection in it
                name = CollectionLog.MARKING_END;
            } else if (expected != null && expected.length > 0 && beans != null) {
                name = beans.name((int) (expected[expected.length - 1] >>> 48));
            }
            long[] f = endCheckFigures;
            if (f != null && f[0] == ordinal) {
                // the end check's collection: the heap measured around System.gc()
                return new GcRecord(start, duration, name, "System.gc()", f[1], f[2], f[3], null, examined, snapshot,
                        start);
            }
            if (measuredUsed >= 0 && expected != null && expected.length > 0) {
                // a bean collection whose notification was sent before memscope listened: the heap read right after
                return new GcRecord(start, duration, name, null, 0, measuredUsed, measuredCommitted, null,
                        examined, snapshot, start);
            }
            // heap figures unknown: the JVM reports them only for its beans' collections
            return new GcRecord(start, duration, name, null, 0, 0, 0, null, examined, snapshot, start);
        }
        List<GcDetails> ds = new ArrayList<>(details);
        ds.sort((a, b) -> {
            int c = Long.compare(a.startMillis, b.startMillis);
            return c != 0 ? c : Integer.compare(CollectionKinds.ofBean(a.name).code, CollectionKinds.ofBean(b.name).code);
        });
        GcDetails first = ds.get(0);
        GcDetails last = ds.get(ds.size() - 1);
        String cause = null;
        String action = null;
        for (GcDetails d : ds) {
            if (cause == null && d.cause != null && !d.cause.isEmpty()) {
                cause = d.cause;
            }
            if (d.action != null && !d.action.isEmpty()) {
                action = d.action;
            }
        }
        return new GcRecord(start, duration, last.name, cause, first.before, last.after, last.committed, action,
                examined, snapshot, start);
    }
}
