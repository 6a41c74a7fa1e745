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
    private static final com.sun.management.ThreadMXBean BEAN = bean();
    /** Set when the first copy of memscope-core's API links: only then are the agent's bytes measured. */
    static volatile boolean measure;

    private OwnBytes() {
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
        com.sun.management.ThreadMXBean b = BEAN;
        if (!measure || b == null) {
            return -1;
        }
        try {
            return b.getCurrentThreadAllocatedBytes();
        } catch (Throwable t) {
            return -1;
        }
    }

    /** @return the thread's allocated bytes now, or -1 when not available (a virtual thread, no support) */
    static long now() {
        com.sun.management.ThreadMXBean b = BEAN;
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
            long now = BEAN.getCurrentThreadAllocatedBytes();
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
            long now = BEAN.getCurrentThreadAllocatedBytes();
            if (now >= before) {
                ts.ownBytes += now - before;
            }
        } catch (Throwable t) {
            // counted as the application's
        }
    }
}
