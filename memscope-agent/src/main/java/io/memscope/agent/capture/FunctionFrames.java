package io.memscope.agent.capture;

import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * One thread's stack of profiled calls in progress and its statistics per (function, call site), written by that
 * thread only (plain fields); {@link FunctionProfile} sums them when it writes the recording.
 *
 * <pre>
 * statistics: an open-addressed table; slot i holds key (functionId &lt;&lt; 32 | callSiteId) and STRIDE longs:
 * +-------+-----------+----------+--------+-----------+----------+
 * | CALLS | RECURSIVE | TOTAL_NS | MAX_NS | ALLOCATED | NO_ALLOC |
 * +-------+-----------+----------+--------+-----------+----------+
 * </pre>
 */
final class FunctionFrames {
    static final int CALLS = 0;
    static final int RECURSIVE = 1;
    static final int TOTAL_NS = 2;
    static final int MAX_NS = 3;
    static final int ALLOCATED = 4;
    static final int NO_ALLOCATION = 5;
    static final int STRIDE = 6;
    /** Calls deeper than this on one thread are not timed (counted as recursive when they are). */
    static final int MAX_DEPTH = 2048;

    final WeakReference<Thread> thread;
    /** The capture's profile these frames belong to (a thread's frames from an earlier capture are replaced). */
    final FunctionProfile profile;
    int depth;
    int[] function = new int[16];
    int[] site = new int[16];
    boolean[] recursive = new boolean[16];
    long[] start = new long[16];
    long[] startBytes = new long[16];
    long[] ownAt = new long[16];
    /** The statistics, replaced (copied) when they grow; read by other threads. */
    volatile Table table = new Table(16);

    FunctionFrames(Thread t, FunctionProfile profile) {
        this.thread = new WeakReference<>(t);
        this.profile = profile;
    }

    /** @return whether {@code fid} is already on this thread's stack (a recursive call) */
    boolean onStack(int fid) {
        int[] f = function;
        for (int i = depth - 1; i >= 0; i--) {
            if (f[i] == fid) {
                return true;
            }
        }
        return false;
    }

    /** Makes room for one more frame (may allocate). @return false when {@link #MAX_DEPTH} calls are open */
    boolean ensureRoom() {
        if (depth < function.length) {
            return true;
        }
        if (depth >= MAX_DEPTH) {
            return false;
        }
        int n = Math.min(MAX_DEPTH, function.length * 2);
        function = Arrays.copyOf(function, n);
        site = Arrays.copyOf(site, n);
        recursive = Arrays.copyOf(recursive, n);
        start = Arrays.copyOf(start, n);
        startBytes = Arrays.copyOf(startBytes, n);
        ownAt = Arrays.copyOf(ownAt, n);
        return true;
    }

    /** @return the statistics row of (fid, site), added when new (may allocate) */
    int row(int fid, int siteId) {
        long key = (long) fid << 32 | (siteId & 0xFFFFFFFFL);
        Table t = table;
        int slot = t.find(key);
        if (slot >= 0) {
            return slot;
        }
        if ((t.used + 1) * 2 > t.keys.length) {
            t = t.grown();
            table = t;
        }
        return t.add(key);
    }

    /** An open-addressed table from key to a row of {@link #STRIDE} longs. */
    static final class Table {
        final long[] keys;
        final long[] values;
        int used;

        Table(int capacity) {
            keys = new long[capacity];
            values = new long[capacity * STRIDE];
        }

        int find(long key) {
            int mask = keys.length - 1;
            for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
                long k = keys[i];
                if (k == key) {
                    return i;
                }
                if (k == 0) {
                    return -1;
                }
            }
        }

        int add(long key) {
            int mask = keys.length - 1;
            int i = hash(key) & mask;
            while (keys[i] != 0) {
                i = (i + 1) & mask;
            }
            keys[i] = key;
            used++;
            return i;
        }

        Table grown() {
            Table t = new Table(keys.length * 2);
            for (int i = 0; i < keys.length; i++) {
                if (keys[i] != 0) {
                    int j = t.add(keys[i]);
                    System.arraycopy(values, i * STRIDE, t.values, j * STRIDE, STRIDE);
                }
            }
            return t;
        }

        private static int hash(long key) {
            long h = key * 0x9E3779B97F4A7C15L;
            return (int) (h ^ (h >>> 32));
        }
    }
}
