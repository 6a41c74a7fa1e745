package io.memscope.analysis;

import io.memscope.recording.GcRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The held half of a report's replay ({@link ReportReplay}): the live heap samples ({@link SampleTable}), the held
 * ledgers of sites and stacks ({@link HeldLedger}), the collections crossed and measured ({@link GcTimeline}), the
 * timeline's held line and the estimates checked against the JVM's heap figures. The allocation half (site and stack
 * tallies, the timeline's allocation, native memory) stays on the replaying thread; it hands this half, in time order,
 * the heap events it must see, each with its site and stack already resolved to keys, in batches of columns
 * ({@link Batch}).
 *
 * <p><b>Threads.</b> Started ({@link #start}), the batches are applied on a thread of its own ("memscope-held"), so
 * that the two halves use two cores; the replaying thread hands each full batch over through a small queue
 * ({@value #IN_FLIGHT} batches in flight, reused) and no lock or shared write is on the per-event path: each half
 * owns its state (a site's allocation figures belong to the allocation half; its dead samples, lifetimes, type and
 * reference collections to this one). Not started, each batch is applied on the replaying thread when it is full:
 * the serial replay, the same operations in the same order, so the same figures bit for bit. Either way the sites and
 * stacks a batch's events refer to are registered (made keys of the ledgers, their leak references chosen) before its
 * first event: a key with no sample has every figure 0 whenever it is registered.
 *
 * <p><b>Crossings.</b> A collection's boundary is crossed at the first event after it, whatever the event: so the
 * allocation half hands over, besides the heap events, a {@link #TICK} for any other event that crosses a boundary
 * or ends the replay ({@link ReportReplay}), and this half crosses exactly where the serial replay did.
 *
 * <p>Memory: per site and stack key, per live sample; the batches (about 1 MiB); never per event.
 */
final class HeldReplay {
    /** A heap sample allocated (in or before the window). */
    static final byte ALLOC = 1;
    /** A heap sample collected. */
    static final byte FREE = 2;
    /** No sample: only the time, at which boundaries are crossed (and, past the window, the replay ends). */
    static final byte TICK = 3;
    /**
     * Events per batch, as the decoding thread's chunks ({@link EventPipe}): each hand-over may wake the other thread,
     * a system call (batches of 1,024 measured about 15% more CPU in this half; 16,384 no less than 4,096).
     */
    static final int BATCH = 4096;
    static final int IN_FLIGHT = 4;

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
    private final int peakGc;
    private final SampleTable samples = new SampleTable();
    /** The sites and stacks registered, by key. */
    private final List<SiteTally> sites = new ArrayList<>();
    private int[] siteOfStack = new int[1024];
    private int stackCount;
    /** Per site key: samples collected in the window, and of those freed by the first collection after them. */
    private long[] deadSamples = new long[256];
    private long[] freedByFirst = new long[256];

    // replay position: the next boundary of the timeline (positions and snapshots), boundaries crossed
    private int nextBoundary;
    /** The last snapshot boundary of the timeline (-1 when none): always taken, nothing after it would confirm. */
    private int lastMark = -1;
    private int epoch;
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
    int heapChecked;
    int heapExceeded;
    int heldExceeded;
    int heapWorstGc = -1;
    long heapWorstEstimate;
    long heapWorstSd;
    double peakHeldBytes;
    double peakHeldCount;
    double peakUnconfirmedBytes;
    double endUnconfirmedBytes;
    long orphanFrees;

    // the hand-over (started only)
    private Thread thread;
    private BlockingQueue<Batch> full;
    private BlockingQueue<Batch> free;
    private volatile Throwable failure;
    private Batch current = new Batch();
    private boolean finished;

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
        this.peakGc = owner.peakGc;
        for (int b = gcs.boundaries() - 1; b >= 0 && lastMark < 0; b--) {
            lastMark = gcs.pointAt(b) < 0 ? b : -1;
        }
    }

    /** Applies the batches on a thread of its own from now on (class comment: Threads). */
    void start() {
        full = new ArrayBlockingQueue<>(IN_FLIGHT);
        free = new ArrayBlockingQueue<>(IN_FLIGHT);
        for (int i = 1; i < IN_FLIGHT; i++) {
            free.add(new Batch());
        }
        thread = new Thread(this::drain, "memscope-held");
        thread.setDaemon(true);
        thread.start();
    }

    private void drain() {
        for (Batch b = take(full); b != Batch.END; b = take(full)) {
            if (failure == null) {
                try {
                    apply(b);
                } catch (RuntimeException | Error e) {
                    failure = e; // rethrown on the replaying thread; batches still go back so that it never waits
                }
            }
            b.clear();
            put(free, b);
        }
    }

    // ------------------------------------------------------------------------------------ the replaying thread

    /** A site created by the allocation half: registered before the next event handed over. */
    void newSite(SiteTally a) {
        if (finished) {
            register(a);
        } else {
            current.sites.add(a);
        }
    }

    /** A stack created by the allocation half: registered before the next event handed over. */
    void newStack(StackTally s) {
        if (finished) {
            register(s);
        } else {
            current.stacks.add(s);
        }
    }

    void allocated(long t, long address, long size, int typeNameId, double p, int siteKey, int stackKey) {
        Batch b = current;
        int i = b.size++;
        b.kind[i] = ALLOC;
        b.time[i] = t;
        b.address[i] = address;
        b.size_[i] = size;
        b.p[i] = p;
        b.typeName[i] = typeNameId;
        b.site[i] = siteKey;
        b.stack[i] = stackKey;
        if (i + 1 == BATCH) {
            handOver();
        }
    }

    /** @param p the sampling probability of {@code size} (the allocation half's, computed once per size) */
    void collected(long t, long address, long size, long age, double p) {
        Batch b = current;
        int i = b.size++;
        b.kind[i] = FREE;
        b.time[i] = t;
        b.address[i] = address;
        b.size_[i] = size;
        b.age[i] = age;
        b.p[i] = p;
        if (i + 1 == BATCH) {
            handOver();
        }
    }

    void tick(long t) {
        Batch b = current;
        int i = b.size++;
        b.kind[i] = TICK;
        b.time[i] = t;
        if (i + 1 == BATCH) {
            handOver();
        }
    }

    private void handOver() {
        if (thread == null) {
            apply(current);
            current.clear();
            return;
        }
        rethrow();
        put(full, current);
        current = take(free);
    }

    /**
     * The events have all been handed over: the last batch is applied, the thread (if started) ends, and the
     * collections of the window not yet crossed are ({@link #finishReplay}); afterwards new sites and stacks are
     * registered at once.
     */
    void finish() {
        if (thread == null) {
            apply(current);
            current.clear();
        } else {
            put(full, current);
            current = null;
            stop();
            rethrow();
        }
        finishReplay();
        finished = true;
        samples.clear();
        for (SiteTally a : sites) {
            a.deadSamples = deadSamples[a.key];
            a.freedByFirstCollection = freedByFirst[a.key];
        }
    }

    /** Ends the thread (if started and not ended yet): after a failure of the replay too. */
    void stop() {
        Thread th = thread;
        if (th == null) {
            return;
        }
        thread = null;
        put(full, Batch.END);
        boolean interrupted = false;
        while (th.isAlive()) {
            try {
                th.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void rethrow() {
        Throwable f = failure;
        if (f instanceof RuntimeException r) {
            throw r;
        }
        if (f instanceof Error e) {
            throw e;
        }
    }

    private static Batch take(BlockingQueue<Batch> q) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return q.take();
                } catch (InterruptedException e) {
                    interrupted = true; // a batch lost would stall the other side: kept for later
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void put(BlockingQueue<Batch> q, Batch b) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    q.put(b);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ------------------------------------------------------------------------------ the held thread (or inline)

    private void register(SiteTally a) {
        if (a.key >= deadSamples.length) {
            int n = Math.max(a.key + 1, deadSamples.length * 2);
            deadSamples = Arrays.copyOf(deadSamples, n);
            freedByFirst = Arrays.copyOf(freedByFirst, n);
        }
        if (!a.isNative && a.windowKnown) {
            rules.chooseReferences(a);
        }
        heldSites.ensure(a.key);
        sites.add(a);
    }

    private void register(StackTally s) {
        int key = s.key;
        if (key >= siteOfStack.length) {
            siteOfStack = Arrays.copyOf(siteOfStack, Math.max(key + 1, siteOfStack.length * 2));
        }
        siteOfStack[key] = s.site.key;
        stackCount = Math.max(stackCount, key + 1);
        heldStacks.ensure(key);
    }

    private void apply(Batch b) {
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
                case ALLOC -> applyAllocated(b.address[i], b.size_[i], b.typeName[i], b.p[i], b.site[i], b.stack[i]);
                case FREE -> applyCollected(t, b.address[i], b.size_[i], b.age[i], b.p[i]);
                default -> {
                    // a tick: its crossing is done
                }
            }
        }
    }

    private void applyAllocated(long address, long size, int typeNameId, double p, int siteKey, int stackKey) {
        SiteTally site = sites.get(siteKey);
        if (address != ReportReplay.UNTRACKED) {
            double wb = size / p;
            double wc = 1 / p;
            double var = (double) size * size * (1 - p) / (p * p);
            samples.put(address, stackKey, epoch);
            heldSites.allocated(siteKey, wb, wc, var);
            heldStacks.allocated(stackKey, wb, wc, var);
        }
        if (typeNameId != 0 && (site.type == null || site.type.equals("?"))) {
            site.type = run.string(typeNameId);
        }
    }

    /** A heap sample collected at {@code t}, {@code age} nanoseconds after its allocation. */
    private void applyCollected(long t, long address, long size, long age, double p) {
        int slot = samples.find(address);
        if (slot < 0) {
            orphanFrees++;
            return;
        }
        int born = samples.epoch(slot);
        // a heap DEALLOCATE carries the sample's size: its weight again, exactly as added
        double wb = size / p;
        double wc = 1 / p;
        double var = (double) size * size * (1 - p) / (p * p);
        int stackKey = samples.stack(slot);
        int siteKey = siteOfStack[stackKey];
        heldSites.collected(siteKey, wb, wc, var, born);
        heldStacks.collected(stackKey, wb, wc, var, born);
        long allocated = t - age;
        if (allocated >= from && allocated <= to) {
            deadSamples[siteKey]++;
            if (t <= to) {
                sites.get(siteKey).lifetimes.add(age);
                if (gcs.pointsBetween(born, epoch) <= 1) {
                    freedByFirst[siteKey]++; // it survived no collection
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
            l.add(new Timeline.HeldSite(a.site.frame(), ReportReplay.typeOf(a), Math.round(val[i])));
        }
        return l;
    }

    /**
     * The events have all been applied: the collections of the window not yet crossed by an event are, the last
     * one measured.
     */
    private void finishReplay() {
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

    /** Heap events in columns, and the sites and stacks created since the previous batch. */
    private static final class Batch {
        static final Batch END = new Batch();
        int size;
        final byte[] kind = new byte[BATCH];
        final long[] time = new long[BATCH];
        final long[] address = new long[BATCH];
        final long[] size_ = new long[BATCH];
        /** The sample's sampling probability. */
        final double[] p = new double[BATCH];
        /** FREE: the sample's age. */
        final long[] age = new long[BATCH];
        final int[] typeName = new int[BATCH];
        final int[] site = new int[BATCH];
        final int[] stack = new int[BATCH];
        final List<SiteTally> sites = new ArrayList<>();
        final List<StackTally> stacks = new ArrayList<>();

        void clear() {
            size = 0;
            sites.clear();
            stacks.clear();
        }
    }
}
