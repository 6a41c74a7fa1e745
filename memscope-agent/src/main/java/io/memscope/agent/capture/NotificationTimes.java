package io.memscope.agent.capture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Where a bean collection's times (the management clock's milliseconds: a notification's or a bean's last
 * collection's start and duration) fall on {@link System#nanoTime()}'s clock: from the pairs of a pause and a bean
 * collection known to be inside it ({@link ManagementClock}), or, before any pair, from an offset calibrated on the
 * pauses and the details at hand ({@link #calibrate}). Guarded by {@link CollectionLog}'s lock.
 */
final class NotificationTimes {
    /** How far a notification's start may be from its collection's start when placed by time. */
    static final long TOLERANCE_NANOS = CollectionLog.TOLERANCE_NANOS;

    private final ManagementClock clock = new ManagementClock();
    /** nanoTime minus the management clock's milliseconds times 10^6 from {@link #calibrate}; valid when {@link #offsetKnown}. */
    private long offset;
    private boolean offsetKnown;
    /** The pauses and notifications at hand when the last calibration placed nothing; -1 when none failed. */
    private int failedPauses = -1;
    private int failedArrived;
    /** {@link #calibrate}'s bounds. */
    static final int FEW = 16;
    static final int ANCHORS = 8;
    static final int PAIRED_PAUSES = 2048;
    static final int SCORED = 64;

    /** A pause and the bean collection known to be inside it (see {@link ManagementClock#pair}). */
    void pair(long pauseStart, long pauseEnd, long startMillis, long durationMillis) {
        clock.pair(pauseStart, pauseEnd, startMillis, durationMillis);
    }

    /** @return whether a pair placed the management clock (not only a calibrated offset) */
    boolean paired() {
        return clock.known();
    }

    /** @return whether times can be placed: a pair, or a calibrated offset */
    boolean known() {
        return clock.known() || offsetKnown;
    }

    /** @return the start of a bean collection on the nanoTime clock, as early as what is known allows */
    long earliestStart(GcDetails d) {
        return clock.known() ? clock.earliest(d.startMillis) : offset + d.startMillis * 1_000_000L;
    }

    /** @return the end of a bean collection on the nanoTime clock, as late as what is known allows */
    long latestEnd(GcDetails d) {
        return clock.known() ? clock.latest(d.startMillis + d.durationMillis)
                : offset + d.startMillis * 1_000_000L + d.durationMillis * 1_000_000L;
    }

    ManagementClock clock() {
        return clock;
    }

    /**
     * @param pauses  the pauses not yet written and {@code arrived} the details not yet placed, for {@link #calibrate}
     * @return among these candidates, the one whose time holds the collection's management interval as the learned offset
     *         places it (or, before any pair was known, {@link #calibrate}'s offset), or null
     */
    GcPause byTime(GcDetails d, List<GcPause> candidates, List<GcPause> pauses, List<GcDetails> arrived) {
        long from;
        long to;
        if (clock.known()) {
            from = clock.earliest(d.startMillis);
            to = clock.latest(d.startMillis + d.durationMillis);
        } else {
            if (!offsetKnown) {
                calibrate(pauses, arrived);
                if (!offsetKnown) {
                    return null;
                }
            }
            from = offset + d.startMillis * 1_000_000L;
            to = from + d.durationMillis * 1_000_000L;
        }
        // the management interval starts inside the pause (within the offset's uncertainty)
        return nearest(candidates, from, to);
    }

    /** @return the pause nearest to the interval {@code [from, to]}, if within {@link #TOLERANCE_NANOS}, or null */
    private static GcPause nearest(List<GcPause> pauses, long from, long to) {
        GcPause best = null;
        long bestDistance = Long.MAX_VALUE;
        for (GcPause p : pauses) {
            long distance = to < p.start ? p.start - to : from > p.end ? from - p.end : 0;
            if (distance < bestDistance) {
                bestDistance = distance;
                best = p;
            }
        }
        return bestDistance <= TOLERANCE_NANOS ? best : null;
    }

    /**
     * Learns the management clock's offset: of the pairings of one notification with one collection, the one that
     * places the most notifications inside a collection; among equals, the one whose placed notifications' durations
     * fit their collections' best (the management clock's milliseconds against JVMTI's nanoseconds), then the later
     * collection. With a single notification (the first collection seen, its details read from
     * {@code getLastGcInfo()} once several collections may have passed) the durations decide.
     *
     * <p>Bounded, because it runs on the drain thread under the log's lock (which the JDK's notification thread waits
     * for): a drain thread that fell behind a program collecting thousands of times a second meets thousands of pauses
     * and notifications at once, and trying every pairing against every notification took minutes. So each
     * notification is placed by a binary search of the pauses by start; the latest {@value #PAIRED_PAUSES} pauses are
     * paired with every notification when there are at most {@value #FEW}, else with {@value #ANCHORS} spread over
     * them, each pairing then scored on {@value #SCORED} of them; and after a calibration that placed nothing the next
     * waits for new pauses or notifications (a failed one is not tried again for each notification).
     */
    private void calibrate(List<GcPause> pauses, List<GcDetails> arrived) {
        if (failedPauses >= 0 && pauses.size() <= failedPauses && arrived.size() <= failedArrived) {
            return; // nothing new since a calibration that placed nothing
        }
        List<GcDetails> usable = new ArrayList<>();
        for (GcDetails d : arrived) {
            if (!d.name.contains("Cycles")) {
                usable.add(d);
            }
        }
        GcPause[] byStart = pauses.toArray(new GcPause[0]);
        Arrays.sort(byStart, Comparator.comparingLong((GcPause p) -> p.start));
        // every notification when they are few (the pairing that places most of them, as before a backlog)
        boolean few = usable.size() <= FEW;
        List<GcDetails> anchors = few ? usable : spread(usable, ANCHORS);
        List<GcDetails> scored = few ? usable : spread(usable, SCORED);
        int bestScore = 0;
        long bestMisfit = Long.MAX_VALUE;
        long bestOffset = 0;
        for (int i = Math.max(0, pauses.size() - PAIRED_PAUSES); i < pauses.size(); i++) {
            GcPause p = pauses.get(i);
            for (GcDetails d : anchors) {
                long candidate = p.start - d.startMillis * 1_000_000L;
                int score = 0;
                long misfit = 0;
                for (GcDetails other : scored) {
                    GcPause q = containing(byStart, candidate + other.startMillis * 1_000_000L);
                    if (q != null) {
                        score++;
                        misfit += Math.abs((q.end - q.start) - other.durationMillis * 1_000_000L);
                    }
                }
                if (score > bestScore || score == bestScore && score > 0 && misfit <= bestMisfit) {
                    bestScore = score;
                    bestMisfit = misfit;
                    bestOffset = candidate;
                }
            }
        }
        offset = bestOffset;
        offsetKnown = bestScore > 0;
        failedPauses = offsetKnown ? -1 : pauses.size();
        failedArrived = arrived.size();
    }

    /** @return at most {@code n} of the list, evenly spread over it, the last among them */
    static <T> List<T> spread(List<T> all, int n) {
        if (all.size() <= n) {
            return all;
        }
        List<T> out = new ArrayList<>(n);
        for (int k = n - 1; k >= 0; k--) {
            out.add(all.get(all.size() - 1 - (int) ((long) k * (all.size() - 1) / (n - 1))));
        }
        return out;
    }

    /**
     * @param byStart the pauses by start
     * @return the pause nearest to {@code t} among those by start, if within {@link #TOLERANCE_NANOS}, or null
     */
    static GcPause containing(GcPause[] byStart, long t) {
        int lo = 0;
        int hi = byStart.length - 1;
        while (lo <= hi) { // the last pause that starts at or before t
            int mid = (lo + hi) >>> 1;
            if (byStart[mid].start <= t) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        GcPause best = null;
        long bestDistance = Long.MAX_VALUE;
        for (int i = Math.max(0, hi - 1); i <= Math.min(byStart.length - 1, hi + 1); i++) {
            GcPause p = byStart[i];
            long distance = t < p.start ? p.start - t : t > p.end ? t - p.end : 0;
            if (distance < bestDistance) {
                bestDistance = distance;
                best = p;
            }
        }
        return bestDistance <= TOLERANCE_NANOS ? best : null;
    }
}
