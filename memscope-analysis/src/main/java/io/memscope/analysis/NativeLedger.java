package io.memscope.analysis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Native memory during a report's replay ({@link ReportReplay}): the blocks outstanding (by address), the totals of
 * the window, the peak of outstanding bytes and each site's and stack's figures at it, and each site's outstanding
 * bytes at the midpoint of its allocation window (the native leak rule's, {@link ReportRules#nativeGrowth}).
 * Memory: one entry per outstanding block.
 */
final class NativeLedger {
    private final long from;
    private final TimelineBuckets timeline;
    private final Map<Long, Block> blocks = new HashMap<>();
    long allocated;
    long allocations;
    long freed;
    long outstanding;
    /** The peak of outstanding bytes in the window (-1 before the window). */
    long peak = -1;
    long peakTime;
    /** Incremented at each new peak: a site or stack whose epoch is behind keeps its figures at the peak. */
    int peakEpoch;

    NativeLedger(long from, TimelineBuckets timeline) {
        this.from = from;
        this.timeline = timeline;
    }

    /** One outstanding block. */
    private record Block(long size, SiteTally site, StackTally stack) {
    }

    /** @return blocks outstanding now */
    int outstandingBlocks() {
        return blocks.size();
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
        Block old = blocks.put(address, new Block(size, site, stack));
        if (old != null) {
            release(old, t, false);
        }
        snapshot(site, stack);
        midpoint(site, t);
        outstanding += size;
        site.nOutstanding += size;
        site.nBlocks++;
        stack.nOutstanding += size;
        stack.nBlocks++;
        if (site.stackId == 0) {
            site.stackId = stackId;
        }
        if (t >= from) {
            allocated += size;
            allocations++;
            site.nAllocated += size;
            site.nAllocations++;
            stack.allocBytes += size;
            stack.allocCount++;
            stack.addToBucket(timeline.bucketOf(t), size);
            site.nPeak = Math.max(site.nPeak, site.nOutstanding);
            if (outstanding > peak) {
                newPeak(t);
            }
        }
        atTime(t);
    }

    /** The block at {@code address} freed at {@code t} (unknown addresses are ignored). */
    void free(long t, long address) {
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
            a.nEpoch = peakEpoch;
        }
        if (s != null && s.nEpoch != peakEpoch) {
            s.nAtPeakBytes = s.nOutstanding;
            s.nAtPeakBlocks = s.nBlocks;
            s.nEpoch = peakEpoch;
        }
    }

    private void release(Block old, long t, boolean isFree) {
        snapshot(old.site(), old.stack());
        midpoint(old.site(), t);
        outstanding -= old.size();
        old.site().nOutstanding -= old.size();
        old.site().nBlocks--;
        old.stack().nOutstanding -= old.size();
        old.stack().nBlocks--;
        if (isFree && t >= from) {
            freed += old.size();
        }
    }

    /** The replay has ended: sites and stacks unchanged since the peak hold their current values at it. */
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
    }
}
