package io.memscope.scope;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Statistics per scope path written by one thread at a time: the thread that holds the shard (a platform thread
 * for its whole life, a virtual thread while it has a scope open). Additive counters and maxima, so that the
 * tracker's figures are the sum (and maximum) over all shards ever created; a shard changes hands without being
 * folded anywhere.
 *
 * <pre>
 * values[path * STRIDE + field], one row of STRIDE longs per path id:
 * +---------+-------+----------+--------+---------+-----------+----------------+-----------+-----------+--------+
 * | ENTRIES | TASKS | TOTAL_NS | MAX_NS | SELF_NS | ALLOCATED | SELF_ALLOCATED | MAX_ALLOC | NO_ALLOC  | FORCED |
 * +---------+-------+----------+--------+---------+-----------+----------------+-----------+-----------+--------+
 * </pre>
 *
 * The holder writes with opaque stores, so that a reader on another thread never sees a torn value, only values
 * that were stored (possibly an exit or two behind); readers read the published array, which the holder replaces
 * (copying it) when a new path id does not fit.
 */
final class StatsShard {
    static final int ENTRIES = 0;
    static final int TASKS = 1;
    static final int TOTAL_NS = 2;
    static final int MAX_NS = 3;
    static final int SELF_NS = 4;
    static final int ALLOCATED = 5;
    static final int SELF_ALLOCATED = 6;
    static final int MAX_ALLOCATED = 7;
    static final int NO_ALLOCATION = 8;
    static final int FORCED = 9;
    static final int STRIDE = 10;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        // Link the VarHandle's access modes now: linking allocates (method types, lambda forms), and the first
        // exit runs inside the enclosing scope, whose bytes must not include memscope's own
        long[] probe = new long[1];
        LONGS.setOpaque(probe, 0, (long) LONGS.getOpaque(probe, 0) + 1);
    }

    private volatile long[] values;

    StatsShard(int paths) {
        values = new long[Math.max(paths, 4) * STRIDE];
    }

    /** @return whether path {@code id} has a row (else the holder calls {@link #grow}) */
    boolean fits(int id) {
        return (id + 1) * STRIDE <= values.length;
    }

    /** Grows to hold path {@code id} (the holder only; allocates). */
    void grow(int id) {
        long[] v = values;
        int n = Math.max(v.length * 2, (id + 1) * STRIDE * 2);
        long[] bigger = new long[n];
        System.arraycopy(v, 0, bigger, 0, v.length);
        values = bigger;
    }

    /**
     * Adds one exit of path {@code id} (the holder only; the row exists).
     *
     * @param bytes     allocated bytes inside, -1 when unknown (then {@code selfBytes} is ignored)
     * @param forced    closed by the exit of an enclosing scope, not by its own close
     * @param counts    false for a folded scope nested inside {@code (other)}: counted as an entry only
     */
    void add(int id, boolean task, long nanos, long selfNanos, long bytes, long selfBytes, boolean forced,
             boolean counts) {
        long[] v = values;
        int o = id * STRIDE;
        inc(v, o + ENTRIES, 1);
        if (task) {
            inc(v, o + TASKS, 1);
        }
        if (forced) {
            inc(v, o + FORCED, 1);
        }
        if (!counts) {
            return;
        }
        inc(v, o + TOTAL_NS, nanos);
        max(v, o + MAX_NS, nanos);
        inc(v, o + SELF_NS, selfNanos);
        if (bytes < 0) {
            inc(v, o + NO_ALLOCATION, 1);
        } else {
            inc(v, o + ALLOCATED, bytes);
            inc(v, o + SELF_ALLOCATED, selfBytes);
            max(v, o + MAX_ALLOCATED, bytes);
        }
    }

    private static void inc(long[] v, int i, long delta) {
        LONGS.setOpaque(v, i, (long) LONGS.getOpaque(v, i) + delta);
    }

    private static void max(long[] v, int i, long value) {
        if (value > (long) LONGS.getOpaque(v, i)) {
            LONGS.setOpaque(v, i, value);
        }
    }

    /** Adds this shard's row of path {@code id} into {@code into} (sums, and maxima for the MAX fields). */
    void addTo(int id, long[] into) {
        long[] v = values;
        int o = id * STRIDE;
        if (o + STRIDE > v.length) {
            return;
        }
        for (int f = 0; f < STRIDE; f++) {
            long x = (long) LONGS.getOpaque(v, o + f);
            if (f == MAX_NS || f == MAX_ALLOCATED) {
                into[f] = Math.max(into[f], x);
            } else {
                into[f] += x;
            }
        }
    }
}
