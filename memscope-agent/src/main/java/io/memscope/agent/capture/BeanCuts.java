package io.memscope.agent.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cuts of a {@link CollectionLog}: the GC beans' counts read while no pause runs and none ended unseen, which
 * tell exactly which bean collections belong to the pauses between two cuts (see {@link CollectionLog}). Keeps the
 * last cut and what the cuts made; guarded by the log's lock.
 */
final class BeanCuts {
    /** The last cut: the last pause ended then (-1: none yet), and each bean's count (null: no baseline yet). */
    private int ordinal = -1;
    private long[] counts;
    private long cuts;
    private long ambiguous;

    /** The baseline when no bean counted a collection before the capture: every bean at 0, after no pause. */
    void zeroBaseline(int beans) {
        if (counts == null) {
            counts = new long[beans]; // nothing counted before the capture
            if (ordinal < 0) {
                ordinal = 0;
            }
        }
    }

    /** @return the library's finished count at the last cut: the pauses up to it are covered; -1 before any */
    int ordinal() {
        return ordinal;
    }

    /** @return whether a cut counted this bean collection already */
    boolean covers(int bean, long id) {
        return counts != null && bean < counts.length && id <= counts[bean];
    }

    /** @return cuts that placed bean collections (the baseline not counted) */
    long cuts() {
        return cuts;
    }

    /** @return cuts with several pauses between them and the previous one */
    long ambiguous() {
        return ambiguous;
    }

    /**
     * Places the bean collections counted since the last cut in the pauses that ended since: by key in the pause (one
     * pause, or one bean counting one collection per pause), else in a group of those pauses to be placed by time.
     *
     * @param finished         the library's finished count at the cut (no pause running)
     * @param counts           each bean's count at the cut
     * @param lastPauseOrdinal the highest ordinal passed to {@link CollectionLog#pause}
     * @param placed           the pauses of bean collections placed by key, filled here
     * @return the beans whose count changed
     */
    List<Integer> place(int finished, long[] counts, int lastPauseOrdinal, List<GcPause> pauses, GcBeans beans,
                        Map<Long, GcPause> placed) {
        List<Integer> changed = new ArrayList<>(2);
        if (this.counts != null && finished > lastPauseOrdinal) {
            return changed; // a pause ended that was not passed to pause() yet: the next cut will have it
        }
        long[] previous = this.counts;
        int from = ordinal;
        ordinal = finished;
        this.counts = counts;
        if (previous == null || previous.length != counts.length) {
            return changed; // the baseline: collections before it are not this capture's
        }
        cuts++;
        List<GcPause> between = new ArrayList<>(1);
        for (GcPause p : pauses) {
            if (p.ordinal > from && p.ordinal <= finished && p.expected == null && p.group == null) {
                between.add(p);
            }
        }
        List<Long> keys = new ArrayList<>(2);
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] == previous[i]) {
                continue;
            }
            changed.add(i);
            if (CollectionKinds.isCycleBean(beans.name(i))) {
                continue; // concurrent cycles are not inside pauses: placed by their own figures
            }
            // one pause holds at most one collection per bean: with a single pause, only the last counted is in it
            long first = between.size() == 1 ? Math.max(previous[i] + 1, counts[i]) : previous[i] + 1;
            for (long id = first; id <= counts[i]; id++) {
                keys.add(GcDetails.key(i, id));
            }
        }
        if (between.size() == 1) {
            GcPause p = between.get(0);
            p.expected = new long[keys.size()];
            for (int k = 0; k < keys.size(); k++) {
                p.expected[k] = keys.get(k);
                placed.put(keys.get(k), p);
            }
        } else if (between.size() > 1 && keys.size() == between.size() && singleBean(keys)) {
            // one bean counted as many collections as pauses ended, and a pause holds at most one collection per
            // bean: one each, in order
            for (int k = 0; k < keys.size(); k++) {
                GcPause p = between.get(k);
                p.expected = new long[] {keys.get(k)};
                placed.put(keys.get(k), p);
            }
        } else if (between.size() > 1) {
            ambiguous++;
            PauseGroup g = new PauseGroup();
            g.pauses.addAll(between);
            g.open.addAll(keys);
            for (GcPause p : between) {
                p.group = g;
            }
            if (keys.isEmpty()) {
                for (GcPause p : between) {
                    p.expected = new long[0]; // no bean counted anything: each is a pause without a bean
                }
            }
        }
        return changed;
    }

    private static boolean singleBean(List<Long> keys) {
        for (long k : keys) {
            if (k >>> 48 != keys.get(0) >>> 48) {
                return false;
            }
        }
        return true;
    }
}
