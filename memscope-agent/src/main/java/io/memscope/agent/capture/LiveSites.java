package io.memscope.agent.capture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * One capture's running per-site estimates of allocated, live, held and unconfirmed heap and of the allocation rate,
 * kept while the program runs: updated when an allocation is sampled, when a sampled object is seen collected,
 * surviving a collection or confirmed reachable, and once a second ({@link #tick}).
 *
 * <p>Estimates are Horvitz-Thompson: a sample of {@code s} bytes drawn with probability
 * {@code p = 1 - exp(-s / interval)} stands for {@code 1/p} objects and {@code s/p} bytes, so the sums are unbiased
 * estimates of the true figures.
 * <ul>
 *   <li><b>live</b>: sampled objects not yet seen collected. An object that became unreachable counts until a GC
 *       clears its weak reference and memscope looks (the JVM sampler: right after each collection; the bytecode
 *       sampler: when the Reference Handler enqueues the reference, up to 100 ms later).</li>
 *   <li><b>held</b> (confirmed): sampled objects a collection that examined the whole heap judged (allocated before
 *       its snapshot) and did not free: reachable at that collection, and not seen collected since. Only such a
 *       collection confirms anything ({@link CollectionKinds}: a full collection, the end of a G1 marking, a ZGC major
 *       or non-generational cycle, a Shenandoah cycle, memscope's own check at the end of a capture).</li>
 *   <li><b>unconfirmed</b>: sampled objects that survived a collection that started after they were allocated but
 *       that no whole-heap collection has judged yet. A young collection does not look at the old generation: an
 *       object promoted there may be garbage already, so surviving young collections proves nothing. Never counted
 *       as held; shown beside it.</li>
 *   <li><b>allocation rate</b>: estimated bytes allocated per second during the last completed {@link #tick}
 *       window (about one second).</li>
 * </ul>
 * A sample moves {@link #NEW} (allocated since the latest collection) to {@link #UNCONFIRMED} to {@link #CONFIRMED},
 * or from any of them to collected. With the JVM sampler its library reports each move ({@link JvmtiHeapSampler});
 * with the bytecode sampler the GCs the listener reports, once the references they cleared were drained
 * ({@link #gcProcessed}).
 *
 * <p>Samples are rare (one per {@code interval} bytes per thread on average): updates take a lock.
 */
public final class LiveSites {
    /**
     * One site's figures at the moment of a {@link #top} call. Bytes and objects are estimates (rounded).
     *
     * @param site             the site's id in the recording's site table
     * @param heldBytes        confirmed: reachable at the latest collection that examined the whole heap (see the
     *                         class comment); {@code heldObjects} likewise
     * @param unconfirmedBytes survived a collection but not judged by one that examined the whole heap: may be garbage
     * @param allocationRate   estimated bytes per second allocated during the last completed tick window
     */
    public record Usage(int site, long liveBytes, long liveObjects, long liveSamples, long allocatedBytes,
                        long allocatedObjects, long samples, long heldBytes, long heldObjects, long unconfirmedBytes,
                        long allocationRate) {
    }

    /** What {@link #top} orders by (largest first). */
    public enum Order {
        LIVE, ALLOCATED, HELD, UNCONFIRMED, ALLOCATION_RATE
    }

    /** The tick window of the allocation rate. */
    static final long TICK_NANOS = 1_000_000_000L;

    /** A sample allocated since the latest collection (or not yet judged by one). */
    static final int NEW = 0;
    /** A sample that survived a collection no whole-heap collection has judged yet. */
    static final int UNCONFIRMED = 1;
    /** A sample reachable at a collection that examined the whole heap. */
    static final int CONFIRMED = 2;

    // Per site id, STRIDE doubles: allocated bytes, allocated objects, live bytes, live objects, held bytes,
    // held objects, allocated bytes at the last tick, allocation rate (bytes/s) over the last tick window,
    // unconfirmed bytes, unconfirmed objects.
    private static final int STRIDE = 10;
    private static final int ALLOC_BYTES = 0;
    private static final int ALLOC_OBJECTS = 1;
    private static final int LIVE_BYTES = 2;
    private static final int LIVE_OBJECTS = 3;
    private static final int HELD_BYTES = 4;
    private static final int HELD_OBJECTS = 5;
    private static final int TICK_ALLOC = 6;
    private static final int RATE = 7;
    private static final int UNCONF_BYTES = 8;
    private static final int UNCONF_OBJECTS = 9;
    // Per site id, COUNTS longs: samples, live samples, held samples, unconfirmed samples.
    private static final int COUNTS = 4;

    private final Object lock = new Object();
    private double[] sums = new double[STRIDE * 256];
    private long[] counts = new long[COUNTS * 256];
    private double liveBytes;
    private double allocatedBytes;
    private double heldBytes;
    private double unconfirmedBytes;
    private double tickAllocated;
    private double allocationRate;
    private long lastTick = System.nanoTime();
    /**
     * Bytecode samples allocated since the start of the last processed GC (roughly in allocation order), not yet
     * judged: they become unconfirmed when a GC that started after them has been processed and they survived it.
     */
    private final ArrayDeque<SampleRef> recent = new ArrayDeque<>();
    /** Bytecode samples that survived a GC, waiting for one that examines the whole heap (may hold settled ones). */
    private final ArrayDeque<SampleRef> surviving = new ArrayDeque<>();
    private long survivingLive;
    /** Snapshot ({@link System#nanoTime()}) of the whole-heap collection the held figures refer to. */
    private long heldAsOf;
    private boolean heldKnown;
    /** Start of the latest collection processed (the unconfirmed figures' time). */
    private long lastGcStart;
    private boolean gcSeen;
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
            int state = r.state;
            r.state = NEW;
            if (state == UNCONFIRMED) {
                survivingLive--;
            }
            removeCollected(r.site, r.size, r.weight, state);
        }
    }

    /** A JVM sample was collected; {@code state}: where it was counted ({@link #NEW}, ...). */
    void collected(int site, long size, double w, int state) {
        if (site < 0) {
            return;
        }
        synchronized (lock) {
            removeCollected(site, size, w, state);
        }
    }

    private void removeCollected(int site, long size, double w, int state) {
        ensure(site);
        int i = site * STRIDE;
        sums[i + LIVE_BYTES] = Math.max(0, sums[i + LIVE_BYTES] - size * w);
        sums[i + LIVE_OBJECTS] = Math.max(0, sums[i + LIVE_OBJECTS] - w);
        counts[site * COUNTS + 1]--;
        liveBytes = Math.max(0, liveBytes - size * w);
        leave(site, size, w, state);
    }

    /** Takes a sample's weight out of the figure of its state. */
    private void leave(int site, long size, double w, int state) {
        int i = site * STRIDE;
        if (state == CONFIRMED) {
            sums[i + HELD_BYTES] = Math.max(0, sums[i + HELD_BYTES] - size * w);
            sums[i + HELD_OBJECTS] = Math.max(0, sums[i + HELD_OBJECTS] - w);
            if (--counts[site * COUNTS + 2] <= 0) {
                counts[site * COUNTS + 2] = 0;
                sums[i + HELD_BYTES] = 0;
                sums[i + HELD_OBJECTS] = 0;
            }
            heldBytes = Math.max(0, heldBytes - size * w);
        } else if (state == UNCONFIRMED) {
            sums[i + UNCONF_BYTES] = Math.max(0, sums[i + UNCONF_BYTES] - size * w);
            sums[i + UNCONF_OBJECTS] = Math.max(0, sums[i + UNCONF_OBJECTS] - w);
            if (--counts[site * COUNTS + 3] <= 0) {
                counts[site * COUNTS + 3] = 0;
                sums[i + UNCONF_BYTES] = 0;
                sums[i + UNCONF_OBJECTS] = 0;
            }
            unconfirmedBytes = Math.max(0, unconfirmedBytes - size * w);
        }
    }

    /** Adds a sample's weight to the figure of its state. */
    private void enter(int site, long size, double w, int state) {
        int i = site * STRIDE;
        if (state == CONFIRMED) {
            sums[i + HELD_BYTES] += size * w;
            sums[i + HELD_OBJECTS] += w;
            counts[site * COUNTS + 2]++;
            heldBytes += size * w;
        } else if (state == UNCONFIRMED) {
            sums[i + UNCONF_BYTES] += size * w;
            sums[i + UNCONF_OBJECTS] += w;
            counts[site * COUNTS + 3]++;
            unconfirmedBytes += size * w;
        }
    }

    /**
     * A JVM sample moved: it survived a collection ({@link #UNCONFIRMED}) or was judged reachable by one that examined
     * the whole heap ({@link #CONFIRMED}).
     */
    void moved(int site, long size, double w, int from, int to) {
        if (site < 0 || from == to) {
            return;
        }
        synchronized (lock) {
            ensure(site);
            leave(site, size, w, from);
            enter(site, size, w, to);
        }
    }

    /**
     * The held figures now refer to the whole-heap collection whose snapshot was {@code snapshotNanos} (the JVM
     * sampler: every sample it judged has been confirmed; later calls with an older snapshot change nothing).
     */
    void heldAsOf(long snapshotNanos) {
        synchronized (lock) {
            if (!heldKnown || snapshotNanos > heldAsOf) {
                heldKnown = true;
                heldAsOf = snapshotNanos;
            }
        }
    }

    /** The unconfirmed figures now refer to the collection that started at {@code gcStartNanos}. */
    void survivorsAsOf(long gcStartNanos) {
        synchronized (lock) {
            if (!gcSeen || gcStartNanos > lastGcStart) {
                gcSeen = true;
                lastGcStart = gcStartNanos;
            }
        }
    }

    /**
     * A GC that started at {@code gcStartNanos} has been processed: the references it cleared were drained (so its
     * garbage is settled). Bytecode samples allocated before its start that are still unsettled survived it; when it
     * examined the whole heap ({@code wholeHeapSnapshot} not {@link CollectionLog#NO_VERDICT}), those allocated before
     * its snapshot are confirmed.
     */
    void gcProcessed(long gcStartNanos, long wholeHeapSnapshot) {
        synchronized (lock) {
            boolean newer = !gcSeen || gcStartNanos > lastGcStart;
            if (newer) {
                gcSeen = true;
                lastGcStart = gcStartNanos;
                for (SampleRef r = recent.peekFirst(); r != null && r.allocatedNanos < gcStartNanos;
                     r = recent.peekFirst()) {
                    recent.pollFirst();
                    if (r.settled() || r.site < 0) {
                        continue;
                    }
                    ensure(r.site);
                    r.state = UNCONFIRMED;
                    enter(r.site, r.size, r.weight, UNCONFIRMED);
                    surviving.addLast(r);
                    survivingLive++;
                }
            }
            if (wholeHeapSnapshot != CollectionLog.NO_VERDICT) {
                for (java.util.Iterator<SampleRef> it = surviving.iterator(); it.hasNext(); ) {
                    SampleRef r = it.next();
                    if (r.settled() || r.state != UNCONFIRMED) {
                        it.remove();
                        continue;
                    }
                    if (r.allocatedNanos < wholeHeapSnapshot) {
                        leave(r.site, r.size, r.weight, UNCONFIRMED);
                        enter(r.site, r.size, r.weight, CONFIRMED);
                        r.state = CONFIRMED;
                        survivingLive--;
                        it.remove();
                    }
                }
                if (!heldKnown || wholeHeapSnapshot > heldAsOf) {
                    heldKnown = true;
                    heldAsOf = wholeHeapSnapshot;
                }
            } else if (surviving.size() > 64 && surviving.size() > 2 * survivingLive) {
                surviving.removeIf(r -> r.settled() || r.state != UNCONFIRMED); // collected ones, not to pile up
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
        int have = sums.length / STRIDE;
        if (site >= have) {
            // doubling, but not past the site table's bound: the site beyond it would double the arrays once more
            // (at the default bound 14 MiB of the agent's heap for one site)
            int sites = (int) Math.max(site + 1L, Math.min(2L * have, SiteTable.limit() + 1L));
            sums = Arrays.copyOf(sums, sites * STRIDE);
            counts = Arrays.copyOf(counts, sites * COUNTS);
        }
    }

    /** @return sites the arrays have room for */
    int capacity() {
        synchronized (lock) {
            return sums.length / STRIDE;
        }
    }

    /** Forgets the bytecode samples waiting to be judged (the capture ended): no reference is kept past it. */
    void release() {
        synchronized (lock) {
            recent.clear();
            surviving.clear();
            survivingLive = 0;
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

    /**
     * @return estimated held (confirmed) bytes over all sites (see the class comment), 0 before the first collection
     *         that examined the whole heap
     */
    public long heldBytes() {
        synchronized (lock) {
            return Math.round(heldBytes);
        }
    }

    /** @return estimated unconfirmed bytes over all sites: survived a collection, not judged by a whole-heap one */
    public long unconfirmedBytes() {
        synchronized (lock) {
            return Math.round(unconfirmedBytes);
        }
    }

    /**
     * @return {@link System#nanoTime()} of the snapshot of the whole-heap collection the held figures refer to, or -1
     *         when none yet
     */
    public long heldAsOfNanos() {
        synchronized (lock) {
            return heldKnown ? heldAsOf : -1;
        }
    }

    /** @return {@link System#nanoTime()} at the start of the latest collection judged, or -1 when none yet */
    public long lastCollectionNanos() {
        synchronized (lock) {
            return gcSeen ? lastGcStart : -1;
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
     * @param order what to order by; sites with nothing in that figure are left out, except that by held bytes the
     *              sites with unconfirmed bytes only come after the held ones (before the first collection of the whole
     *              heap, or for memory that survived young collections since, they are what may be held)
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
                        || order == Order.HELD && counts[c + 2] <= 0 && counts[c + 3] <= 0
                        || order == Order.UNCONFIRMED && counts[c + 3] <= 0
                        || order == Order.ALLOCATION_RATE && sums[i + RATE] < 0.5) {
                    continue;
                }
                all.add(new Usage(site, Math.round(sums[i + LIVE_BYTES]), Math.round(sums[i + LIVE_OBJECTS]),
                        counts[c + 1], Math.round(sums[i + ALLOC_BYTES]), Math.round(sums[i + ALLOC_OBJECTS]),
                        samples, Math.round(sums[i + HELD_BYTES]), Math.round(sums[i + HELD_OBJECTS]),
                        Math.round(sums[i + UNCONF_BYTES]), Math.round(sums[i + RATE])));
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
                    return u.liveBytes();
                case HELD:
                    return u.heldBytes();
                case UNCONFIRMED:
                    return u.unconfirmedBytes();
                case ALLOCATION_RATE:
                    return u.allocationRate();
                default:
                    return u.allocatedBytes();
            }
        }

        @Override
        public int compare(Usage a, Usage b) {
            int c = Long.compare(figure(b), figure(a));
            if (c == 0 && order == Order.HELD) {
                c = Long.compare(b.unconfirmedBytes(), a.unconfirmedBytes());
            }
            return c != 0 ? c : Integer.compare(a.site(), b.site());
        }
    }
}
