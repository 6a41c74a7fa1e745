package io.memscope.agent.capture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * One capture's running per-site estimates of allocated, live and held heap and of the allocation rate, kept while
 * the program runs: updated when an allocation is sampled, when a sampled object is seen collected or held, and once
 * a second ({@link #tick}).
 *
 * <p>Estimates are Horvitz-Thompson: a sample of {@code s} bytes drawn with probability
 * {@code p = 1 - exp(-s / interval)} stands for {@code 1/p} objects and {@code s/p} bytes, so the sums are unbiased
 * estimates of the true figures.
 * <ul>
 *   <li><b>live</b>: sampled objects not yet seen collected. An object that became unreachable counts until a GC
 *       clears its weak reference and memscope looks (the JVM sampler: right after each collection; the bytecode
 *       sampler: when the Reference Handler enqueues the reference, up to 100 ms later).</li>
 *   <li><b>held</b>: sampled objects allocated before the start of a GC and not collected by it (nor by an earlier
 *       one): reachable at that GC, as far as that GC looked. A young collection does not look at the old generation:
 *       an object that died there stays held until a collection that examines the old generation (G1's concurrent
 *       cycle and mixed collections, a full GC) clears it. Objects allocated after the latest GC's start are live,
 *       not held. With the JVM sampler each sample is judged against every stop-the-world collection
 *       ({@link JvmtiHeapSampler}; {@link #becameHeld}); with the bytecode sampler a GC counts once the references
 *       it cleared were drained ({@link #gcProcessed}).</li>
 *   <li><b>allocation rate</b>: estimated bytes allocated per second during the last completed {@link #tick}
 *       window (about one second).</li>
 * </ul>
 *
 * <p>Samples are rare (one per {@code interval} bytes per thread on average): updates take a lock.
 */
public final class LiveSites {
    /** One site's figures at the moment of a {@link #top} call. Bytes and objects are estimates (rounded). */
    public static final class Usage {
        public final int site;
        public final long liveBytes;
        public final long liveObjects;
        public final long liveSamples;
        public final long allocatedBytes;
        public final long allocatedObjects;
        public final long samples;
        public final long heldBytes;
        public final long heldObjects;
        /** Estimated bytes per second allocated during the last completed tick window. */
        public final long allocationRate;

        Usage(int site, long liveBytes, long liveObjects, long liveSamples, long allocatedBytes,
              long allocatedObjects, long samples, long heldBytes, long heldObjects, long allocationRate) {
            this.site = site;
            this.liveBytes = liveBytes;
            this.liveObjects = liveObjects;
            this.liveSamples = liveSamples;
            this.allocatedBytes = allocatedBytes;
            this.allocatedObjects = allocatedObjects;
            this.samples = samples;
            this.heldBytes = heldBytes;
            this.heldObjects = heldObjects;
            this.allocationRate = allocationRate;
        }
    }

    /** What {@link #top} orders by (largest first). */
    public enum Order {
        LIVE, ALLOCATED, HELD, ALLOCATION_RATE
    }

    /** The tick window of the allocation rate. */
    static final long TICK_NANOS = 1_000_000_000L;

    // Per site id, STRIDE doubles: allocated bytes, allocated objects, live bytes, live objects, held bytes,
    // held objects, allocated bytes at the last tick, allocation rate (bytes/s) over the last tick window.
    private static final int STRIDE = 8;
    private static final int ALLOC_BYTES = 0;
    private static final int ALLOC_OBJECTS = 1;
    private static final int LIVE_BYTES = 2;
    private static final int LIVE_OBJECTS = 3;
    private static final int HELD_BYTES = 4;
    private static final int HELD_OBJECTS = 5;
    private static final int TICK_ALLOC = 6;
    private static final int RATE = 7;
    // Per site id, COUNTS longs: samples, live samples, held samples.
    private static final int COUNTS = 3;

    private final Object lock = new Object();
    private double[] sums = new double[STRIDE * 256];
    private long[] counts = new long[COUNTS * 256];
    private double liveBytes;
    private double allocatedBytes;
    private double heldBytes;
    private double tickAllocated;
    private double allocationRate;
    private long lastTick = System.nanoTime();
    /**
     * Bytecode samples allocated since the start of the last processed GC (roughly in allocation order), not yet
     * held: they become held when a GC that started after them has been processed and they survived it.
     */
    private final ArrayDeque<SampleRef> recent = new ArrayDeque<>();
    /** Start ({@link System#nanoTime()}) of the GC the held figures refer to. */
    private long heldAsOf;
    private boolean heldKnown;
    /** Whether bytecode samples wait in {@link #recent} (GCs are observed: option {@code gc}). */
    private final boolean trackHeld;

    /**
     * Figures of one capture, all zero.
     *
     * @param trackHeld whether GCs will be processed ({@link #gcProcessed}) for bytecode samples, so that they are
     *                  kept until then
     */
    LiveSites(boolean trackHeld) {
        this.trackHeld = trackHeld;
    }

    /** @return the weight ({@code 1/p}) of a sample of {@code size} bytes at mean interval {@code mean} */
    static double weight(long size, double mean) {
        double p = -Math.expm1(-size / mean);
        return p > 0 ? 1 / p : 1;
    }

    /** A bytecode sample (its reference is tracked by {@link Liveness}). */
    void sampled(SampleRef r) {
        if (r.site < 0) {
            return;
        }
        synchronized (lock) {
            addSampled(r.site, r.size, r.weight, true);
            if (trackHeld) {
                recent.addLast(r);
            }
        }
    }

    /** A JVM sample of {@code size} bytes with weight {@code w} whose collection is tracked. */
    void sampled(int site, long size, double w) {
        if (site < 0) {
            return;
        }
        synchronized (lock) {
            addSampled(site, size, w, true);
        }
    }

    /** A sampled allocation whose collection is not tracked: counts as allocated, never as live or held. */
    void allocatedOnly(int site, long size, double w) {
        if (site < 0) {
            return;
        }
        synchronized (lock) {
            addSampled(site, size, w, false);
        }
    }

    private void addSampled(int site, long size, double w, boolean live) {
        ensure(site);
        int i = site * STRIDE;
        sums[i + ALLOC_BYTES] += size * w;
        sums[i + ALLOC_OBJECTS] += w;
        counts[site * COUNTS]++;
        allocatedBytes += size * w;
        if (live) {
            sums[i + LIVE_BYTES] += size * w;
            sums[i + LIVE_OBJECTS] += w;
            counts[site * COUNTS + 1]++;
            liveBytes += size * w;
        }
    }

    /** A bytecode sample was collected (its reference was settled by the caller). */
    void collected(SampleRef r) {
        if (r.site < 0) {
            return;
        }
        synchronized (lock) {
            boolean wasHeld = r.held;
            r.held = false;
            removeCollected(r.site, r.size, r.weight, wasHeld);
        }
    }

    /** A JVM sample was collected; {@code wasHeld}: {@link #becameHeld} was called for it. */
    void collected(int site, long size, double w, boolean wasHeld) {
        if (site < 0) {
            return;
        }
        synchronized (lock) {
            removeCollected(site, size, w, wasHeld);
        }
    }

    private void removeCollected(int site, long size, double w, boolean wasHeld) {
        ensure(site);
        int i = site * STRIDE;
        sums[i + LIVE_BYTES] = Math.max(0, sums[i + LIVE_BYTES] - size * w);
        sums[i + LIVE_OBJECTS] = Math.max(0, sums[i + LIVE_OBJECTS] - w);
        counts[site * COUNTS + 1]--;
        liveBytes = Math.max(0, liveBytes - size * w);
        if (wasHeld) {
            sums[i + HELD_BYTES] = Math.max(0, sums[i + HELD_BYTES] - size * w);
            sums[i + HELD_OBJECTS] = Math.max(0, sums[i + HELD_OBJECTS] - w);
            counts[site * COUNTS + 2]--;
            heldBytes = Math.max(0, heldBytes - size * w);
        }
    }

    /** A JVM sample was seen alive after a collection that started after it was taken: it is held from now on. */
    void becameHeld(int site, long size, double w) {
        if (site < 0) {
            return;
        }
        synchronized (lock) {
            addHeld(site, size, w);
        }
    }

    private void addHeld(int site, long size, double w) {
        ensure(site);
        int i = site * STRIDE;
        sums[i + HELD_BYTES] += size * w;
        sums[i + HELD_OBJECTS] += w;
        counts[site * COUNTS + 2]++;
        heldBytes += size * w;
    }

    /**
     * The held figures now refer to the collection that started at {@code gcStartNanos} (the JVM sampler: every
     * sample has been judged against it; later calls with an older start change nothing).
     */
    void heldAsOf(long gcStartNanos) {
        synchronized (lock) {
            if (!heldKnown || gcStartNanos > heldAsOf) {
                heldKnown = true;
                heldAsOf = gcStartNanos;
            }
        }
    }

    /**
     * A GC that started at {@code gcStartNanos} has been processed: the references it cleared were drained (so its
     * garbage is settled). Bytecode samples allocated before its start that are still unsettled become held.
     */
    void gcProcessed(long gcStartNanos) {
        synchronized (lock) {
            if (heldKnown && gcStartNanos <= heldAsOf) {
                return;
            }
            heldKnown = true;
            heldAsOf = gcStartNanos;
            for (SampleRef r = recent.peekFirst(); r != null && r.allocatedNanos < gcStartNanos;
                 r = recent.peekFirst()) {
                recent.pollFirst();
                if (r.settled() || r.site < 0) {
                    continue;
                }
                r.held = true;
                addHeld(r.site, r.size, r.weight);
            }
        }
    }

    /** Closes the allocation-rate window when it is at least {@link #TICK_NANOS} old (background thread). */
    void tick(long nowNanos) {
        synchronized (lock) {
            long dt = nowNanos - lastTick;
            if (dt < TICK_NANOS) {
                return;
            }
            double perSecond = 1e9 / dt;
            for (int i = 0; i + STRIDE <= sums.length; i += STRIDE) {
                double a = sums[i + ALLOC_BYTES];
                sums[i + RATE] = (a - sums[i + TICK_ALLOC]) * perSecond;
                sums[i + TICK_ALLOC] = a;
            }
            allocationRate = (allocatedBytes - tickAllocated) * perSecond;
            tickAllocated = allocatedBytes;
            lastTick = nowNanos;
        }
    }

    private void ensure(int site) {
        if ((site + 1) * STRIDE > sums.length) {
            int n = Math.max(sums.length * 2, (site + 1) * STRIDE);
            sums = Arrays.copyOf(sums, n);
            counts = Arrays.copyOf(counts, n / STRIDE * COUNTS);
        }
    }

    /** Forgets the bytecode samples waiting to be judged (the capture ended): no reference is kept past it. */
    void release() {
        synchronized (lock) {
            recent.clear();
        }
    }

    /** @return estimated live bytes over all sites */
    public long liveBytes() {
        synchronized (lock) {
            return Math.round(liveBytes);
        }
    }

    /** @return estimated allocated bytes over all sites since the capture started */
    public long allocatedBytes() {
        synchronized (lock) {
            return Math.round(allocatedBytes);
        }
    }

    /** @return estimated held bytes over all sites (see the class comment), 0 before the first GC judged */
    public long heldBytes() {
        synchronized (lock) {
            return Math.round(heldBytes);
        }
    }

    /** @return {@link System#nanoTime()} at the start of the GC the held figures refer to, or -1 when none yet */
    public long heldAsOfNanos() {
        synchronized (lock) {
            return heldKnown ? heldAsOf : -1;
        }
    }

    /** @return estimated bytes allocated per second over all sites during the last completed tick window */
    public long allocationRate() {
        synchronized (lock) {
            return Math.round(allocationRate);
        }
    }

    /**
     * @return estimated bytes allocated per site since the capture started, indexed by site id (rounded); a cheap
     *         snapshot for diffs (one array, no per-site objects)
     */
    public long[] allocatedBytesBySite() {
        int registered = SiteTable.size(); // outside the lock: never hold two locks
        synchronized (lock) {
            int n = Math.min(registered, sums.length / STRIDE);
            long[] out = new long[n];
            for (int site = 0; site < n; site++) {
                out[site] = Math.round(sums[site * STRIDE + ALLOC_BYTES]);
            }
            return out;
        }
    }

    /**
     * @param n     how many sites at most
     * @param order what to order by; sites with nothing in that figure are left out
     * @return the top sites, largest first
     */
    public List<Usage> top(int n, Order order) {
        List<Usage> all = new ArrayList<>();
        synchronized (lock) {
            for (int site = 0; (site + 1) * STRIDE <= sums.length; site++) {
                int i = site * STRIDE;
                int c = site * COUNTS;
                long samples = counts[c];
                if (samples == 0 || order == Order.LIVE && counts[c + 1] <= 0
                        || order == Order.HELD && counts[c + 2] <= 0
                        || order == Order.ALLOCATION_RATE && sums[i + RATE] < 0.5) {
                    continue;
                }
                all.add(new Usage(site, Math.round(sums[i + LIVE_BYTES]), Math.round(sums[i + LIVE_OBJECTS]),
                        counts[c + 1], Math.round(sums[i + ALLOC_BYTES]), Math.round(sums[i + ALLOC_OBJECTS]),
                        samples, Math.round(sums[i + HELD_BYTES]), Math.round(sums[i + HELD_OBJECTS]),
                        Math.round(sums[i + RATE])));
            }
        }
        all.sort(new ByFigure(order));
        return all.size() > n ? new ArrayList<>(all.subList(0, Math.max(0, n))) : all;
    }

    /** Largest first by one figure, then by site id. A class, not a lambda: nothing to bootstrap in the JVM. */
    private static final class ByFigure implements Comparator<Usage> {
        private final Order order;

        ByFigure(Order order) {
            this.order = order;
        }

        private long figure(Usage u) {
            switch (order) {
                case LIVE:
                    return u.liveBytes;
                case HELD:
                    return u.heldBytes;
                case ALLOCATION_RATE:
                    return u.allocationRate;
                default:
                    return u.allocatedBytes;
            }
        }

        @Override
        public int compare(Usage a, Usage b) {
            int c = Long.compare(figure(b), figure(a));
            return c != 0 ? c : Integer.compare(a.site, b.site);
        }
    }
}
