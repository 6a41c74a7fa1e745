package io.memscope.analysis;

import java.util.ArrayList;
import java.util.List;

/**
 * The rules that classify a site in a report (their statements and precision: {@link ReportBuilder}'s class comment):
 * the leak rule's reference collections and its verdict on a heap site's growth, the native leak rule, temporaries,
 * and the check of the estimates against the JVM's heap figures. Held and unconfirmed themselves are
 * {@link HeldLedger}'s and {@link GcTimeline}'s. One per report: it knows the window's collections.
 */
final class ReportRules {
    private final GcTimeline gcs;
    private final int windowFirstGc;
    /** The last collection of the window that confirmed a snapshot, -1 when none. */
    private final int endWholeGc;
    private final HeldLedger heldSites;
    private final long runStart;

    ReportRules(GcTimeline gcs, int windowFirstGc, int endWholeGc, HeldLedger heldSites, long runStart) {
        this.gcs = gcs;
        this.windowFirstGc = windowFirstGc;
        this.endWholeGc = endWholeGc;
        this.heldSites = heldSites;
        this.runStart = runStart;
    }

    /**
     * Chooses the leak rule's reference collections of a heap site (class comment of {@link ReportBuilder}): the last
     * whole-heap collections at or before a third and two thirds of the way from its first allocation to the
     * window's last whole-heap collection, after the first allocation, distinct and before that last one; and has the
     * held ledger mark them. Only collections that confirmed a snapshot, compared at the snapshot each confirmed
     * ({@link GcTimeline}, overlapping snapshots): what another one holds is an older snapshot's survivors. Called once
     * per site, when the replay first meets it (before those collections).
     */
    void chooseReferences(SiteTally a) {
        if (endWholeGc < 0) {
            return;
        }
        long end = gcs.confirmedSnapshot(endWholeGc);
        long span = end - a.firstAlloc;
        if (span <= 0) {
            return;
        }
        // the whole-heap collections that judged some of the site (snapshot after its first allocation), before
        // the last one; compared by their snapshots: held at one is what was reachable then
        List<Integer> after = new ArrayList<>();
        for (int k = Math.max(0, windowFirstGc); k < endWholeGc; k++) {
            long snapshot = gcs.confirmedSnapshot(k);
            if (gcs.confirms(k) >= 0 && snapshot > a.firstAlloc && snapshot < end) {
                after.add(k);
            }
        }
        if (after.size() < 2) {
            return;
        }
        int first = -1;
        int second = -1;
        for (int k : after) {
            if (gcs.confirmedSnapshot(k) <= a.firstAlloc + span / 3) {
                first = k;
            }
        }
        if (first < 0) {
            first = after.get(0); // none in the first third: the first one there is
        }
        for (int k : after) {
            if (k > first && gcs.confirmedSnapshot(k) > gcs.confirmedSnapshot(first)
                    && gcs.confirmedSnapshot(k) <= a.firstAlloc + 2 * (span / 3)) {
                second = k;
            }
        }
        if (second < 0) { // none in the second third after the first: the one halfway to the end
            int i = after.indexOf(first);
            second = after.get(Math.min(after.size() - 1, i + Math.max(1, (after.size() - i) / 2)));
        }
        if (second <= first || gcs.confirmedSnapshot(second) <= gcs.confirmedSnapshot(first)) {
            return;
        }
        a.firstRef = first;
        a.secondRef = second;
        heldSites.mark(a.key, 0, first);
        heldSites.mark(a.key, 1, second);
    }

    /**
     * @return a heap site's held bytes at the leak rule's reference collections and whether it grew significantly
     *         at both steps, or null when it has no reference collections
     */
    SiteProfile.Growth growth(SiteTally a) {
        if (a.firstRef < 0 || endWholeGc < 0) {
            return null;
        }
        double b1 = Math.max(0, heldSites.markBytes(a.key, 0));
        double b2 = Math.max(0, heldSites.markBytes(a.key, 1));
        double b3 = Math.max(0, heldSites.endMeasureBytes(a.key));
        // A step's difference is what was added minus what was removed, both sampled: its variance is the sum of
        // their variances, V(added) + V(removed) = (V(after) - V(before)) + 2 V(removed)
        double s12 = stepVariance(heldSites.markVariance(a.key, 0), heldSites.markVariance(a.key, 1),
                heldSites.markFreedVariance(a.key, 0), heldSites.markFreedVariance(a.key, 1));
        double s23 = stepVariance(heldSites.markVariance(a.key, 1), heldSites.endMeasureVariance(a.key),
                heldSites.markFreedVariance(a.key, 1), heldSites.endFreedVariance(a.key));
        boolean significant = b2 - b1 > ReportBuilder.LEAK_STEP_SIGMAS * Math.sqrt(s12)
                && b3 - b2 > ReportBuilder.LEAK_STEP_SIGMAS * Math.sqrt(s23);
        return new SiteProfile.Growth((gcs.confirmedSnapshot(a.firstRef) - runStart) / 1e6, Math.round(b1),
                (gcs.confirmedSnapshot(a.secondRef) - runStart) / 1e6, Math.round(b2),
                (gcs.confirmedSnapshot(endWholeGc) - runStart) / 1e6, Math.round(b3),
                heldSites.endMeasureSamples(a.key), significant);
    }

    /** @return the variance of the difference of two held estimates of a site (see {@link #growth}) */
    private static double stepVariance(double before, double after, double freedBefore, double freedAfter) {
        return Math.max(0, after - before + 2 * (freedAfter - freedBefore));
    }

    /** @return the growth the report shows for a heap site: from its first reference collection to the end */
    static long growthBytes(SiteProfile.Growth g) {
        return g == null ? 0 : Math.max(0, g.endBytes() - g.firstBytes());
    }

    /**
     * @return whether a heap site is a leak suspect: grown significantly at both steps, holding at least
     *         {@value ReportBuilder#LEAK_MIN_SAMPLES} samples at the end, grown by at least a quarter of that
     */
    static boolean leakSuspect(SiteProfile.Growth g) {
        long growth = growthBytes(g);
        return g != null && g.significant() && g.endSamples() >= ReportBuilder.LEAK_MIN_SAMPLES
                && growth * 4 >= g.endBytes();
    }

    /**
     * @return whether a heap site may be a temporary: at least 1 MiB allocated, at most 5% of it held at the end, at
     *         least half of its samples collected (the share of all allocated bytes is {@link #tooSmallATemporary})
     */
    static boolean temporary(SiteTally a, long allocatedBytes, long heldBytes) {
        return allocatedBytes >= (1 << 20) && heldBytes * 20 <= allocatedBytes && a.samples > 0
                && a.deadSamples * 2 >= a.samples;
    }

    /** @return whether a site allocated less than 1% of all allocated bytes: not a temporary however it churns */
    static boolean tooSmallATemporary(SiteProfile p, long allAllocatedBytes) {
        return p.allocatedBytes() * 100 < allAllocatedBytes;
    }

    /** The least growth of a native leak suspect (exact native memory: direct buffers, Unsafe, arenas), in bytes. */
    static final long NATIVE_LEAK_MIN_GROWTH = 64 * 1024;

    /** @return a native site's growth: outstanding now less outstanding at the midpoint of its allocation window */
    static long nativeGrowth(SiteTally a) {
        return Math.max(0, a.nOutstanding - (a.nMidTaken ? a.nAtMid : a.nOutstanding));
    }

    /**
     * A native leak is judged like a heap leak: outstanding at the end, and grown over the second half of the site's
     * allocation window, which covers at least 5% of the report's or half a second (a pool filled once, or buffers
     * taken at start-up and reused, are outstanding but not leaks; the floor keeps a leak of a few requests a second
     * found in a long run, or in one a loaded machine made long). And it must have grown by at least
     * {@value #NATIVE_LEAK_MIN_GROWTH} bytes: a library's few buffers kept a little longer (an HTTP client's 464 B,
     * "+240 B over its second half") are nothing a user can act on.
     *
     * @return whether a native site is a leak suspect
     */
    static boolean nativeLeakSuspect(SiteTally a, long windowNanos) {
        long growth = nativeGrowth(a);
        return a.nOutstanding > 0 && growth >= NATIVE_LEAK_MIN_GROWTH && growth * 4 >= a.nOutstanding
                && a.firstAlloc != Long.MAX_VALUE
                && a.lastAlloc - a.firstAlloc >= Math.min(windowNanos / 20, 500_000_000L);
    }

    /**
     * @return a malloc site's growth: its settled outstanding bytes at the end (allocated before the window's youngest
     *         part) less its outstanding at the midpoint of its allocation window, never negative
     */
    static long mallocGrowth(SiteTally a) {
        return Math.max(0, a.nSettledBytes - (a.nMidTaken ? a.nAtMid : a.nSettledBytes));
    }

    /**
     * The native leak rule on a malloc site's estimates: outstanding at the end and grown over the second half of
     * its allocation window, as {@link #nativeLeakSuspect}, with two differences that sampling asks for. The blocks
     * allocated in the window's youngest part ({@value NativeLedger#YOUNGEST_PERCENT}%) do not count as
     * outstanding: a site that mallocs and frees in a loop always has a few blocks in flight at the end, which are
     * not a leak. And the growth must exceed twice its standard error ({@link SamplingNoise#variance}, with the
     * malloc interval): a handful of samples still outstanding by chance is no growth.
     *
     * @param interval the malloc sampling interval, bytes
     * @return whether a malloc site is a leak suspect
     */
    static boolean mallocLeakSuspect(SiteTally a, long windowNanos, double interval) {
        long growth = mallocGrowth(a);
        return a.nSettledBytes > 0 && growth > 0 && growth * 4 >= a.nSettledBytes
                && growth > 2 * Math.sqrt(SamplingNoise.variance(growth, interval))
                && a.firstAlloc != Long.MAX_VALUE
                && a.lastAlloc - a.firstAlloc >= Math.min(windowNanos / 20, 500_000_000L);
    }

    /**
     * @return whether an estimate exceeds the JVM's heap in use by more than
     *         {@value ReportBuilder#HEAP_CHECK_SIGMAS} standard errors: an inconsistency
     */
    static boolean exceedsHeap(double estimate, double standardError, long heapUsed) {
        double excess = estimate - heapUsed;
        return excess > ReportBuilder.HEAP_CHECK_SIGMAS * standardError && excess > 0;
    }
}
