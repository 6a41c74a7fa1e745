package io.memscope.agent.capture;

import java.lang.management.ManagementFactory;

/**
 * Heap bytes the agent allocates on application threads (in a sample's or a native hook's work), per thread
 * ({@link ThreadState#ownBytes}), so that the application's scopes can leave them out of their allocated bytes: a
 * scope's figure is the thread's allocated-bytes counter ({@code ThreadMXBean}) at exit minus at entry, and the
 * agent's work on the thread moves that counter too. Measured only while a copy of memscope-core's API is linked
 * ({@link ApiHooks#linked}); two reads of the counter per sample then.
 */
final class OwnBytes {
    /** Set when the first copy of memscope-core's API links: only then are the agent's bytes measured. */
    static volatile boolean measure;
    /** {@link Counter} is initialized ({@link #prepare}): {@link #now} may read it. */
    private static volatile boolean ready;

    private OwnBytes() {
    }

    /**
     * The JVM's per-thread allocated-bytes counter, looked up only when a capture needs it ({@link #prepare}): the
     * lookup loads and initializes {@code java.lang.management} (and makes the agent's transformer instrument
     * {@code ManagementFactory}), tens of milliseconds that every JVM under the agent would otherwise pay at start.
     */
    private static final class Counter {
        static final com.sun.management.ThreadMXBean BEAN = bean();

        /** Initializes this class (the lookup above). */
        static void initialize() {
        }
    }

    /**
     * Makes the counter ready; called before {@link #measure} is set or a function profile starts, on the thread that
     * links or starts it, never inside a sample (where loading classes would recurse through the loader's own
     * allocations).
     */
    static void prepare() {
        if (!ready) {
            Counter.initialize();
            ready = true;
        }
    }

    private static com.sun.management.ThreadMXBean bean() {
        try {
            java.lang.management.ThreadMXBean b = ManagementFactory.getThreadMXBean();
            if (b instanceof com.sun.management.ThreadMXBean
                    && ((com.sun.management.ThreadMXBean) b).isThreadAllocatedMemorySupported()) {
                return (com.sun.management.ThreadMXBean) b;
            }
        } catch (Throwable t) {
            // no per-thread allocation counting: nothing to leave out
        }
        return null;
    }

    /** @return the thread's allocated bytes now when measuring, else -1 */
    static long before() {
        return measure ? now() : -1;
    }

    /** @return the thread's allocated bytes now, or -1 when not available (not prepared, a virtual thread, no support) */
    static long now() {
        if (!ready) {
            return -1;
        }
        com.sun.management.ThreadMXBean b = Counter.BEAN;
        if (b == null) {
            return -1;
        }
        try {
            return b.getCurrentThreadAllocatedBytes();
        } catch (Throwable t) {
            return -1;
        }
    }

    /** @return what the thread allocated since {@link #before()} (0 when not measured) */
    static long since(long before) {
        if (before < 0) {
            return 0;
        }
        try {
            long now = Counter.BEAN.getCurrentThreadAllocatedBytes();
            return now >= before ? now - before : 0;
        } catch (Throwable t) {
            return 0;
        }
    }

    /** Adds what the thread allocated since {@link #before()} to its agent-own bytes. */
    static void after(ThreadState ts, long before) {
        if (before < 0 || ts == null) {
            return;
        }
        try {
            long now = Counter.BEAN.getCurrentThreadAllocatedBytes();
            if (now >= before) {
                ts.ownBytes += now - before;
            }
        } catch (Throwable t) {
            // counted as the application's
        }
    }
}
