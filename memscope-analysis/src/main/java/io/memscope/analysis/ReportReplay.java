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
 * <p><b>Two halves.</b> This class is the allocation half: it resolves each event's site and stack (creating their
 * tallies), adds allocated weights to the tallies and the timeline, and keeps the native ledger. The held half
 * ({@link HeldReplay}: live samples, held ledgers, collections crossed and measured) gets the heap events with their
 * keys, in batches ({@link HeldHandOff}); {@link #parallel} runs it on a second thread, otherwise it runs inline (the
 * same figures). So that both halves stop at the same event, this half follows the collections' boundaries too (only
 * their order, not their figures): the replay is done once the window's last collection is measured.
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
    /**
     * The peak: the window's whole-heap collection where the most was held, -1 when none; learnt by the held half as
     * it measures ({@link HeldReplay}), known once {@link #finish} has run (the allocation half does not need it).
     */
    int peakGc = -1;
    /**
     * The last collection of the window that confirmed a snapshot (what it held was reachable then: GcTimeline,
     * overlapping snapshots), -1 when none.
     */
    final int endWholeGc;
    final HeldLedger heldSites;
    final HeldLedger heldStacks;
    final ReportRules rules;
    final TimelineBuckets timeline;
    final NativeLedger natives;
    /** The process's memory over the window (RSS samples), or null without samples. */
    final ProcessMemory processMemory;
    /** How malloc was sampled (metadata {@code malloc.intervalBytes}, {@code malloc.sampling}). */
    final MallocSampling mallocSampling;
    /** Sizes below this have their sampling probability computed once ({@link #probabilities}). */
    static final int SIZES = 1 << 18;
    /**
     * The sampling probability of each small size, 0 until first needed: {@code expm1} once per size rather than
     * twice per sample (allocated, collected). The same function of the size, so the same weights bit for bit.
     */
    private final double[] probabilities = new double[SIZES];
    /** The held half: live samples, held ledgers, collections measured. */
    private final HeldHandOff held;
    private final Map<Integer, SiteTally> sitesById = new HashMap<>();
    /** Sites by id for the usual small, dense ids (the agent's): no boxing per event. */
    private final SiteTally[] smallIds = new SiteTally[1 << 16];
    /**
     * Of those, the heap sites met so far: a heap sample's collection needs nothing from its site's tally, so it is
     * handed to the held half without reading the tally (a cache line of 3,000 sites' per event, half the events).
     */
    private final boolean[] heapSites = new boolean[1 << 16];
    /**
     * Each heap site's samples and estimated bytes and objects allocated in the window, by site key, summed here (in
     * event order, as in the tallies) and moved into the tallies by {@link #finish}: per event the allocation half
     * writes a few compact arrays instead of a cache line of one of 3,000 tallies.
     */
    private long[] siteSamples = new long[256];
    private double[] siteBytes = new double[256];
    private double[] siteCount = new double[256];
    final List<SiteTally> sites = new ArrayList<>();
    /** Stack ids below this are looked up directly ({@link #stacksById}); larger ones in their site's table. */
    static final int MAX_STACK_IDS = 1 << 20;
    /**
     * By stack id, for the usual small, dense ids (the agent's): the tally of that stack with the site it was last
     * seen with. An event finds its stack here in one array read (the site checked), rather than hashing into its
     * site's table; a stack id seen with another site goes to that site's table and is remembered with it.
     */
    private StackTally[] stacksById = new StackTally[1 << 12];
    final List<StackTally> stacks = new ArrayList<>();

    // replay position: the next boundary of the timeline, the last point crossed (-1: none), as the held half
    private int nextBoundary;
    private int pointCrossed = -1;
    private boolean done;
    private boolean inWindow;

    /** The held half, its results read once {@link #finish} returned (the heap check's figures). */
    HeldReplay heldResults;

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
        this.windowFirstGc = gcs.firstAtOrAfter(from);
        this.endGc = gcs.lastAtOrBefore(to);
        this.endWholeGc = gcs.lastConfirming(windowFirstGc, endGc);
        this.heldSites = new HeldLedger(windowFirstGc, endGc);
        this.heldStacks = new HeldLedger(windowFirstGc, endGc);
        this.rules = new ReportRules(gcs, windowFirstGc, endWholeGc, heldSites, runStart);
        this.timeline = new TimelineBuckets(from, to);
        this.processMemory = ProcessMemory.of(run, runStart, from, to);
        this.mallocSampling = MallocSampling.of(run);
        long rssPeak = processMemory == null || processMemory.peak() == null ? Long.MAX_VALUE
                : runStart + Math.round(processMemory.peak().timeMs() * 1e6);
        this.natives = new NativeLedger(from, to, timeline, mallocSampling, rssPeak, sites);
        this.held = new HeldHandOff(new HeldReplay(this));
    }

    /** Runs the held half on a second thread (call before the first event; {@link #close} ends it on a failure). */
    void parallel() {
        held.start();
    }

    /** Ends the held half's thread if the replay failed before {@link #finish}. */
    void close() {
        held.stop();
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
            if (a.key == siteSamples.length) {
                siteSamples = java.util.Arrays.copyOf(siteSamples, a.key * 2);
                siteBytes = java.util.Arrays.copyOf(siteBytes, a.key * 2);
                siteCount = java.util.Arrays.copyOf(siteCount, a.key * 2);
            }
            long[] w = windows.window(siteId);
            if (w != null) {
                a.firstAlloc = w[0];
                a.lastAlloc = w[1];
                a.windowKnown = true; // the held half chooses its leak references from it
            }
            held.newSite(a);
            sitesById.put(siteId, a);
            if (small) {
                smallIds[siteId] = a;
                heapSites[siteId] = !a.isNative;
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
        StackTally[] t = stacksById;
        if (stackId >= 0 && stackId < t.length) {
            StackTally s = t[(int) stackId];
            if (s != null && s.site == site) {
                return s;
            }
        }
        return stackOfSite(stackId, site);
    }

    /**
     * The tally of (stack, site) for a heap sample: the site's stack id is its first heap sample's with one. A pair
     * found (by id or in the site's table) had a sample of the site before, which set it already if it had one.
     */
    private StackTally heapStack(long stackId, SiteTally site) {
        StackTally[] t = stacksById;
        if (stackId >= 0 && stackId < t.length) {
            StackTally s = t[(int) stackId];
            if (s != null && s.site == site) {
                return s;
            }
        }
        StackTally s = stackOfSite(stackId, site);
        if (site.stackId == 0) {
            site.stackId = stackId;
        }
        return s;
    }

    /** The tally of (stack, site) from the site's own table, created at its first event, then remembered by id. */
    private StackTally stackOfSite(long stackId, SiteTally site) {
        StackTally s = site.stack(stackId);
        if (s == null) {
            int key = stacks.size();
            s = new StackTally(key, stackId, site);
            stacks.add(s);
            site.addStack(s);
            held.newStack(s);
        }
        if (stackId >= 0 && stackId < MAX_STACK_IDS) {
            if (stackId >= stacksById.length) {
                int n = Integer.highestOneBit((int) stackId) << 1;
                stacksById = java.util.Arrays.copyOf(stacksById, n);
            }
            stacksById[(int) stackId] = s;
        }
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
            held.tick(t);
            return;
        }
        boolean crossed = false;
        if (nextBoundary < gcs.boundaries() && gcs.boundaryTime(nextBoundary) < t) {
            crossed = true;
            crossBefore(t);
            if (done) {
                held.tick(t); // the held half crosses to the same end
                return;
            }
        }
        if (!inWindow && t >= from) {
            enterWindow();
        }
        int siteId = e.siteId();
        MemoryEventType type = e.type();
        if (siteId >= 0 && siteId < heapSites.length && heapSites[siteId]) {
            // a heap site already met: what the branch below does, without reading the site's tally
            if (type == MemoryEventType.ALLOCATE) {
                if (t <= to) {
                    allocated(t, e.address(), e.size(), e.typeNameId(), e.stackId(), smallIds[siteId]);
                    return;
                }
            } else if (type == MemoryEventType.DEALLOCATE) {
                held.collected(t, e.address(), e.size(), e.previousSize(), probability(e.size()));
                return;
            }
            if (crossed) {
                held.tick(t);
            }
            return;
        }
        SiteTally site = site(siteId);
        if (!site.isNative) {
            if (type == MemoryEventType.ALLOCATE) {
                if (t <= to) {
                    allocated(t, e.address(), e.size(), e.typeNameId(), e.stackId(), site);
                    return;
                }
            } else if (type == MemoryEventType.DEALLOCATE) {
                held.collected(t, e.address(), e.size(), e.previousSize(), probability(e.size()));
                return;
            }
        } else if (t <= to) {
            nativeEvent(t, e, site);
        }
        if (crossed) {
            held.tick(t); // no heap event: the held half crosses here all the same
        }
    }

    /**
     * Follows the boundaries before {@code t} as the held half crosses them ({@link HeldReplay}): a point crossed is
     * measured at the next boundary, and once the window's last collection is measured the replay is done.
     */
    private void crossBefore(long t) {
        while (nextBoundary < gcs.boundaries() && gcs.boundaryTime(nextBoundary) < t) {
            int b = nextBoundary++;
            if (pointCrossed >= 0) {
                if (pointCrossed >= endGc) {
                    done = true;
                    return;
                }
                pointCrossed = -1;
            }
            int k = gcs.pointAt(b);
            if (k >= 0) {
                pointCrossed = k;
            }
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
        StackTally stack = heapStack(stackId, site);
        int k = stack.siteKey; // the site's key from the stack's tally, in cache: the site's is not read
        held.allocated(t, address, size, typeNameId, p, k, stack.key);
        // JFR: a held sample is an object the allocation samples have counted already (their weights cover it)
        if (t >= from && (address == UNTRACKED || !eventWeights)) {
            siteSamples[k]++;
            siteBytes[k] += wb;
            siteCount[k] += wc;
            stack.allocBytes += wb;
            stack.allocCount += wc;
            int b = timeline.bucketOf(t);
            timeline.alloc[b] += wb;
            stack.addToBucket(b, wb);
        }
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
        held.finish();
        for (SiteTally a : sites) {
            if (!a.isNative) {
                a.samples = siteSamples[a.key];
                a.estBytes = siteBytes[a.key];
                a.estCount = siteCount[a.key];
            }
        }
        heldResults = held.held();
        peakGc = heldResults.peakGc;
        natives.finish(sites, stacks);
    }
}
