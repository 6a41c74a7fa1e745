package io.memscope.agent.capture;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-thread capture state, touched only by its own thread on the hot path (no atomics, no locks): the recursion
 * guard, bytes until the next sample, the thread's random generator, and exact per-site counters. Counters of dead
 * threads are folded into the capture's {@link ExactCounts} by the background thread; live threads' counters are read
 * without synchronization at the end (exact once the threads are quiet).
 */
final class ThreadState {
    private static final ThreadLocal<ThreadState> LOCAL = new ThreadLocal<>();
    /** Size of {@link #BY_ID} (a power of two). */
    private static final int SLOTS = 4096;
    /**
     * The hot-path lookup: a thread's state at index {@code threadId & (SLOTS - 1)}, claimed by the first live thread
     * that maps there (thread ids are sequential, so threads created near each other do not collide). A thread whose
     * slot is taken by another falls back to the {@link ThreadLocal}. Slots of dead threads are cleared by the
     * background thread. A slot holds a reference only: its owner check ({@code ts.thread == current}) reads a final
     * field, so a racing reader sees either a complete state or a mismatch.
     */
    private static final ThreadState[] BY_ID = new ThreadState[SLOTS];
    private static final ConcurrentHashMap<Thread, Boolean> CREATING = new ConcurrentHashMap<>();
    /**
     * Every thread's state, in no order. A set of a {@code ConcurrentHashMap} (already initialized by the JDK), not a
     * {@code ConcurrentLinkedQueue}: the queue's class initializer makes {@code VarHandle}s, milliseconds of the
     * agent's start.
     */
    static final java.util.Set<ThreadState> ALL = ConcurrentHashMap.newKeySet();

    final Thread thread;
    /** Recursion guard: true while memscope code runs on this thread; hooks then return at once. */
    boolean busy;
    /** Nesting depth of memscope-ffm tracking-arena allocations on this thread ({@link Hooks#nativeArenaEnter}). */
    int arenaDepth;
    /** Bytes left until the next sampled allocation. */
    long untilSample;
    private long rng;
    /**
     * Exact mode: {@code [2 * site]} = allocations, {@code [2 * site + 1]} = bytes (adjacent: one cache line), by
     * {@link SiteTable} id. Written by this thread only, never reset: they run on across captures, each of which
     * counts from their values when it started ({@link ExactCounts}).
     */
    long[] counts = new long[0];
    /** Sample references this thread made and the capture has not settled yet ({@link Liveness}). */
    SampleList samples;
    /**
     * Heap bytes the agent allocated on this thread since it started ({@link OwnBytes}); read by the application's
     * scopes through {@link ApiHooks#ownBytes}. Written by this thread only.
     */
    long ownBytes;
    /** The thread's allocated bytes when a JVMTI sample asked for its frames (measured up to the second call). */
    long ownBefore = -1;
    /** The function profile's calls in progress on this thread and its statistics ({@link FunctionHooks}). */
    FunctionFrames functions;
    /** This thread's scope entries and exits in the current capture ({@link ApiCapture#scopeEdge}); null before. */
    ScopeEdgeLog scopeEdges;
    /** This thread's OpenTelemetry span history for the running push ({@link OtelSpans}); null before. */
    OtelSpans.History otelSpans;
        /** The call site the caller's instrumentation set for the profiled call that follows (0 = none). */
    int pendingCallSite;

    private ThreadState(Thread thread, double mean) {
        this.thread = thread;
        this.rng = System.nanoTime() ^ (thread.hashCode() * 0x9E3779B97F4A7C15L) | 1;
        this.untilSample = nextInterval(mean);
    }

    /**
     * @return this thread's state, created on first use; null while it is being created (recursion). Hot path: the
     *         current thread's id indexes {@link #BY_ID} (four dependent loads, against about seven for a
     *         {@code ThreadLocal} lookup)
     */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is Java 19+
    static ThreadState current() {
        Thread t = Thread.currentThread();
        ThreadState ts = BY_ID[(int) t.getId() & (SLOTS - 1)];
        return ts != null && ts.thread == t ? ts : lookup(t);
    }

    /**
     * @return this thread's state when it is in its id slot, else null: no creation and no {@code ThreadLocal} (whose
     *         first {@code get} on a thread allocates). A thread whose slot another live thread holds gets null.
     */
    @SuppressWarnings("deprecation")
    static ThreadState existing() {
        Thread t = Thread.currentThread();
        ThreadState ts = BY_ID[(int) t.getId() & (SLOTS - 1)];
        return ts != null && ts.thread == t ? ts : null;
    }

    @SuppressWarnings("deprecation")
    private static ThreadState lookup(Thread t) {
        long before = OwnBytes.before(); // the thread-local map and the state are memscope's, not the scope's
        ThreadState ts = LOCAL.get();
        if (ts == null) {
            ts = create();
            OwnBytes.after(ts, before);
        }
        if (ts != null) {
            int i = (int) t.getId() & (SLOTS - 1);
            if (BY_ID[i] == null) {
                BY_ID[i] = ts;
            }
        }
        return ts;
    }

    /** Frees the slot of a thread that ended (background thread). */
    @SuppressWarnings("deprecation")
    static void release(ThreadState ts) {
        int i = (int) ts.thread.getId() & (SLOTS - 1);
        if (BY_ID[i] == ts) {
            BY_ID[i] = null;
        }
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
        long before = OwnBytes.before(); // exact mode's counters are memscope's: left out of the thread's scopes
        try {
            counts = java.util.Arrays.copyOf(counts, n);
            return counts;
        } finally {
            OwnBytes.after(this, before);
            busy = false;
        }
    }
}
