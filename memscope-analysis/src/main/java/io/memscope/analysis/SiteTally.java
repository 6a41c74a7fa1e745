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
    String type;
    long stackId;
    long firstAlloc = Long.MAX_VALUE;
    long lastAlloc = Long.MIN_VALUE;
    // heap
    long samples;
    long deadSamples;
    double estBytes;
    double estCount;
    /** Ages at collection (allocation to the collection that freed it) of the samples collected in the window. */
    final LifetimeMedian lifetimes = new LifetimeMedian();
    /** Of those, the samples freed by the first collection after their allocation. */
    long freedByFirstCollection;
    final List<StackTally> stacks = new ArrayList<>(2);
    /**
     * The site's stacks seen last, by a hash of their stack id (direct-mapped): most events find their stack
     * here, in a small array of their site, without probing the index of all stacks.
     */
    final StackTally[] recentStacks = new StackTally[8];
    // native
    long nAllocated;
    long nAllocations;
    long nOutstanding;
    long nBlocks;
    long nPeak;
    int nEpoch = -1;
    long nAtPeakBytes;
    long nAtPeakBlocks;
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
        this.type = type;
    }
}
