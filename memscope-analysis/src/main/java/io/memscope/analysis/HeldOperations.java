package io.memscope.analysis;

/**
 * The held ledgers' operations of a report's replay ({@link HeldReplay}), deferred in order and applied together: an
 * event's update of its site's and its stack's figures ({@link HeldLedger#allocated}, {@link HeldLedger#collected})
 * waits here until the replay next reads the ledgers (a crossing, the end) or {@value #CAPACITY} wait. Each ledger is
 * given the same operations in the same order as if applied at once, so the same figures bit for bit.
 *
 * <p>Why: the keys are thousands of sites and tens of thousands of stacks, met in any order, so nearly every update
 * misses the cache. Applied one per event, each miss waits behind the rest of its event's work; applied in a loop of
 * their own, after a loop that only reads the cells they will update ({@link HeldLedger#warm}: no branches, so the
 * processor issues the loads back to back), consecutive misses overlap. Likewise the sites' lifetimes
 * ({@link LifetimeMedian}), read only at the end.
 *
 * <p>Memory: the two queues' columns (about 60 KiB); never per event.
 */
final class HeldOperations {
    static final int CAPACITY = 1024;

    private final HeldLedger sites;
    private final HeldLedger stacks;
    /** Per operation: the site key, the stack key, -1 for an allocation else the epoch of the sample collected. */
    private final int[] site = new int[CAPACITY];
    private final int[] stack = new int[CAPACITY];
    private final int[] epoch = new int[CAPACITY];
    /** Per operation at {@code i * 3}: bytes, count and variance. */
    private final double[] figures = new double[CAPACITY * 3];
    private int ops;
    private final int[] lifetimeSite = new int[CAPACITY];
    private final long[] lifetimeAge = new long[CAPACITY];
    private int lifetimes;
    /** What {@link HeldLedger#warm} read: kept so that the compiler cannot drop the reads; meaningless. */
    private double warmth;

    HeldOperations(HeldLedger sites, HeldLedger stacks) {
        this.sites = sites;
        this.stacks = stacks;
    }

    /** A sample allocated now: {@code b} bytes, {@code n} objects, variance {@code v}. */
    void allocated(int siteKey, int stackKey, double b, double n, double v) {
        add(siteKey, stackKey, -1, b, n, v);
    }

    /** A sample allocated at {@code born} (boundaries crossed before it) collected now. */
    void collected(int siteKey, int stackKey, int born, double b, double n, double v) {
        add(siteKey, stackKey, born, b, n, v);
    }

    private void add(int siteKey, int stackKey, int born, double b, double n, double v) {
        if (ops == CAPACITY) {
            apply();
        }
        int i = ops++;
        site[i] = siteKey;
        stack[i] = stackKey;
        epoch[i] = born;
        figures[i * 3] = b;
        figures[i * 3 + 1] = n;
        figures[i * 3 + 2] = v;
    }

    /** A sample's lifetime for its site's median, {@code medians[siteKey]}. */
    void lifetime(LifetimeMedian[] medians, int siteKey, long ageNanos) {
        if (lifetimes == CAPACITY) {
            applyLifetimes(medians);
        }
        lifetimeSite[lifetimes] = siteKey;
        lifetimeAge[lifetimes++] = ageNanos;
    }

    /** Applies the ledgers' operations waiting, in order: call before anything reads the ledgers. */
    void apply() {
        int n = ops;
        if (n == 0) {
            return;
        }
        double[] f = figures;
        warmth += sites.warm(site, n) + stacks.warm(stack, n);
        for (int i = 0; i < n; i++) {
            int e = epoch[i];
            if (e < 0) {
                sites.allocated(site[i], f[i * 3], f[i * 3 + 1], f[i * 3 + 2]);
                stacks.allocated(stack[i], f[i * 3], f[i * 3 + 1], f[i * 3 + 2]);
            } else {
                sites.collected(site[i], f[i * 3], f[i * 3 + 1], f[i * 3 + 2], e);
                stacks.collected(stack[i], f[i * 3], f[i * 3 + 1], f[i * 3 + 2], e);
            }
        }
        ops = 0;
    }

    /** Adds the lifetimes waiting to their sites' medians, in order: call before the medians are read. */
    void applyLifetimes(LifetimeMedian[] medians) {
        for (int i = 0, n = lifetimes; i < n; i++) {
            medians[lifetimeSite[i]].add(lifetimeAge[i]);
        }
        lifetimes = 0;
    }
}
