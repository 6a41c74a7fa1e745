package io.memscope.agent.capture;

import io.memscope.recording.GcRecord;
import io.memscope.recording.GcRecord.Examined;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeSet;

/**
 * The concurrent cycles of ZGC and Shenandoah a {@link CollectionLog} saw (their beans' collections, which no pause
 * holds): each is a record of its own, placed on {@link System#nanoTime()}'s clock by {@link NotificationTimes}
 * (its start as early, its end as late as what is known allows), and what it judged. Guarded by the log's lock.
 */
final class ConcurrentCycles {
    private final NotificationTimes times;
    /** Cycles seen, not yet written, by key. */
    private final Map<Long, GcDetails> cycles = new HashMap<>();
    /** Generational ZGC: the starts of its young collections (a minor cycle's, a major cycle's), latest kept. */
    private final TreeSet<Long> youngStarts = new TreeSet<>();
    /** When the end check's {@code System.gc()} was called; MIN_VALUE before. */
    private long endCheckFrom = Long.MIN_VALUE;

    ConcurrentCycles(NotificationTimes times) {
        this.times = times;
    }

    /**
     * A cycle's details arrived (a notification replaces the bean's last-collection figures of the same cycle).
     *
     * @return the snapshot of a cycle that examined the whole heap, seen the first time with the clock placed: the
     *         samples allocated before it and still alive were reachable then; else {@link CollectionLog#NO_VERDICT}
     */
    long arrive(GcDetails d) {
        GcDetails had = cycles.get(d.key);
        if (had == null || d.notified && !had.notified) {
            cycles.put(d.key, d); // a notification carries the same figures and the cause and action
        }
        if (had == null && CollectionKinds.isGenerationalZgcCycle(d.name) && times.known()) {
            youngStarts.add(times.earliestStart(d));
            if (youngStarts.size() > 256) {
                youngStarts.pollFirst();
            }
        }
        if (had == null && times.paired() && CollectionKinds.ofBean(d.name) == Examined.WHOLE_HEAP) {
            long snapshot = snapshot(d, times.earliestStart(d));
            if (snapshot != CollectionKinds.NOTHING_JUDGED) {
                return snapshot;
            }
        }
        return CollectionLog.NO_VERDICT;
    }

    /** Makes the records of the cycles that can be placed final: notified, settled, or all (end of capture). */
    void settle(boolean all, long now, CollectionLog log) {
        for (Iterator<GcDetails> it = cycles.values().iterator(); it.hasNext(); ) {
            GcDetails d = it.next();
            boolean timed = times.known();
            if (timed && (all || d.notified || now - d.receivedNanos >= CollectionLog.SETTLE_NANOS)) {
                log.done(record(d));
                it.remove();
            }
        }
    }

    /**
     * The end check's {@code System.gc()} ran from {@code fromNanos} to {@code toNanos}.
     *
     * @return whether a cycle that examined the whole heap started during it (its own record judges the whole heap)
     */
    boolean endCheck(long fromNanos, long toNanos) {
        endCheckFrom = fromNanos;
        boolean cycle = false;
        for (GcDetails d : cycles.values()) {
            long start = times.earliestStart(d);
            if (start >= fromNanos - CollectionLog.TOLERANCE_NANOS && start <= toNanos
                    && CollectionKinds.ofBean(d.name) == Examined.WHOLE_HEAP) {
                cycle = true;
            }
        }
        return cycle;
    }

    /** @return whether a cycle that examined the whole heap and started at or after {@code nanos} is known */
    boolean wholeHeapSince(long nanos) {
        for (GcDetails d : cycles.values()) {
            if (CollectionKinds.ofBean(d.name) == Examined.WHOLE_HEAP && times.paired()
                    && times.earliestStart(d) >= nanos) {
                return true;
            }
        }
        return false;
    }

    /** @return the record of a concurrent cycle, placed as early and ending as late as the learned offset allows */
    private GcRecord record(GcDetails d) {
        long start = times.earliestStart(d);
        long end = times.latestEnd(d);
        Examined examined = CollectionKinds.ofBean(d.name);
        String cause = d.cause == null || d.cause.isEmpty() ? null : d.cause;
        String action = d.action == null || d.action.isEmpty() ? null : d.action;
        long snapshot = examined == Examined.WHOLE_HEAP ? snapshot(d, start) : start;
        if (snapshot == CollectionKinds.NOTHING_JUDGED) {
            examined = Examined.UNKNOWN; // it judged none of the objects memscope sampled
            snapshot = start;
        }
        return new GcRecord(start, Math.max(0, end - start), d.name, cause, d.before, d.after, d.committed, action,
                examined, snapshot, examined == Examined.WHOLE_HEAP ? Math.max(start, end) : start);
    }

    /**
     * The snapshot of a concurrent cycle that examined the whole heap. A ZGC major cycle of the generational collector
     * judges the old generation only, except when asked for explicitly ({@link CollectionKinds#promotesAll}), which
     * first promotes every young object; and its young collections keep every object the heap sampler references
     * (JNI weak references are roots they do not process), so a sampled object judged by nothing stays in the young
     * generation until it is old enough to be promoted. After {@value CollectionKinds#ZGC_MAX_YOUNG_AGE} young
     * collections any object still alive is old: the snapshot is the start of the young collection that many before
     * the major cycle's start (or nothing judged when that many were not seen).
     *
     * @param start the cycle's start
     * @return the snapshot, or {@link CollectionKinds#NOTHING_JUDGED}
     */
    private long snapshot(GcDetails d, long start) {
        if (!CollectionKinds.isGenerationalZgcCycle(d.name) || CollectionKinds.promotesAll(d.cause)
                || endCheckFrom != Long.MIN_VALUE && start >= endCheckFrom - CollectionLog.TOLERANCE_NANOS) {
            return start;
        }
        int n = 0;
        for (Long s : youngStarts.headSet(start, false).descendingSet()) {
            if (++n == CollectionKinds.ZGC_MAX_YOUNG_AGE) {
                return s;
            }
        }
        return CollectionKinds.NOTHING_JUDGED;
    }
}
