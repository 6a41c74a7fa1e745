package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Site;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A report's replay: the recording's events, in time order, into the ledgers the report is assembled from
 * ({@link ReportAssembly}). Per heap sample its weight goes to its site and stack ({@link SiteTally},
 * {@link StackTally}) and into the held ledgers of sites and stacks ({@link HeldLedger}); the replay crosses the
 * collections' boundaries ({@link GcTimeline}) as the events pass them and measures held and unconfirmed memory at
 * each collection, into the timeline ({@link TimelineBuckets}); native events go to the {@link NativeLedger}. It
 * also resolves the report's window (from the run's start and end) and checks the estimates against the JVM's heap
 * figures at each collection. Rules and their meaning: {@link ReportBuilder}, {@link ReportRules}.
 *
 * <p>Memory: per site, per stack, per live sample and per outstanding native block; never per event.
 */
final class ReportReplay implements EventSink {
    final RecordedRun run;
    private final AllocationWindows windows;
    private final double mean;
    /** Each sample's size is the bytes it stands for (JFR's weights): probability 1, no sampling variance. */
    private final boolean eventWeights;
    final long runStart;
    final long from;
    final long to;
    final boolean restricted;
    final GcTimeline gcs;
    final int windowFirstGc;
    final int endGc;
    final int peakGc;
    /** The last whole-heap collection of the window, -1 when none. */
    final int endWholeGc;
    final HeldLedger heldSites;
    final HeldLedger heldStacks;
    final ReportRules rules;
    final TimelineBuckets timeline;
    final NativeLedger natives;
    /** The process's memory over the window (RSS samples), or null without samples. */
    final ProcessMemory processMemory;
    /** The malloc sampling interval (metadata {@code malloc.intervalBytes}), bytes. */
    final double mallocInterval;
    /** Sizes below this have their sampling probability computed once ({@link #probabilities}). */
    private static final int SIZES = 1 << 18;
    /**
     * The sampling probability of each small size, 0 until first needed: {@code expm1} once per size rather than
     * twice per sample (allocated, collected). The same function of the size, so the same weights bit for bit.
     */
    private final double[] probabilities = new double[SIZES];
    private final SampleTable samples = new SampleTable();
    /** The site key of each stack key, in an array: a DEALLOCATE finds its site without touching objects. */
    private int[] siteOfStack = new int[1024];
    private final Map<Integer, SiteTally> sitesById = new HashMap<>();
    /** Sites by id for the usual small, dense ids (the agent's): no boxing per event. */
    private final SiteTally[] smallIds = new SiteTally[1 << 16];
    final List<SiteTally> sites = new ArrayList<>();
    final List<StackTally> stacks = new ArrayList<>();

    // replay position: the next boundary of the timeline (positions and snapshots), boundaries crossed
    private int nextBoundary;
    /** The last snapshot boundary of the timeline (-1 when none): always taken, nothing after it would confirm. */
    private int lastMark = -1;
    private int epoch;
    /** The last point crossed, not measured yet (-1: none). */
    private int toMeasure = -1;
    private int measured = -1;
    private boolean done;
    private boolean inWindow;
    // the estimates against the JVM's heap figures
    int heapChecked;
    int heapExceeded;
    int heldExceeded;
    private double heapWorstSigmas;
    int heapWorstGc = -1;
    long heapWorstEstimate;
    long heapWorstSd;
    /**
     * The heap figures of the last collection that had some: a collection the agent has no heap figures for
     * (all 0: a pause without a GC notification, recording.md 5.1) carries them on.
     */
    private long knownHeapUsed;
    private long knownHeapCommitted;

    // totals of the window
    double peakHeldBytes;
    double peakHeldCount;
    double peakUnconfirmedBytes;
    double endUnconfirmedBytes;
    long orphanFrees;

    /**
     * Resolves the window (from the run's start and end: the metadata's, else the first and last event or
     * collection) and prepares the ledgers.
     *
     * @throws io.memscope.error.MemscopeException (CONFIGURATION) when the window starts after the run's end
     */
    ReportReplay(RecordedRun run, TimeWindow window) {
        this.run = run;
        this.mean = Math.max(1, run.metadataLong(MetadataKeys.INTERVAL_BYTES, 512 * 1024));
        this.eventWeights = run.eventWeights();
        long firstSeen = Math.min(run.firstEventNanos(), firstGcStart(run));
        long start = run.metadataLong(MetadataKeys.START_NANOS, firstSeen == Long.MAX_VALUE ? 0 : firstSeen);
        long lastSeen = Math.max(run.lastEventNanos(), lastGcEnd(run));
        long end = run.metadataLong(MetadataKeys.END_NANOS, lastSeen == Long.MIN_VALUE ? start : lastSeen);
        io.memscope.recording.RecordingReader.ChunkSet read = run.chunks();
        if (read != null && read.skippedAfter() > 0) {
            end = Math.max(end, read.nextStartNanos()); // chunks after the window not read: the run went on
        }
        end = Math.max(end, start);
        this.runStart = start;
        long f = window.fromSeconds() == null ? start : start + Math.round(window.fromSeconds() * 1e9);
        if (window.lastSeconds() != null) {
            f = Math.max(f, end - Math.round(window.lastSeconds() * 1e9));
        }
        // a chunked recording whose first chunks were deleted: what they held is carried, what they allocated is not
        io.memscope.recording.RecordingReader.ChunkSet chunks = run.chunks();
        boolean cut = chunks != null && chunks.firstIndex() > 1 && f < chunks.startNanos();
        if (cut) {
            f = chunks.startNanos();
        }
        this.restricted = window.restricted() || cut;
        long t = window.toSeconds() == null ? end : Math.min(end, start + Math.round(window.toSeconds() * 1e9));
        if (f > end) {
            throw io.memscope.error.MemscopeException.configuration(String.format(java.util.Locale.ROOT,
                    "--from %.3f s is after the end of the run (%.3f s)", window.fromSeconds(),
                    (end - start) / 1e9));
        }
        this.from = f;
        this.to = Math.max(t, f);
        AllocationWindows w = restricted ? run.allocationWindows(from, to) : run.allocationWindows();
        if (w == null) {
            // the run's start was not known before the first event (or the run was not opened for this window): the
            // sites' allocation windows inside it take a read of their own
            AllocationWindows inside = new AllocationWindows(from, to);
            run.replay(inside::add);
            w = inside;
        }
        this.windows = w;
        this.gcs = GcTimeline.of(run, to);
        for (int b = gcs.boundaries() - 1; b >= 0 && lastMark < 0; b--) {
            lastMark = gcs.pointAt(b) < 0 ? b : -1;
        }
        this.windowFirstGc = gcs.firstAtOrAfter(from);
        this.endGc = gcs.lastAtOrBefore(to);
        this.peakGc = gcs.peak(windowFirstGc, endGc);
        this.endWholeGc = gcs.lastWholeHeap(windowFirstGc, endGc);
        this.heldSites = new HeldLedger(windowFirstGc, endGc, peakGc);
        this.heldStacks = new HeldLedger(windowFirstGc, endGc, peakGc);
        this.rules = new ReportRules(gcs, windowFirstGc, endWholeGc, heldSites, runStart);
        this.timeline = new TimelineBuckets(from, to);
        this.processMemory = ProcessMemory.of(run, runStart, from, to);
        this.mallocInterval = Math.max(1, run.metadataLong(MetadataKeys.MALLOC_INTERVAL_BYTES, 512 * 1024));
        long rssPeak = processMemory == null || processMemory.peak() == null ? Long.MAX_VALUE
                : runStart + Math.round(processMemory.peak().timeMs() * 1e6);
        this.natives = new NativeLedger(from, to, timeline, mallocInterval, rssPeak, sites);
    }

    private static long firstGcStart(RecordedRun run) {
        long m = Long.MAX_VALUE;
        for (GcRecord g : run.gcRecords()) {
            m = Math.min(m, g.startNanos());
        }
        return m;
    }

    private static long lastGcEnd(RecordedRun run) {
        long m = Long.MIN_VALUE;
        for (GcRecord g : run.gcRecords()) {
            m = Math.max(m, g.startNanos() + g.durationNanos());
        }
        return m;
    }

    private double probability(long size) {
        if (eventWeights) {
            return 1;
        }
        if (size >= 0 && size < SIZES) {
            double p = probabilities[(int) size];
            if (p == 0) {
                p = ReportBuilder.probability(size, mean);
                probabilities[(int) size] = p;
            }
            return p;
        }
        return ReportBuilder.probability(size, mean);
    }

    /** @return the site's tally, created at its first event (and its leak references chosen then) */
    SiteTally site(int siteId) {
        boolean small = siteId >= 0 && siteId < smallIds.length;
        SiteTally a = small ? smallIds[siteId] : sitesById.get(siteId);
        if (a == null) {
            Site s = run.site(siteId);
            if (s == null) {
                s = new Site(siteId, "unknown", "site" + siteId, null, 0, null);
            }
            a = new SiteTally(sites.size(), s, s.typeName());
            long[] w = windows.window(siteId);
            if (w != null) {
                a.firstAlloc = w[0];
                a.lastAlloc = w[1];
                if (!a.isNative) {
                    rules.chooseReferences(a);
                }
            }
            heldSites.ensure(a.key);
            sitesById.put(siteId, a);
            if (small) {
                smallIds[siteId] = a;
            }
            sites.add(a);
            if (inWindow) {
                a.nPeak = 0;
            }
        }
        return a;
    }

    /** @return the tally of (stack, site), created at its first event */
    StackTally stack(long stackId, SiteTally site) {
        StackTally s = site.stack(stackId);
        if (s != null) {
            return s;
        }
        int key = stacks.size();
        s = new StackTally(key, stackId, site);
        stacks.add(s);
        if (key == siteOfStack.length) {
            siteOfStack = java.util.Arrays.copyOf(siteOfStack, key * 2);
        }
        siteOfStack[key] = site.key;
        site.addStack(s);
        heldStacks.ensure(key);
        return s;
    }

    // ---------------------------------------------------------------------------------------------------- replay

    @Override
    public void accept(EventView e) {
        if (done) {
            return;
        }
        long t = e.timestampNanos();
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
        if (!inWindow && t >= from) {
            enterWindow();
        }
        SiteTally site = site(e.siteId());
        if (site.isNative) {
            if (t <= to) {
                nativeEvent(t, e, site);
            }
            return;
        }
        if (e.type() == MemoryEventType.ALLOCATE) {
            if (t <= to) {
                allocated(t, e.address(), e.size(), e.typeNameId(), e.stackId(), site);
            }
        } else if (e.type() == MemoryEventType.DEALLOCATE) {
            collected(t, e.address(), e.size(), e.previousSize());
        }
    }

    /**
     * The address of a heap sample whose object is not followed (a JFR allocation sample): it counts in the allocated
     * figures and is never held, collected or a lifetime. memscope's samples have ids from 1.
     */
    static final long UNTRACKED = 0;

    /** A heap sample allocated at {@code t}, in the window or before it. */
    private void allocated(long t, long address, long size, int typeNameId, long stackId, SiteTally site) {
        double p = probability(size);
        double wb = size / p;
        double wc = 1 / p;
        double var = (double) size * size * (1 - p) / (p * p);
        StackTally stack = stack(stackId, site);
        if (address != UNTRACKED) {
            samples.put(address, stack.key, epoch);
            heldSites.allocated(site.key, wb, wc, var);
            heldStacks.allocated(stack.key, wb, wc, var);
        }
        if (site.stackId == 0) {
            site.stackId = stackId;
        }
        if (typeNameId != 0 && (site.type == null || site.type.equals("?"))) {
            site.type = run.string(typeNameId);
        }
        // JFR: a held sample is an object the allocation samples have counted already (their weights cover it)
        if (t >= from && (address == UNTRACKED || !eventWeights)) {
            site.samples++;
            site.estBytes += wb;
            site.estCount += wc;
            stack.allocBytes += wb;
            stack.allocCount += wc;
            int b = timeline.bucketOf(t);
            timeline.alloc[b] += wb;
            stack.addToBucket(b, wb);
        }
    }

    /** A heap sample collected at {@code t}, {@code age} nanoseconds after its allocation. */
    private void collected(long t, long address, long size, long age) {
        int slot = samples.find(address);
        if (slot < 0) {
            orphanFrees++;
            return;
        }
        int born = samples.epoch(slot);
        // a heap DEALLOCATE carries the sample's size: its weight again, exactly as added
        double p = probability(size);
        double wb = size / p;
        double wc = 1 / p;
        double var = (double) size * size * (1 - p) / (p * p);
        int stackKey = samples.stack(slot);
        int siteKey = siteOfStack[stackKey];
        heldSites.collected(siteKey, wb, wc, var, born);
        heldStacks.collected(stackKey, wb, wc, var, born);
        long allocated = t - age;
        if (allocated >= from && allocated <= to) {
            SiteTally a = sites.get(siteKey);
            a.deadSamples++;
            if (t <= to) {
                a.lifetimes.add(age);
                if (gcs.pointsBetween(born, epoch) <= 1) {
                    a.freedByFirstCollection++; // it survived no collection
                }
            }
        }
        samples.remove(slot);
    }

    private void nativeEvent(long t, EventView e, SiteTally site) {
        switch (e.type()) {
            case ALLOCATE, REALLOCATE ->
                    natives.allocate(t, e.address(), e.size(), site, stack(e.stackId(), site), e.stackId());
            case DEALLOCATE -> natives.free(t, e.address());
            default -> {
                // the native ledger has nothing to do with other types
            }
        }
    }

    /**
     * Crosses the boundaries (positions and snapshots) before {@code t}: a point crossed is measured when the next
     * boundary is crossed (its frees observed before it), or at the end.
     */
    private void crossBefore(long t) {
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
            // One snapshot pends at a time. A snapshot whose collection's verdict comes after the pending one's is
            // not taken (its verdict will confirm the pending snapshot, which it covers): so overlapping whole-heap
            // collections (generational ZGC's major cycles, whose snapshots lag their starts) still confirm, one
            // in a few. One whose verdict comes first replaces the pending one, and so does the last snapshot of
            // the timeline (the end check's cycle, placed over the one it waited for within the clock's
            // uncertainty): no later collection would judge what was allocated between the two snapshots.
            int pending = heldSites.pendingMark();
            int of = gcs.snapshotOf(b);
            if (pending < 0 || of < 0 || b == lastMark
                    || gcs.pointBoundary(of) < gcs.pointBoundary(gcs.snapshotOf(pending))) {
                heldSites.crossMark(b);
                heldStacks.crossMark(b);
            }
        } else {
            boolean verdict = heldSites.pendingAtOrBefore(gcs.markOf(k));
            heldSites.crossPoint(b, verdict);
            heldStacks.crossPoint(b, verdict);
            toMeasure = k;
        }
        epoch = b + 1;
    }

    /** Takes the figures of collection {@code k} (the replay is at the boundary after it, or the end). */
    private void measure(int k) {
        int mark = gcs.markOf(k);
        if (mark >= 0 && heldSites.pendingAtOrBefore(mark)) {
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
        if (k == peakGc) {
            peakHeldBytes = heldSites.heldBytes();
            peakHeldCount = heldSites.heldCount();
            peakUnconfirmedBytes = heldSites.unconfirmedBytes();
        }
        if (k == endGc) {
            endUnconfirmedBytes = heldSites.unconfirmedBytes();
        }
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
            l.add(new Timeline.HeldSite(a.site.frame(), typeOf(a), Math.round(val[i])));
        }
        return l;
    }

    /** @return the site's type as reports show it: {@code ?} when unknown */
    static String typeOf(SiteTally a) {
        return a.type == null ? "?" : a.type;
    }

    private void enterWindow() {
        inWindow = true;
        natives.enterWindow(sites);
    }

    /**
     * The events have all been replayed: the collections of the window not yet crossed by an event are, the last
     * one measured, and the native figures at the peak completed. The live samples are let go.
     */
    void finish() {
        if (!inWindow) {
            enterWindow();
        }
        if (!done) {
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
        natives.finish(sites, stacks);
        samples.clear();
    }
}
