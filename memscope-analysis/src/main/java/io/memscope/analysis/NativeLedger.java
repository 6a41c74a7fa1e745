package io.memscope.analysis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Native memory during a report's replay ({@link ReportReplay}): the blocks outstanding (by address), the totals of
 * the window, the peak of outstanding bytes and each site's and stack's figures at it, and each site's outstanding
 * bytes at the midpoint of its allocation window (the native leak rule's, {@link ReportRules#nativeGrowth}).
 *
 * <p><b>Malloc samples.</b> The events of a {@code native:malloc} site are samples taken by bytes with an interval
 * {@code m} (metadata {@code malloc.intervalBytes}): a block of {@code s} bytes was sampled with a probability
 * {@code p} that {@link MallocSampling} gives ({@code 1 - exp(-s/m)} for memscope's samples, as heap samples are)
 * and stands for {@code s/p} bytes (rounded to a byte) and {@code 1/p} blocks; its free takes away that same weight.
 * Every figure of such a site (allocated, outstanding, at the peak) is that estimate, its precision from its sample count
 * ({@link SamplingNoise}). Other native sites' figures are exact. The malloc sites' outstanding bytes are also kept
 * at the process's RSS peak when the recording has process samples ({@link #rssPeakNanos}), and at the end split by
 * age: the blocks allocated before the window's youngest part ({@value #YOUNGEST_PERCENT}% of it) are the ones the
 * malloc leak rule counts ({@link ReportRules#mallocLeakSuspect}).
 *
 * <p>Memory: one entry per outstanding block.
 */
final class NativeLedger {
    /** The youngest part of the window, per cent: blocks allocated in it are too young to be called leaked. */
    static final int YOUNGEST_PERCENT = 10;

    private final long from;
    private final long to;
    private final TimelineBuckets timeline;
    private final MallocSampling malloc;
    /** When the process's RSS peaked (its sample's time), or {@link Long#MAX_VALUE} without process samples. */
    private final long rssPeakNanos;
    private final List<SiteTally> sites;
    private final Map<Long, Block> blocks = new HashMap<>();
    long allocated;
    double allocations;
    long freed;
    long outstanding;
    double outstandingBlocks;
    /** The peak of outstanding bytes in the window (-1 before the window). */
    long peak = -1;
    long peakTime;
    /** Incremented at each new peak: a site or stack whose epoch is behind keeps its figures at the peak. */
    int peakEpoch;
    // malloc samples: allocated in the window (samples, weighed bytes), outstanding now
    long mallocSamples;
    long mallocAllocated;
    long mallocOutstanding;
    long mallocLiveSamples;
    /** Malloc outstanding at the RSS peak (valid once {@link #rssTaken}). */
    long mallocAtRssPeak;
    boolean rssTaken;

    /**
     * @param malloc         how malloc was sampled
     * @param rssPeakNanos   when the process's RSS peaked, {@link Long#MAX_VALUE} when unknown
     * @param sites          the replay's sites (the ledger reads them at the RSS peak)
     */
    NativeLedger(long from, long to, TimelineBuckets timeline, MallocSampling malloc, long rssPeakNanos,
                 List<SiteTally> sites) {
        this.from = from;
        this.to = to;
        this.timeline = timeline;
        this.malloc = malloc;
        this.rssPeakNanos = rssPeakNanos;
        this.sites = sites;
    }

    /** One outstanding block: its weight in bytes and blocks (exact: its size and 1), when it was allocated. */
    private record Block(long bytes, double blocks, long time, SiteTally site, StackTally stack) {
    }

    /** @return blocks outstanding now (malloc sites: estimated), rounded */
    long outstandingBlocks() {
        return Math.round(outstandingBlocks);
    }

    /** The replay enters the window: what is outstanding now is where the window's figures start. */
    void enterWindow(List<SiteTally> sites) {
        timeline.nativeAtFrom = outstanding;
        for (SiteTally a : sites) {
            a.nPeak = a.nOutstanding;
        }
        if (outstanding > 0) {
            newPeak(from);
        }
    }

    /** A block allocated (or reallocated: the old one at the same address is released) at {@code t}. */
    void allocate(long t, long address, long size, SiteTally site, StackTally stack, long stackId) {
        rssPeakBefore(t);
        long bytes = size;
        double count = 1;
        if (site.isMalloc) {
            double p = malloc.probability(size);
            bytes = Math.round(size / p);
            count = 1 / p;
        }
        Block old = blocks.put(address, new Block(bytes, count, t, site, stack));
        if (old != null) {
            release(old, t, false);
        }
        snapshot(site, stack);
        midpoint(site, t);
        outstanding += bytes;
        outstandingBlocks += count;
        site.nOutstanding += bytes;
        site.nBlocks += count;
        stack.nOutstanding += bytes;
        stack.nBlocks += count;
        if (site.isMalloc) {
            site.nLiveSamples++;
            mallocOutstanding += bytes;
            mallocLiveSamples++;
        }
        if (site.stackId == 0) {
            site.stackId = stackId;
        }
        if (t >= from) {
            allocated += bytes;
            allocations += count;
            site.nAllocated += bytes;
            site.nAllocations += count;
            stack.allocBytes += bytes;
            stack.allocCount += count;
            stack.addToBucket(timeline.bucketOf(t), bytes);
            site.nPeak = Math.max(site.nPeak, site.nOutstanding);
            if (site.isMalloc) {
                site.nSamples++;
                mallocSamples++;
                mallocAllocated += bytes;
            }
            if (outstanding > peak) {
                newPeak(t);
            }
        }
        atTime(t);
    }

    /** The block at {@code address} freed at {@code t} (unknown addresses are ignored). */
    void free(long t, long address) {
        rssPeakBefore(t);
        Block old = blocks.remove(address);
        if (old != null) {
            release(old, t, true);
        }
        atTime(t);
    }

    private void atTime(long t) {
        if (t >= from) {
            timeline.nativeAt(t, outstanding);
        }
    }

    private void newPeak(long t) {
        peak = outstanding;
        peakTime = t;
        peakEpoch++;
    }

    /** Before the first change after the RSS peak: the malloc sites' figures then. */
    private void rssPeakBefore(long t) {
        if (!rssTaken && t > rssPeakNanos) {
            takeRssPeak();
        }
    }

    private void takeRssPeak() {
        rssTaken = true;
        mallocAtRssPeak = mallocOutstanding;
        for (SiteTally a : sites) {
            if (a.isMalloc) {
                a.nAtRssPeakBytes = a.nOutstanding;
                a.nAtRssPeakBlocks = a.nBlocks;
                a.nAtRssPeakSamples = a.nLiveSamples;
            }
        }
    }

    /**
     * Before changing a native site's outstanding figure at {@code t}: the first change after the midpoint of the
     * site's allocation window keeps the figure it had there (the native leak rule's "growing").
     */
    private static void midpoint(SiteTally a, long t) {
        if (!a.nMidTaken && a.firstAlloc != Long.MAX_VALUE && t > a.firstAlloc + (a.lastAlloc - a.firstAlloc) / 2) {
            a.nAtMid = a.nOutstanding;
            a.nMidTaken = true;
        }
    }

    /** Before changing a site's or stack's outstanding figure: keep its value at the current peak. */
    private void snapshot(SiteTally a, StackTally s) {
        if (a.nEpoch != peakEpoch) {
            a.nAtPeakBytes = a.nOutstanding;
            a.nAtPeakBlocks = a.nBlocks;
            a.nAtPeakSamples = a.nLiveSamples;
            a.nEpoch = peakEpoch;
        }
        if (s != null && s.nEpoch != peakEpoch) {
            s.nAtPeakBytes = s.nOutstanding;
            s.nAtPeakBlocks = s.nBlocks;
            s.nEpoch = peakEpoch;
        }
    }

    private void release(Block old, long t, boolean isFree) {
        SiteTally site = old.site();
        snapshot(site, old.stack());
        midpoint(site, t);
        outstanding -= old.bytes();
        outstandingBlocks -= old.blocks();
        site.nOutstanding -= old.bytes();
        site.nBlocks -= old.blocks();
        old.stack().nOutstanding -= old.bytes();
        old.stack().nBlocks -= old.blocks();
        if (site.isMalloc) {
            site.nLiveSamples--;
            mallocOutstanding -= old.bytes();
            mallocLiveSamples--;
        }
        if (isFree && t >= from) {
            freed += old.bytes();
        }
    }

    /**
     * The replay has ended: sites and stacks unchanged since the peak hold their current values at it, the RSS
     * peak's figures are taken if no event came after it, and each malloc site's settled part is added up.
     */
    void finish(List<SiteTally> sites, List<StackTally> stacks) {
        for (SiteTally a : sites) {
            snapshot(a, null);
        }
        for (StackTally s : stacks) {
            if (s.nEpoch != peakEpoch) {
                s.nAtPeakBytes = s.nOutstanding;
                s.nAtPeakBlocks = s.nBlocks;
                s.nEpoch = peakEpoch;
            }
        }
        if (!rssTaken) {
            takeRssPeak();
        }
        long settledBefore = to - (to - from) / 100 * YOUNGEST_PERCENT;
        for (Block b : blocks.values()) {
            if (b.site().isMalloc && b.time() <= settledBefore) {
                b.site().nSettledBytes += b.bytes();
                b.site().nSettledSamples++;
            }
        }
    }
}
