package io.memscope.agent.capture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Running per-site estimates of allocated and live (not yet collected) heap, kept while the program runs: updated
 * when an allocation is sampled and when a sampled object is seen collected ({@link Liveness}).
 *
 * <p>Estimates are Horvitz-Thompson: a sample of {@code s} bytes drawn with probability
 * {@code p = 1 - exp(-s / interval)} stands for {@code 1/p} objects and {@code s/p} bytes, so the sums are unbiased
 * estimates of the true figures. "Live" means not yet seen collected: an object that became unreachable counts
 * until the GC clears its weak reference and the background thread sees it (up to one GC cycle plus 100 ms late).
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

        Usage(int site, long liveBytes, long liveObjects, long liveSamples, long allocatedBytes,
              long allocatedObjects, long samples) {
            this.site = site;
            this.liveBytes = liveBytes;
            this.liveObjects = liveObjects;
            this.liveSamples = liveSamples;
            this.allocatedBytes = allocatedBytes;
            this.allocatedObjects = allocatedObjects;
            this.samples = samples;
        }
    }

    private final Object lock = new Object();
    /** Per site id: {@code [4 * site]} allocated bytes, {@code +1} allocated objects, {@code +2} live bytes, {@code +3} live objects. */
    private double[] sums = new double[4 * 1024];
    /** Per site id: {@code [2 * site]} samples, {@code +1} live samples. */
    private long[] counts = new long[2 * 1024];
    private double liveBytes;
    private double allocatedBytes;

    /** Figures of one capture, all zero. */
    LiveSites() {
    }

    /** @return the weight ({@code 1/p}) of a sample of {@code size} bytes at mean interval {@code mean} */
    static double weight(long size, double mean) {
        double p = -Math.expm1(-size / mean);
        return p > 0 ? 1 / p : 1;
    }

    /** A sampled allocation of {@code size} bytes with weight {@code w}. */
    void sampled(int site, long size, double w) {
        if (site < 0) {
            return;
        }
        synchronized (lock) {
            ensure(site);
            int i = site << 2;
            sums[i] += size * w;
            sums[i + 1] += w;
            sums[i + 2] += size * w;
            sums[i + 3] += w;
            counts[site << 1]++;
            counts[(site << 1) + 1]++;
            liveBytes += size * w;
            allocatedBytes += size * w;
        }
    }

    /** A sampled allocation whose collection is not tracked: counts as allocated, never as live. */
    void allocatedOnly(int site, long size, double w) {
        if (site < 0) {
            return;
        }
        synchronized (lock) {
            ensure(site);
            int i = site << 2;
            sums[i] += size * w;
            sums[i + 1] += w;
            counts[site << 1]++;
            allocatedBytes += size * w;
        }
    }

    /** A sampled object was collected. */
    void collected(int site, long size, double w) {
        if (site < 0) {
            return;
        }
        synchronized (lock) {
            ensure(site);
            int i = site << 2;
            sums[i + 2] = Math.max(0, sums[i + 2] - size * w);
            sums[i + 3] = Math.max(0, sums[i + 3] - w);
            counts[(site << 1) + 1]--;
            liveBytes = Math.max(0, liveBytes - size * w);
        }
    }

    private void ensure(int site) {
        if ((site << 2) + 3 >= sums.length) {
            int n = Math.max(sums.length * 2, (site + 1) << 2);
            sums = Arrays.copyOf(sums, n);
            counts = Arrays.copyOf(counts, n / 2);
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
     * @param n      how many sites at most
     * @param byLive order by live bytes (sites with nothing live left out) instead of allocated bytes
     * @return the top sites, largest first
     */
    public List<Usage> top(int n, boolean byLive) {
        List<Usage> all = new ArrayList<>();
        synchronized (lock) {
            for (int site = 0; (site << 2) + 3 < sums.length; site++) {
                int i = site << 2;
                long samples = counts[site << 1];
                if (samples == 0 || (byLive && counts[(site << 1) + 1] <= 0)) {
                    continue;
                }
                all.add(new Usage(site, Math.round(sums[i + 2]), Math.round(sums[i + 3]), counts[(site << 1) + 1],
                        Math.round(sums[i]), Math.round(sums[i + 1]), samples));
            }
        }
        Comparator<Usage> c = byLive ? Comparator.comparingLong((Usage u) -> -u.liveBytes)
                : Comparator.comparingLong((Usage u) -> -u.allocatedBytes);
        all.sort(c.thenComparingInt(u -> u.site));
        return all.size() > n ? new ArrayList<>(all.subList(0, Math.max(0, n))) : all;
    }
}
