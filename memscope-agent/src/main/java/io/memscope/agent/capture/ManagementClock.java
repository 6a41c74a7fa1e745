package io.memscope.agent.capture;

/**
 * The JVM's management clock (the milliseconds of {@code GcInfo.getStartTime()}, counted from a moment of the JVM's
 * start-up) placed on {@link System#nanoTime()}'s clock, learned from collections known to be the same: a pause the
 * JVM reported through JVMTI (start and end in ns) and the bean collection counted inside it (start and duration in
 * whole ms, truncated).
 *
 * <p>With {@code C} the offset ({@code nanoTime = managementNanos + C}), a collection whose management interval
 * lies inside its pause gives {@code pauseStart - (startMs + 1) ms < C <= pauseEnd - (startMs + durationMs) ms}:
 * each known pair narrows the interval {@code [lower, upper]}, which holds the true offset as long as every pair is
 * right (a pair whose management interval cannot fit in its pause is ignored). A pause's JVMTI interval is usually longer than its management interval (the JVM starts its management
 * figures after the pause's set-up, tens of milliseconds on a loaded machine for a JVM's first collection): a single
 * pair is a wide interval, which is why the offset is never taken from one pair's start alone. An interval that
 * becomes empty (a pair that was wrong) starts again from the latest pair.
 */
final class ManagementClock {
    private static final long MS = 1_000_000L;
    private long lower = Long.MIN_VALUE;
    private long upper = Long.MAX_VALUE;
    private int pairs;
    private int resets;
    private int inconsistent;

    /** A pause and the bean collection known to be inside it. */
    void pair(long pauseStart, long pauseEnd, long startMillis, long durationMillis) {
        long lo = pauseStart - (startMillis + 1) * MS;
        long hi = pauseEnd - (startMillis + durationMillis) * MS;
        if (hi < lo) {
            inconsistent++; // the management interval does not fit in the pause: not the same collection
            return;
        }
        long newLower = Math.max(lower, lo);
        long newUpper = Math.min(upper, hi);
        if (newLower > newUpper) {
            resets++;
            newLower = lo;
            newUpper = hi;
        }
        lower = newLower;
        upper = newUpper;
        pairs++;
    }

    /** @return whether at least one pair was seen */
    boolean known() {
        return pairs > 0;
    }

    /** @return the earliest {@code nanoTime} a management time of {@code millis} can be (its ms started then) */
    long earliest(long millis) {
        return lower + millis * MS;
    }

    /** @return the latest {@code nanoTime} the end of the management millisecond {@code millis} can be */
    long latest(long millis) {
        return upper + (millis + 1) * MS;
    }

    /** @return the middle of the offset's interval: the best single guess */
    long offset() {
        return lower + (upper - lower) / 2;
    }

    /** @return the width of the offset's interval, ns */
    long uncertainty() {
        return known() ? upper - lower : Long.MAX_VALUE;
    }

    int pairs() {
        return pairs;
    }

    int resets() {
        return resets;
    }

    /** @return pairs whose management interval did not fit in their pause (ignored) */
    int inconsistent() {
        return inconsistent;
    }
}
