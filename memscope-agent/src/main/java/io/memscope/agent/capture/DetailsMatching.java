package io.memscope.agent.capture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * What the GC beans said of their collections ({@link GcDetails}: a notification, or a bean's last-collection
 * figures), placed in the JVMTI pauses of a {@link CollectionLog}: by key in the pause a cut placed the bean
 * collection in ({@link BeanCuts}), by time among the pauses of an ambiguous cut ({@link NotificationTimes}), or as
 * a concurrent cycle of its own ({@link ConcurrentCycles}). Details a cut has not covered yet wait for one, at most
 * {@value #WAIT_NANOS} ns. Used under its log's lock only.
 */
final class DetailsMatching {
    /** How long a notification waits for its collection to be reported. */
    static final long WAIT_NANOS = 1_000_000_000L;

    private final NotificationTimes times;
    private final ConcurrentCycles cycles;
    /** GcDetails not placed yet (their pause or cut not known yet). */
    private final List<GcDetails> arrived = new ArrayList<>();
    /** Bean collections a cut placed in a pause whose details have not arrived, by key. */
    private final Map<Long, GcPause> placed = new HashMap<>();
    /** Notifications that fitted no collection (dropped). */
    private long unmatched;

    DetailsMatching(NotificationTimes times, ConcurrentCycles cycles) {
        this.times = times;
        this.cycles = cycles;
    }

    /** What a bean collection said: placed at the next {@link #match}. */
    void arrive(GcDetails d) {
        arrived.add(d);
    }

    /** @return the pauses of bean collections placed by key, which a cut fills ({@link BeanCuts#place}) */
    Map<Long, GcPause> placed() {
        return placed;
    }

    /** The record of {@code p} was written: its bean collections are no longer looked up. */
    void written(GcPause p) {
        for (GcDetails d : p.details) {
            placed.remove(d.key);
        }
        if (p.expected != null) {
            for (long k : p.expected) {
                placed.remove(k);
            }
        }
    }

    /** @return notifications that fitted no collection (dropped) */
    long unmatched() {
        return unmatched;
    }

    /**
     * Places the details that arrived: by key in the pause a cut placed them in, a concurrent cycle of its own, by
     * time among the pauses of an ambiguous cut; a notification no cut has covered yet waits for one, at most
     * {@value #WAIT_NANOS} ns, then is placed by time (or dropped and counted when it fits no collection).
     *
     * @param pauses the log's pauses not written yet, in order
     * @param cuts   the log's cuts (which bean collections they counted)
     * @param now    the log's clock
     * @return the snapshot of a concurrent cycle that examined the whole heap, seen now, or
     *         {@link CollectionLog#NO_VERDICT}
     */
    long match(List<GcPause> pauses, BeanCuts cuts, long now) {
        long verdict = CollectionLog.NO_VERDICT;
        if (arrived.isEmpty()) {
            return verdict;
        }
        // the ambiguous cuts' groups, once: a backlog of thousands of pauses shares a few groups, and looking through
        // every pause for every notification made each match quadratic in the backlog
        List<PauseGroup> groups = openGroups(pauses);
        for (Iterator<GcDetails> it = arrived.iterator(); it.hasNext(); ) {
            GcDetails d = it.next();
            int bean = (int) (d.key >>> 48);
            long id = d.key & 0xFFFF_FFFF_FFFFL;
            if (CollectionKinds.isCycleBean(d.name)) {
                verdict = Math.max(verdict, cycles.arrive(d));
                it.remove();
                continue;
            }
            GcPause p = placed.get(d.key);
            if (p != null) {
                attach(p, d);
                it.remove();
                continue;
            }
            GcPause byTime = openGroupPause(groups, pauses, d);
            if (byTime != null) {
                byTime.group.open.remove(d.key);
                placed.put(d.key, byTime);
                attach(byTime, d);
                it.remove();
                continue;
            }
            boolean covered = cuts.covers(bean, id);
            if (covered && !inOpenGroup(groups, d.key)) {
                // counted by a cut but in no pending pause: before the capture, or its pause was written already
                it.remove();
                continue;
            }
            if (now - d.receivedNanos > WAIT_NANOS) {
                GcPause fallback = times.byTime(d, pauses, pauses, arrived);
                if (fallback != null) {
                    attach(fallback, d);
                } else if (d.notified) {
                    unmatched++;
                }
                it.remove();
            }
        }
        return verdict;
    }

    /** @return the distinct groups of the pauses (an ambiguous cut's pauses share theirs), in order */
    private static List<PauseGroup> openGroups(List<GcPause> pauses) {
        List<PauseGroup> groups = new java.util.ArrayList<>();
        PauseGroup last = null;
        for (GcPause p : pauses) {
            if (p.group != null && p.group != last) {
                last = p.group;
                if (!groups.contains(last)) {
                    groups.add(last);
                }
            }
        }
        return groups;
    }

    private static boolean inOpenGroup(List<PauseGroup> groups, long key) {
        for (PauseGroup g : groups) {
            if (g.open.contains(key)) {
                return true;
            }
        }
        return false;
    }

    /** @return the pause of an ambiguous cut whose time holds this bean collection, or null (not yet known) */
    private GcPause openGroupPause(List<PauseGroup> groups, List<GcPause> pauses, GcDetails d) {
        for (PauseGroup g : groups) {
            if (g.open.contains(d.key)) {
                return times.byTime(d, g.pauses, pauses, arrived);
            }
        }
        return null;
    }

    /** Adds what a bean collection said to its pause (a notification completes the bean's last-collection figures). */
    private void attach(GcPause p, GcDetails d) {
        for (int i = 0; i < p.details.size(); i++) {
            GcDetails had = p.details.get(i);
            if (had.key == d.key) {
                if (d.notified && !had.notified) {
                    p.details.set(i, merged(had, d));
                }
                return;
            }
        }
        p.details.add(d);
        if (p.expected != null) {
            times.pair(p.start, p.end, d.startMillis, d.durationMillis); // known to be the same collection
        }
    }

    private static GcDetails merged(GcDetails figures, GcDetails notification) {
        return notification; // a notification carries the same figures and the cause and action
    }
}
