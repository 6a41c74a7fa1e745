package io.memscope.analysis;

import io.memscope.recording.Site;
import java.util.ArrayList;
import java.util.List;

/**
 * One site's figures during a report's replay ({@link ReportReplay}): heap samples and their weights, native bytes
 * outstanding, its stacks, and what the leak rules need ({@link ReportRules}). Fields, not accessors: the replay
 * updates them for every event.
 */
final class SiteTally {
    final int key;
    final Site site;
    final boolean isNative;
    /** A {@code native:malloc} site: its events are samples, weighed as heap samples are ({@link NativeLedger}). */
    final boolean isMalloc;
    String type;
    long stackId;
    long firstAlloc = Long.MAX_VALUE;
    long lastAlloc = Long.MIN_VALUE;
    /** The site's allocation window is known (its leak references are chosen from it). */
    boolean windowKnown;
    // heap: samples and estimates allocated in the window, set when the replay ends (ReportReplay sums them per key)
    long samples;
    long deadSamples;
    double estBytes;
    double estCount;
    /**
     * Ages at collection (allocation to the collection that freed it) of the samples collected in the window: the
     * held half's, set when the replay ends ({@link HeldReplay}, which allocates them on its own thread so that its
     * writes stay off the cache lines of the tallies the allocation half writes).
     */
    LifetimeMedian lifetimes = new LifetimeMedian();
    /** Of those, the samples freed by the first collection after their allocation. */
    long freedByFirstCollection;
    final List<StackTally> stacks = new ArrayList<>(2);
    /**
     * {@link #stacks} by stack id, open addressing, at most half full: an event finds its stack among its site's
     * few, in memory of the site's own, rather than in an index of all stacks.
     */
    private StackTally[] byStack = new StackTally[4];

    /** @return the site's tally of {@code stackId}, or null */
    StackTally stack(long stackId) {
        StackTally[] t = byStack;
        int m = t.length - 1;
        int i = slot(stackId) & m;
        StackTally s;
        while ((s = t[i]) != null) {
            if (s.stackId == stackId) {
                return s;
            }
            i = (i + 1) & m;
        }
        return null;
    }

    /** Adds a new stack of the site (to {@link #stacks} and the lookup). */
    void addStack(StackTally s) {
        stacks.add(s);
        if (stacks.size() * 2 > byStack.length) {
            StackTally[] old = byStack;
            byStack = new StackTally[old.length * 2];
            for (StackTally o : old) {
                if (o != null) {
                    put(o);
                }
            }
        } else {
            put(s);
        }
    }

    private void put(StackTally s) {
        int m = byStack.length - 1;
        int i = slot(s.stackId) & m;
        while (byStack[i] != null) {
            i = (i + 1) & m;
        }
        byStack[i] = s;
    }

    private static int slot(long stackId) {
        long h = stackId * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
    // native: exact bytes and blocks, or for a malloc site estimates (each sample weighs size/p bytes, 1/p blocks)
    long nAllocated;
    double nAllocations;
    long nOutstanding;
    double nBlocks;
    long nPeak;
    int nEpoch = -1;
    long nAtPeakBytes;
    double nAtPeakBlocks;
    // malloc samples: allocated in the window, outstanding now, at the native peak
    long nSamples;
    long nLiveSamples;
    long nAtPeakSamples;
    /** Outstanding at the RSS peak (or the native peak without process samples), taken by the ledger. */
    long nAtRssPeakBytes;
    double nAtRssPeakBlocks;
    long nAtRssPeakSamples;
    /** At the end: outstanding bytes allocated before the window's youngest part ({@link ReportRules#mallocLeakSuspect}). */
    long nSettledBytes;
    long nSettledSamples;
    /** The whole-heap collections the leak rule compares (-1: none): {@link ReportRules#chooseReferences}. */
    int firstRef = -1;
    int secondRef = -1;
    /** Outstanding bytes at the midpoint of the site's allocation window (valid once {@link #nMidTaken}). */
    long nAtMid;
    boolean nMidTaken;

    SiteTally(int key, Site site, String type) {
        this.key = key;
        this.site = site;
        this.isNative = site.isNative();
        this.isMalloc = Site.NATIVE_MALLOC.equals(site.typeName());
        this.type = type;
    }
}
