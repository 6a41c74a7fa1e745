package io.memscope.agent.capture;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Per-thread capture state, touched only by its own thread on the hot path (no atomics, no locks): the recursion
 * guard, bytes until the next sample, the thread's random generator, and exact per-site counters. Counters of dead
 * threads are folded into {@link Capture}'s totals by the background thread; live threads' counters are read
 * without synchronization at the end (exact once the threads are quiet).
 */
final class ThreadState {
    private static final ThreadLocal<ThreadState> LOCAL = new ThreadLocal<>();
    private static final ConcurrentHashMap<Thread, Boolean> CREATING = new ConcurrentHashMap<>();
    static final ConcurrentLinkedQueue<ThreadState> ALL = new ConcurrentLinkedQueue<>();

    final Thread thread;
    /** Recursion guard: true while memscope code runs on this thread; hooks then return at once. */
    boolean busy;
    /** Bytes left until the next sampled allocation. */
    long untilSample;
    private long rng;
    /** Exact mode: {@code [2 * site]} = allocations, {@code [2 * site + 1]} = bytes (adjacent: one cache line). */
    long[] counts = new long[0];

    private ThreadState(Thread thread, double mean) {
        this.thread = thread;
        this.rng = System.nanoTime() ^ (thread.hashCode() * 0x9E3779B97F4A7C15L) | 1;
        this.untilSample = nextInterval(mean);
    }

    /** @return this thread's state, created on first use; null while it is being created (recursion) */
    static ThreadState current() {
        ThreadState ts = LOCAL.get();
        return ts != null ? ts : create();
    }

    private static ThreadState create() {
        Thread t = Thread.currentThread();
        if (CREATING.putIfAbsent(t, Boolean.TRUE) != null) {
            return null;
        }
        try {
            ThreadState ts = new ThreadState(t, Hooks.mean);
            ts.busy = true;
            LOCAL.set(ts);
            ALL.add(ts);
            ts.busy = false;
            return ts;
        } finally {
            CREATING.remove(t);
        }
    }

    /** @return an exponentially distributed number of bytes with the given mean (at least 1) */
    long nextInterval(double mean) {
        long x = rng;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        rng = x;
        double u = ((x >>> 11) + 1) * 0x1.0p-53; // (0, 1]
        return Math.max(1, (long) (-Math.log(u) * mean));
    }

    void count(int site, long size) {
        long[] c = counts;
        int i = site << 1;
        if (i + 1 >= c.length) {
            c = grow(i);
        }
        c[i]++;
        c[i + 1] += size;
    }

    private long[] grow(int index) {
        int n = Math.max(index + 2, counts.length * 2);
        busy = true;
        try {
            counts = java.util.Arrays.copyOf(counts, n);
            return counts;
        } finally {
            busy = false;
        }
    }
}
