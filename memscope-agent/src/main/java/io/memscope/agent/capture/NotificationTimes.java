package io.memscope.agent.capture;

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

    /** @return the collection (not yet written) whose time contains the predicted start, or null */
    private static GcPause containing(List<GcPause> pauses, long predicted) {
        return nearest(pauses, predicted, predicted);
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
     */
    private void calibrate(List<GcPause> pauses, List<GcDetails> arrived) {
        int bestScore = 0;
        long bestMisfit = Long.MAX_VALUE;
        long bestOffset = 0;
        for (GcPause p : pauses) {
            for (GcDetails d : arrived) {
                if (d.name.contains("Cycles")) {
                    continue;
                }
                long candidate = p.start - d.startMillis * 1_000_000L;
                int score = 0;
                long misfit = 0;
                for (GcDetails other : arrived) {
                    if (other.name.contains("Cycles")) {
                        continue;
                    }
                    GcPause q = containing(pauses, candidate + other.startMillis * 1_000_000L);
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
    }
}
