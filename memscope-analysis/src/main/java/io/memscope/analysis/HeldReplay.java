package io.memscope.analysis;

import io.memscope.recording.GcRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The held half of a report's replay ({@link ReportReplay}): the live heap samples ({@link SampleTable}), the held
 * ledgers of sites and stacks ({@link HeldLedger}), the collections crossed and measured ({@link GcTimeline}), the
 * timeline's held line and the estimates checked against the JVM's heap figures. The allocation half (site and stack
 * tallies, the timeline's allocation, native memory) stays on the replaying thread and hands this half, in time order,
 * the heap events it must see, each with its site and stack already resolved to keys ({@link HeldHandOff}: on a
 * thread of its own, or inline). The sites and stacks a batch's events refer to are registered (made keys of the
 * ledgers, their leak references chosen) before its first event: a key with no sample has every figure 0 whenever it
 * is registered, so the figures are those of the one-thread replay.
 *
 * <p><b>Crossings.</b> A collection's boundary is crossed at the first event after it, whatever the event: so the
 * allocation half hands over, besides the heap events, a {@link HeldHandOff#TICK} for any other event that crosses a
 * boundary or ends the replay, and this half crosses exactly where the one-thread replay did.
 *
 * <p>Memory: per site and stack key, per live sample; never per event.
 */
final class HeldReplay {
    private final RecordedRun run;
    private final GcTimeline gcs;
    private final HeldLedger heldSites;
    private final HeldLedger heldStacks;
    private final ReportRules rules;
    private final TimelineBuckets timeline;
    private final long from;
    private final long to;
    private final int windowFirstGc;
    private final int endGc;
    private final SampleTable samples = new SampleTable();
    /** The sites and stacks registered, by key. */
    private final List<SiteTally> sites = new ArrayList<>();
    private int[] siteOfStack = new int[1024];
    private int stackCount;
    /**
     * Per site key, side by side ({@code key * 2}, {@code key * 2 + 1}): samples collected in the window, and of those
     * freed by the first collection after them.
     */
    private long[] deaths = new long[256 * 2];
    /**
     * Per site key: its lifetimes, and whether its type is still to learn (none, or "?"). This half reads them per
     * event here rather than in the site's tally, whose fields the allocation half writes per event: a read of the
     * tally's cache line from this thread would take it from the other core's cache, and back, at every event. For
     * the same reason the lifetimes are allocated here (on this thread, apart from the tallies) and handed to the
     * sites at the end ({@link #end}).
     */
    private LifetimeMedian[] lifetimes = new LifetimeMedian[256];
    private boolean[] typeWanted = new boolean[256];

    /** The ledgers' operations and the sites' lifetimes, deferred in order and applied together. */
    private final HeldOperations deferred;

    // replay position: the next boundary of the timeline (positions and snapshots), boundaries crossed
    private int nextBoundary;
    private int epoch;
    /**
     * The boundaries of the last two points crossed (-1: none): a sample allocated at epoch {@code e} has had at most
     * one collection since when {@code e > pointBeforeLast} (the points crossed from boundary {@code e} on).
     */
    private int lastPoint = -1;
    private int pointBeforeLast = -1;
    /** The last point crossed, not measured yet (-1: none). */
    private int toMeasure = -1;
    private int measured = -1;
    private boolean done;
    /**
     * The heap figures of the last collection that had some: a collection the agent has no heap figures for
     * (all 0: a pause without a GC notification, recording.md 5.1) carries them on.
     */
    private long knownHeapUsed;
    private long knownHeapCommitted;
    private double heapWorstSigmas;

    // results, read by the owner once finished
    /** The peak so far: the window's whole-heap collection where the most was held ({@link #isNewPeak}), -1: none. */
    int peakGc = -1;
    private long peakHeldRounded;
    /** The peak so far is contradicted by the JVM's heap figure (its held above the heap in use: not really held). */
    private boolean peakContradicted;
    int heapChecked;
    int heapExceeded;
    int heldExceeded;
    int heapWorstGc = -1;
    long heapWorstEstimate;
    long heapWorstSd;

    HeldReplay(ReportReplay owner) {
        this.run = owner.run;
        this.gcs = owner.gcs;
        this.heldSites = owner.heldSites;
        this.heldStacks = owner.heldStacks;
        this.rules = owner.rules;
        this.timeline = owner.timeline;
        this.from = owner.from;
        this.to = owner.to;
        this.windowFirstGc = owner.windowFirstGc;
        this.endGc = owner.endGc;
        heldStacks.figuresOfStacksOnly(); // a report reads of stacks only their figures at the end and at the peak
        this.deferred = new HeldOperations(heldSites, heldStacks);
    }

    /** A site of the allocation half: a key of the ledgers, its leak references chosen. */
    void register(SiteTally a) {
        if (a.key >= lifetimes.length) {
            int n = Math.max(a.key + 1, lifetimes.length * 2);
            deaths = Arrays.copyOf(deaths, n * 2);
            lifetimes = Arrays.copyOf(lifetimes, n);
            typeWanted = Arrays.copyOf(typeWanted, n);
        }
        lifetimes[a.key] = new LifetimeMedian();
        typeWanted[a.key] = typeWanted(a);
        if (!a.isNative && a.windowKnown) {
            rules.chooseReferences(a);
        }
        heldSites.ensure(a.key);
        sites.add(a);
    }

    /** A stack of the allocation half: a key of the stacks' ledger. */
    void register(StackTally s) {
        int key = s.key;
        if (key >= siteOfStack.length) {
            siteOfStack = Arrays.copyOf(siteOfStack, Math.max(key + 1, siteOfStack.length * 2));
        }
        siteOfStack[key] = s.site.key;
        stackCount = Math.max(stackCount, key + 1);
        heldStacks.ensure(key);
    }

    /** Registers the batch's new sites and stacks, then replays its events. */
    void apply(HeldHandOff.Batch b) {
        for (SiteTally a : b.sites) {
            register(a);
        }
        for (StackTally s : b.stacks) {
            register(s);
        }
        for (int i = 0; i < b.size; i++) {
            if (done) {
                return;
            }
            long t = b.time[i];
            if (gcs.synthetic() && t > to) {
                done = true; // no collection: held at the end means not yet collected at the window's end
                return;
            }
            if (nextBoundary < gcs.boundaries() && gcs.boundaryTime(nextBoundary) < t) {
                crossBefore(t);
                if (done) {
                    return;
                }
            }
            switch (b.kind[i]) {
                case HeldHandOff.ALLOC ->
                        applyAllocated(b.address[i], b.size_[i], b.typeName[i], b.p[i], b.site[i], b.stack[i]);
                case HeldHandOff.FREE -> applyCollected(t, b.address[i], b.size_[i], b.age[i], b.p[i]);
                default -> {
                    // a tick: its crossing is done
                }
            }
        }
    }

    private void applyAllocated(long address, long size, int typeNameId, double p, int siteKey, int stackKey) {
        if (address != ReportReplay.UNTRACKED) {
            double wb = size / p;
            double wc = 1 / p;
            double var = (double) size * size * (1 - p) / (p * p);
            samples.put(address, stackKey, epoch);
            deferred.allocated(siteKey, stackKey, wb, wc, var);
        }
        if (typeNameId != 0 && typeWanted[siteKey]) {
            SiteTally site = sites.get(siteKey);
            site.type = run.string(typeNameId);
            typeWanted[siteKey] = typeWanted(site);
        }
    }

    private static boolean typeWanted(SiteTally site) {
        return site.type == null || site.type.equals("?");
    }

    /** A heap sample collected at {@code t}, {@code age} nanoseconds after its allocation. */
    private void applyCollected(long t, long address, long size, long age, double p) {
        int slot = samples.find(address);
        if (slot < 0) {
            return; // not a live sample of this replay: nothing held to release
        }
        int born = samples.epoch(slot);
        // a heap DEALLOCATE carries the sample's size: its weight again, exactly as added
        double wb = size / p;
        double wc = 1 / p;
        double var = (double) size * size * (1 - p) / (p * p);
        int stackKey = samples.stack(slot);
        int siteKey = siteOfStack[stackKey];
        deferred.collected(siteKey, stackKey, born, wb, wc, var);
        long allocated = t - age;
        if (allocated >= from && allocated <= to) {
            deaths[siteKey * 2]++;
            if (t <= to) {
                deferred.lifetime(lifetimes, siteKey, age);
                if (born > pointBeforeLast) {
                    deaths[siteKey * 2 + 1]++; // it survived no collection: at most one point since its allocation
                }
            }
        }
        samples.remove(slot);
    }

    /**
     * Crosses the boundaries (positions and snapshots) before {@code t}: a point crossed is measured when the next
     * boundary is crossed (its frees observed before it), or at the end.
     */
    private void crossBefore(long t) {
        deferred.apply();
        while (nextBoundary < gcs.boundaries() && gcs.boundaryTime(nextBoundary) < t) {
            cross(nextBoundary++);
            if (done) {
                return;
            }
        }
    }

    private void cross(int b) {
        if (toMeasure >= 0) {
            int k = toMeasure;
            toMeasure = -1;
            if (k <= endGc) {
                measure(k);
            }
            if (k >= endGc) {
                done = true; // collection endGc is measured: nothing later changes a figure of the window
                return;
            }
        }
        int k = gcs.pointAt(b);
        if (k < 0) {
            if (gcs.markTaken(b)) { // one snapshot pends at a time (GcTimeline: overlapping snapshots)
                heldSites.crossMark(b);
                heldStacks.crossMark(b);
            }
        } else {
            heldSites.crossPoint(b);
            heldStacks.crossPoint(b);
            toMeasure = k;
            pointBeforeLast = lastPoint;
            lastPoint = b;
        }
        epoch = b + 1;
    }

    /** Takes the figures of collection {@code k} (the replay is at the boundary after it, or the end). */
    private void measure(int k) {
        int confirmed = gcs.confirms(k);
        if (confirmed >= 0 && heldSites.pending(confirmed)) {
            heldSites.confirm(); // a whole-heap collection: what it judged and did not free was reachable
            heldStacks.confirm();
        }
        heldSites.measure(k);
        heldStacks.measure(k);
        measured = k;
        GcRecord g = gcs.record(k);
        if (g.heapCommitted() != 0 || g.heapUsedAfter() != 0) {
            knownHeapUsed = g.heapUsedAfter();
            knownHeapCommitted = g.heapCommitted();
            if (k >= windowFirstGc) {
                checkHeap(k, g);
            }
        }
        long held = Math.round(heldSites.heldBytes());
        long unconfirmed = Math.round(Math.max(0, heldSites.unconfirmedBytes()));
        boolean lastOfBucket = k == endGc || k + 1 >= gcs.size() || gcs.position(k + 1) > to
                || timeline.bucketOf(gcs.position(k + 1)) != timeline.bucketOf(gcs.position(k));
        if (k >= windowFirstGc) {
            int b = timeline.bucketOf(gcs.position(k));
            timeline.held[b] = held;
            timeline.unconfirmed[b] = unconfirmed;
            timeline.heapUsed[b] = knownHeapUsed;
            timeline.heapCommitted[b] = knownHeapCommitted;
            timeline.measured[b] = true;
            if (lastOfBucket) {
                timeline.top.set(b, topHeld());
            }
        } else {
            timeline.carryHeld = held;
            timeline.carryUnconfirmed = unconfirmed;
            timeline.carryHeapUsed = knownHeapUsed;
            timeline.carryHeapCommitted = knownHeapCommitted;
            if (k + 1 == windowFirstGc || k == endGc) {
                timeline.carryTop = topHeld();
            }
        }
        boolean contradicted = g.hasHeapFigures() && ReportRules.exceedsHeap(heldSites.heldBytes(),
                Math.sqrt(heldSites.heldVariance()), g.heapUsedAfter());
        if (isNewPeak(k, held, contradicted)) {
            peakGc = k;
            peakHeldRounded = held;
            peakContradicted = contradicted;
            heldSites.takePeak();
            heldStacks.takePeak();
        }
    }

    /**
     * The peak is memory really held: among the window's whole-heap collections (only there is what the heap holds
     * reachable memory), the one where the held ledger measured the most held bytes, learnt as the replay measures
     * them (the figures at the peak are copied then: at most once per whole-heap collection). The JVM's heap figures
     * only break ties (nothing sampled held, or the same held at several): the one with the most heap in use after it,
     * else the later one. A G1 Remark (the whole-heap point of a concurrent mark) has no heap figures on JDK 17 and
     * may hold the most: the JVM's figures do not choose. But a collection whose held estimate exceeds the heap the
     * JVM reported in use after it ({@link ReportRules#exceedsHeap}: its frees misattributed to a later collection, as
     * when collections run back to back) is not memory really held: it is the peak only when every other is too.
     *
     * @param k            the collection just measured
     * @param held         its held bytes, rounded
     * @param contradicted its held bytes exceed the JVM's heap in use after it
     */
    private boolean isNewPeak(int k, long held, boolean contradicted) {
        if (k < windowFirstGc || k > endGc || !gcs.wholeHeap(k)) {
            return false;
        }
        if (peakGc >= 0 && contradicted != peakContradicted) {
            return !contradicted;
        }
        if (peakGc < 0 || held > peakHeldRounded) {
            return true;
        }
        if (held < peakHeldRounded) {
            return false;
        }
        GcRecord g = gcs.record(k);
        GcRecord best = gcs.record(peakGc);
        if (g.hasHeapFigures() || best.hasHeapFigures()) {
            return g.hasHeapFigures() && (!best.hasHeapFigures() || g.heapUsedAfter() > best.heapUsedAfter());
        }
        return true;
    }

    /**
     * Every sampled object present after collection {@code k} is in the heap then: their estimated bytes beyond the
     * JVM's heap used after it by more than {@value ReportBuilder#HEAP_CHECK_SIGMAS} standard errors is an
     * inconsistency ({@link ReportRules#exceedsHeap}).
     */
    private void checkHeap(int k, GcRecord g) {
        if (gcs.synthetic()) {
            return;
        }
        heapChecked++;
        double present = heldSites.presentBytes();
        double sd = Math.sqrt(heldSites.presentVariance());
        if (ReportRules.exceedsHeap(heldSites.heldBytes(), Math.sqrt(heldSites.heldVariance()), g.heapUsedAfter())) {
            heldExceeded++; // held alone above the heap: the contradiction the summary names first
        }
        if (ReportRules.exceedsHeap(present, sd, g.heapUsedAfter())) {
            heapExceeded++;
            double excess = present - g.heapUsedAfter();
            double sigmas = sd > 0 ? excess / sd : Double.MAX_VALUE;
            if (heapWorstGc < 0 || sigmas > heapWorstSigmas) {
                heapWorstSigmas = sigmas;
                heapWorstGc = k;
                heapWorstEstimate = Math.round(present);
                heapWorstSd = Math.round(sd);
            }
        }
    }

    /** @return the sites holding the most at the collection just measured */
    private List<Timeline.HeldSite> topHeld() {
        int n = ReportBuilder.BUCKET_SITES;
        int[] best = new int[n];
        double[] val = new double[n];
        int have = 0;
        for (SiteTally a : sites) {
            double v = heldSites.heldBytes(a.key);
            if (a.isNative || v < 0.5) {
                continue;
            }
            if (have < n || v > val[have - 1]) {
                int i = Math.min(have, n - 1);
                while (i > 0 && val[i - 1] < v) {
                    best[i] = best[i - 1];
                    val[i] = val[i - 1];
                    i--;
                }
                best[i] = a.key;
                val[i] = v;
                have = Math.min(n, have + 1);
            }
        }
        List<Timeline.HeldSite> l = new ArrayList<>(have);
        for (int i = 0; i < have; i++) {
            SiteTally a = sites.get(best[i]);
            l.add(new Timeline.HeldSite(a.site.frame(), ReportReplay.typeOf(a), Math.round(val[i])));
        }
        return l;
    }

    /**
     * The events have all been applied: the collections of the window not yet crossed by an event are, the last
     * one measured; the live samples are let go and each site's dead-sample counts set.
     */
    void end() {
        finishReplay();
        samples.clear();
        for (SiteTally a : sites) {
            a.deadSamples = deaths[a.key * 2];
            a.freedByFirstCollection = deaths[a.key * 2 + 1];
            a.lifetimes = lifetimes[a.key];
        }
    }

    /** The collections of the window not crossed by an event, the last one measured. */
    private void finishReplay() {
        deferred.apply();
        deferred.applyLifetimes(lifetimes);
        if (done) {
            return;
        }
        // the boundaries up to the end of the window not crossed by an event, then the last point measured
        while (!done && nextBoundary < gcs.boundaries() && gcs.boundaryTime(nextBoundary) <= to
                && (gcs.pointAt(nextBoundary) < 0 || gcs.pointAt(nextBoundary) <= endGc)) {
            cross(nextBoundary++);
        }
        if (!done && toMeasure >= 0 && toMeasure <= endGc) {
            int k = toMeasure;
            toMeasure = -1;
            measure(k);
        }
        if (!done && endGc >= 0 && measured < endGc) {
            measure(endGc);
        }
    }

}
