package io.memscope.agent.capture;

import io.memscope.recording.Recording.ProcessMemorySamples;

/**
 * Whether the resident check's latest figures are stale enough to ask for a pass before its interval: the resident
 * set changed by more than {@value #GROWTH_PERCENT}% and {@value #GROWTH_MIN_MIB} MiB since they were measured (grew
 * from its lowest since, or fell below its highest then), asked once per pass.
 *
 * <p>A pass measures at a moment between two fast samples, and where the resident set stood at that moment is not
 * read: while it grows fast (hundreds of MiB a second at a short run's start), the sample that first carries the
 * figures may already be near the peak, and growth measured from it would miss what grew between the pass and that
 * sample (figures from mid-growth standing for the peak). So the figures count as measured anywhere between the
 * extremes of the samples from the last one at or before the pass through the one that first carries them: the
 * lowest of those is where growth is measured from, the highest where a fall is. When the growth went on past the
 * pass, that first sample asks at once.
 *
 * <p>Not thread-safe: the process sampler's thread only. Allocates nothing after construction.
 */
final class ResidentStaleness {
    /** The resident set's change since the latest resident figures that asks for a pass: this much and more... */
    static final long GROWTH_PERCENT = 3;
    /** ...and this many MiB. */
    static final long GROWTH_MIN_MIB = 4;
    /** The recent samples kept: a pass is seldom older than a few sample intervals when its figures are first seen. */
    private static final int RECENT = 16;

    private final long[] recentNanos = new long[RECENT];
    private final long[] recentRss = new long[RECENT];
    /** Samples seen (the next one's index in the ring, modulo {@link #RECENT}). */
    private long seen;
    /** The time of the figures the latest sample carried ({@link Long#MIN_VALUE} none yet). */
    private long passNanos = Long.MIN_VALUE;
    /** The highest RSS the figures may have been measured at; the lowest since (a fall and a growth back count). */
    private long highRss = ProcessMemorySamples.UNKNOWN;
    private long lowRss = ProcessMemorySamples.UNKNOWN;
    private boolean asked;

    /**
     * One fast sample carrying resident figures.
     *
     * @param figuresNanos when the figures it carries were measured
     * @param sampleNanos  the sample's time
     * @param rss          the sample's resident set, below 0 when unknown
     * @return whether to ask for a pass now (at most once per pass)
     */
    boolean sample(long figuresNanos, long sampleNanos, long rss) {
        int slot = (int) (seen++ % RECENT);
        recentNanos[slot] = sampleNanos;
        recentRss[slot] = rss;
        if (figuresNanos != passNanos) {
            passNanos = figuresNanos;
            asked = false;
            long low = Long.MAX_VALUE;
            long high = ProcessMemorySamples.UNKNOWN;
            long kept = Math.min(seen, RECENT);
            for (long k = 0; k < kept; k++) { // newest first, back to the last sample at or before the pass
                int i = (int) ((seen - 1 - k) % RECENT);
                if (recentRss[i] >= 0) {
                    low = Math.min(low, recentRss[i]);
                    high = Math.max(high, recentRss[i]);
                }
                if (recentNanos[i] - figuresNanos <= 0) {
                    break;
                }
            }
            lowRss = low == Long.MAX_VALUE ? ProcessMemorySamples.UNKNOWN : low;
            highRss = high;
        } else if (rss >= 0 && (lowRss < 0 || rss < lowRss)) {
            lowRss = rss;
        }
        if (!asked && (grewMuch(lowRss, rss) || grewMuch(rss, highRss))) {
            asked = true;
            return true;
        }
        return false;
    }

    /** @return whether {@code rss} is more than GROWTH_PERCENT% and GROWTH_MIN_MIB MiB above {@code base} */
    static boolean grewMuch(long base, long rss) {
        if (base < 0 || rss < 0) {
            return false;
        }
        long growth = rss - base;
        return growth > GROWTH_MIN_MIB << 20 && growth > base / 100 * GROWTH_PERCENT;
    }
}
