package io.memscope.agent.capture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Running per-site estimates of allocated, live, held heap and allocation rate, kept while the program runs:
 * updated when an allocation is sampled, when a sampled object is seen collected ({@link Liveness}), when a GC has
 * been processed ({@link #gcProcessed}) and once a second ({@link #tick}).
 *
 * <p>Estimates are Horvitz-Thompson: a sample of {@code s} bytes drawn with probability
 * {@code p = 1 - exp(-s / interval)} stands for {@code 1/p} objects and {@code s/p} bytes, so the sums are unbiased
 * estimates of the true figures.
 * <ul>
 *   <li><b>live</b>: sampled objects not yet seen collected. An object that became unreachable counts until the GC
 *       clears its weak reference and the background thread sees it (up to one GC cycle plus 100 ms late).</li>
 *   <li><b>held</b>: sampled objects allocated before the start of the last processed GC and not collected by it
 *       (nor by an earlier one): reachable at that GC, as far as that GC looked. A GC is processed once the JVM's
 *       Reference Handler has enqueued the references it cleared and the background thread has drained them, so
 *       garbage a GC found is never held. A young collection does not look at the old generation: an object that
 *       died there stays held until a collection that examines the old generation (G1's concurrent cycle and mixed
 *       collections, a full GC) clears it. Objects allocated after that GC's start are live, not held.</li>
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

    private static final Object LOCK = new Object();
    private static double[] sums = new double[STRIDE * 1024];
    private static long[] counts = new long[COUNTS * 1024];
    private static double liveBytes;
    private static double allocatedBytes;
    private static double heldBytes;
    private static double tickAllocated;
    private static double allocationRate;
    private static long lastTick = System.nanoTime();
    /**
     * Samples allocated since the start of the last processed GC (roughly in allocation order), not yet held: they
     * become held when a GC that started after them has been processed and they survived it.
     */
    private static final ArrayDeque<SampleRef> RECENT = new ArrayDeque<>();
    /** Start ({@link System#nanoTime()}) of the last processed GC. */
    private static long heldAsOf;
    private static boolean heldKnown;
    /** Whether GCs are observed (option {@code gc}); without them nothing is held and {@link #RECENT} stays empty. */
    private static boolean trackHeld;

    private LiveSites() {
    }

    /** @return the weight ({@code 1/p}) of a sample of {@code size} bytes at mean interval {@code mean} */
    static double weight(long size, double mean) {
        double p = -Math.expm1(-size / mean);
        return p > 0 ? 1 / p : 1;
    }

    /** A sampled allocation (its reference is tracked by {@link Liveness}). */
    static void sampled(SampleRef r) {
        int site = r.site;
        if (site < 0) {
            return;
        }
        double w = r.weight;
        long size = r.size;
        synchronized (LOCK) {
            ensure(site);
            int i = site * STRIDE;
            sums[i + ALLOC_BYTES] += size * w;
            sums[i + ALLOC_OBJECTS] += w;
            sums[i + LIVE_BYTES] += size * w;
            sums[i + LIVE_OBJECTS] += w;
            counts[site * COUNTS]++;
            counts[site * COUNTS + 1]++;
            liveBytes += size * w;
            allocatedBytes += size * w;
            if (trackHeld) {
                RECENT.addLast(r);
            }
        }
    }

    /** A sampled object was collected (its reference was settled by the caller). */
    static void collected(SampleRef r) {
        int site = r.site;
        if (site < 0) {
            return;
        }
        double w = r.weight;
        long size = r.size;
        synchronized (LOCK) {
            ensure(site);
            int i = site * STRIDE;
            sums[i + LIVE_BYTES] = Math.max(0, sums[i + LIVE_BYTES] - size * w);
            sums[i + LIVE_OBJECTS] = Math.max(0, sums[i + LIVE_OBJECTS] - w);
            counts[site * COUNTS + 1]--;
            liveBytes = Math.max(0, liveBytes - size * w);
            if (r.held) {
                r.held = false;
                sums[i + HELD_BYTES] = Math.max(0, sums[i + HELD_BYTES] - size * w);
                sums[i + HELD_OBJECTS] = Math.max(0, sums[i + HELD_OBJECTS] - w);
                counts[site * COUNTS + 2]--;
                heldBytes = Math.max(0, heldBytes - size * w);
            }
        }
    }

    /**
     * A GC that started at {@code gcStartNanos} has been processed: the references it cleared were drained (so its
     * garbage is settled). Samples allocated before its start that are still unsettled become held.
     */
    static void gcProcessed(long gcStartNanos) {
        synchronized (LOCK) {
            if (heldKnown && gcStartNanos <= heldAsOf) {
                return;
            }
            heldKnown = true;
            heldAsOf = gcStartNanos;
            for (SampleRef r = RECENT.peekFirst(); r != null && r.allocatedNanos < gcStartNanos;
                 r = RECENT.peekFirst()) {
                RECENT.pollFirst();
                if (r.settled() || r.site < 0) {
                    continue;
                }
                ensure(r.site);
                int i = r.site * STRIDE;
                double w = r.weight;
                r.held = true;
                sums[i + HELD_BYTES] += r.size * w;
                sums[i + HELD_OBJECTS] += w;
                counts[r.site * COUNTS + 2]++;
                heldBytes += r.size * w;
            }
        }
    }

    /** Closes the allocation-rate window when it is at least {@link #TICK_NANOS} old (background thread). */
    static void tick(long nowNanos) {
        synchronized (LOCK) {
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

    private static void ensure(int site) {
        if ((site + 1) * STRIDE > sums.length) {
            int n = Math.max(sums.length * 2, (site + 1) * STRIDE);
            sums = Arrays.copyOf(sums, n);
            counts = Arrays.copyOf(counts, n / STRIDE * COUNTS);
        }
    }

    /**
     * Forgets everything (a new capture).
     *
     * @param withHeld whether GCs will be processed ({@link #gcProcessed}), so that held figures are kept
     */
    static void clear(boolean withHeld) {
        synchronized (LOCK) {
            trackHeld = withHeld;
            Arrays.fill(sums, 0);
            Arrays.fill(counts, 0);
            liveBytes = 0;
            allocatedBytes = 0;
            heldBytes = 0;
            tickAllocated = 0;
            allocationRate = 0;
            lastTick = System.nanoTime();
            RECENT.clear();
            heldKnown = false;
        }
    }

    /** @return estimated live bytes over all sites */
    public static long liveBytes() {
        synchronized (LOCK) {
            return Math.round(liveBytes);
        }
    }

    /** @return estimated allocated bytes over all sites since the capture started */
    public static long allocatedBytes() {
        synchronized (LOCK) {
            return Math.round(allocatedBytes);
        }
    }

    /** @return estimated held bytes over all sites (see the class comment), 0 before the first processed GC */
    public static long heldBytes() {
        synchronized (LOCK) {
            return Math.round(heldBytes);
        }
    }

    /** @return {@link System#nanoTime()} at the start of the GC the held figures refer to, or -1 when none yet */
    public static long heldAsOfNanos() {
        synchronized (LOCK) {
            return heldKnown ? heldAsOf : -1;
        }
    }

    /** @return estimated bytes allocated per second over all sites during the last completed tick window */
    public static long allocationRate() {
        synchronized (LOCK) {
            return Math.round(allocationRate);
        }
    }

    /**
     * @param n     how many sites at most
     * @param order what to order by; sites with nothing in that figure are left out
     * @return the top sites, largest first
     */
    public static List<Usage> top(int n, Order order) {
        List<Usage> all = new ArrayList<>();
        synchronized (LOCK) {
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
        Comparator<Usage> c;
        switch (order) {
            case LIVE:
                c = Comparator.comparingLong((Usage u) -> -u.liveBytes);
                break;
            case HELD:
                c = Comparator.comparingLong((Usage u) -> -u.heldBytes);
                break;
            case ALLOCATION_RATE:
                c = Comparator.comparingLong((Usage u) -> -u.allocationRate);
                break;
            default:
                c = Comparator.comparingLong((Usage u) -> -u.allocatedBytes);
        }
        all.sort(c.thenComparingInt(u -> u.site));
        return all.size() > n ? new ArrayList<>(all.subList(0, Math.max(0, n))) : all;
    }
}
