package io.memscope.agent.capture;

import java.util.HashMap;
import java.util.Map;

/**
 * The scope each application thread had open over the recent past, so that the push can label a heap sample with
 * the scope path it was allocated in ({@code scope} label, e.g. {@code request/parse}): fed with every scope entry and
 * exit the recording drain moves ({@link ApiCapture}), asked by {@link PushTable} for the path open on a thread at a
 * sample's time.
 *
 * <p>Why by time and not "the thread's scope now": a sample reaches the push table when a drain moves it, up to a
 * drain period after it was taken, and the thread may have left the scope by then. A sample is therefore labelled
 * only once the edges up to its time are known ({@link #knownUntil}); until then it waits in the table.
 *
 * <p>Per thread: the path open before its oldest kept edge ({@code base}), and its edges since, in time order (each
 * with the path open after it: an entry opens its path, an exit returns to the path's parent). A lookup finds the
 * last edge at or before the sample's time. Kept edges are trimmed to what late samples may still ask
 * ({@link #forgetBefore}), at most {@value #MAX_EDGES} a thread and {@value #MAX_TOTAL_EDGES} in all. What a bound
 * made unknowable is answered {@link #UNKNOWN}, counted by the caller, never guessed.
 *
 * <p>Thread-safe: one lock (the drain writes, the push thread reads), held for a call.
 */
final class PushScopes {
    /** No scope open. */
    static final int NONE = 0;
    /** The path open at that time is no longer known (a bound dropped the edges that said). */
    static final int UNKNOWN = -1;
    /** Edges kept per thread at most (a thread's history grows from 8 as it needs). */
    static final int MAX_EDGES = 32_768;
    /** Edges kept over all threads at most (12 bytes each); beyond, the history before {@link #knownUntil} goes. */
    static final int MAX_TOTAL_EDGES = 1 << 20;
    /** Threads with kept edges or an open scope at most; beyond, all are forgotten (lookups before: unknown). */
    static final int MAX_THREADS = 16_384;
    /** Full path names cached at most (further ones are built again on each use). */
    static final int MAX_NAMES = 8192;
    /**
     * An edge is taken ({@code System.nanoTime()}) a little before it is published to the drain: a drain that started
     * at {@code t} has every edge taken before {@code t} minus this margin.
     */
    static final long PUBLISH_MARGIN_NANOS = 100_000_000L;

    /** The scope paths' tree: a path's parent and name. */
    interface Paths {
        /** @return the parent path's id, 0 for a top-level scope, -1 when {@code pathId} is not known */
        int parent(int pathId);

        /** @return the path's own name (its last element), or null when not known */
        String name(int pathId);

        /** @return whether any path exists yet (before the first, no sample can be in a scope) */
        boolean any();
    }

    private static final class ThreadEdges {
        int base;
        /** {@link #base} holds from this time on; {@code Long.MIN_VALUE}: since the capture began. */
        long baseFrom = Long.MIN_VALUE;
        long[] times = new long[8];
        int[] after = new int[8];
        int first;
        int count;

        /** @return 1 when the edge was added to the kept ones, 0 when it took the place of the oldest */
        int add(long nanos, int pathAfter) {
            int added = 1;
            if (count == times.length) {
                if (count < MAX_EDGES) {
                    grow();
                } else {
                    dropFirst();
                    added = 0;
                }
            }
            int i = (first + count) % times.length;
            times[i] = nanos;
            after[i] = pathAfter;
            count++;
            return added;
        }

        private void grow() {
            long[] t = new long[times.length * 2];
            int[] a = new int[t.length];
            for (int k = 0; k < count; k++) {
                int i = (first + k) % times.length;
                t[k] = times[i];
                a[k] = after[i];
            }
            times = t;
            after = a;
            first = 0;
        }

        private void dropFirst() {
            base = after[first];
            baseFrom = times[first];
            first = (first + 1) % times.length;
            count--;
        }

        /** The path open at {@code nanos}: after the last edge at or before it. */
        int at(long nanos) {
            int found = lastAtOrBefore(times, first, count, nanos);
            if (found >= 0) {
                return after[(first + found) % times.length];
            }
            return nanos >= baseFrom ? base : UNKNOWN;
        }

        /**
         * Folds the edges before {@code nanos} into the base.
         *
         * @return how many
         */
        int forgetBefore(long nanos) {
            int n = 0;
            while (count > 0 && times[first] < nanos) {
                dropFirst();
                n++;
            }
            return n;
        }
    }

    private final Paths paths;
    private final Map<Long, ThreadEdges> threads = new HashMap<>();
    private final Map<Integer, String> names = new HashMap<>();
    private long knownUntil = Long.MIN_VALUE;
    /** Edges kept over all threads. */
    private int edges;
    /** Lookups of threads not in {@link #threads} before this time are unknown (a bound forgot them). */
    private long forgottenUntil = Long.MIN_VALUE;

    PushScopes(Paths paths) {
        this.paths = paths;
    }

    /** A scope entry or exit, in each thread's order (the drain). */
    synchronized void edge(long nanos, long threadId, boolean exit, int pathId) {
        ThreadEdges t = threads.get(threadId);
        if (t == null) {
            if (threads.size() >= MAX_THREADS) {
                threads.clear();
                edges = 0;
                forgottenUntil = nanos;
            }
            t = new ThreadEdges();
            threads.put(threadId, t);
        }
        int after;
        if (!exit) {
            after = pathId;
        } else {
            int parent = paths.parent(pathId);
            after = parent < 0 ? UNKNOWN : parent;
        }
        edges += t.add(nanos, after);
        if (edges > MAX_TOTAL_EDGES) {
            forgetBefore(knownUntil);
        }
    }

    /** Every edge taken before {@code drainStartNanos} minus the publish margin has been given. */
    synchronized void drained(long drainStartNanos) {
        knownUntil = Math.max(knownUntil, drainStartNanos - PUBLISH_MARGIN_NANOS);
    }

    /** @return the time up to which every thread's edges are known */
    synchronized long knownUntil() {
        return knownUntil;
    }

    /**
     * @return the id of the path open on the thread at {@code nanos} ({@link #NONE}, or {@link #UNKNOWN}); only
     *         meaningful for {@code nanos <= knownUntil()}
     */
    synchronized int openAt(long threadId, long nanos) {
        ThreadEdges t = threads.get(threadId);
        if (t == null) {
            return nanos < forgottenUntil ? UNKNOWN : NONE;
        }
        return t.at(nanos);
    }

    /**
     * No lookup before {@code nanos} should come: edges before it are folded into each thread's base (a later lookup
     * before it is {@link #UNKNOWN}). Threads stay known (their history's memory shrinks) up to {@value #MAX_THREADS}.
     */
    synchronized void forgetBefore(long nanos) {
        for (ThreadEdges t : threads.values()) {
            edges -= t.forgetBefore(nanos);
            if (t.count == 0 && t.times.length > 8) { // kept, so that a late lookup knows what it cannot know
                t.times = new long[8];
                t.after = new int[8];
                t.first = 0;
            }
        }
    }

    /** @return edges kept over all threads */
    synchronized int edges() {
        return edges;
    }

    /** @return the path's full name ({@code a/b/c}), or null when it is not known */
    synchronized String name(int pathId) {
        String n = names.get(pathId);
        if (n != null) {
            return n;
        }
        StringBuilder b = new StringBuilder();
        int id = pathId;
        for (int depth = 0; id > 0 && depth < 256; depth++) {
            String own = paths.name(id);
            if (own == null) {
                return null;
            }
            b.insert(0, b.length() == 0 ? own : own + "/");
            id = paths.parent(id);
        }
        n = b.toString();
        if (names.size() < MAX_NAMES) {
            names.put(pathId, n);
        }
        return n;
    }

    /**
     * @return whether no scope path exists yet: a sample that arrives now was not taken in a scope (a path is made
     *         before its scope is entered, and that before anything is allocated in it)
     */
    boolean noPathsYet() {
        return !paths.any();
    }

    /** @return threads kept (for tests and the bound) */
    synchronized int threads() {
        return threads.size();
    }

    /**
     * A binary search of a circular buffer of ascending times: {@code count} of them from slot {@code first}.
     *
     * @return the position (0 .. count - 1, from {@code first}) of the last time at or before {@code nanos}, or -1
     */
    static int lastAtOrBefore(long[] times, int first, int count, long nanos) {
        int lo = 0;
        int hi = count - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (times[(first + mid) % times.length] <= nanos) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }
}
