package io.memscope.scope;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Exact heap bytes allocated by the current thread, from {@code com.sun.management.ThreadMXBean}
 * ({@code getCurrentThreadAllocatedBytes()}, JDK 14 and later).
 *
 * <h2>What the figure covers (HotSpot)</h2>
 * A thread's allocated bytes are the sizes of the heap objects and arrays the thread allocated since it started,
 * counted by the JVM as they are allocated: in its TLABs (the bytes used of each TLAB, counted when the TLAB is
 * retired, plus the used part of the current one) and outside them (large arrays, humongous objects). Objects
 * allocated by JDK code, by reflection and by JNI code on the thread all count; the figure is exact to the byte
 * (object sizes include header and alignment; a {@code byte[1000]} counts 1016 bytes with compressed class
 * pointers), with no sampling. It does not count objects that the JIT's escape analysis eliminated (they are
 * never allocated), native memory (direct buffers, {@code Unsafe}, FFM, malloc by JNI code), or what other threads
 * allocate on this thread's request (GC and compiler threads, a worker of an executor).
 *
 * <p>Virtual threads: the JDK answers -1 for a virtual thread (their allocations are counted on the carrier thread,
 * which changes when the virtual thread blocks), so scopes entered on virtual threads have no allocated bytes
 * without an agent; {@link #current()} returns -1 there, as on a JVM that does not support the measurement or has
 * it switched off ({@code ThreadMXBean.setThreadAllocatedMemoryEnabled(false)}).
 *
 * <p>Cost: one JNI call into the JVM, which reads the thread's counters (about 10 ns; see docs/benchmarks.md).
 */
final class ThreadAllocation {
    private static final com.sun.management.ThreadMXBean BEAN = bean();

    private ThreadAllocation() {
    }

    private static com.sun.management.ThreadMXBean bean() {
        try {
            ThreadMXBean b = ManagementFactory.getThreadMXBean();
            if (b instanceof com.sun.management.ThreadMXBean) {
                com.sun.management.ThreadMXBean s = (com.sun.management.ThreadMXBean) b;
                if (s.isThreadAllocatedMemorySupported()) {
                    return s;
                }
            }
        } catch (Throwable t) {
            // no management support (a trimmed runtime image): scopes measure time only
        }
        return null;
    }

    /** @return whether this JVM can measure per-thread allocated bytes at all */
    static boolean supported() {
        return BEAN != null;
    }

    /** @return the current thread's allocated bytes so far, or -1 when not available (virtual thread, switched off) */
    static long current() {
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
}
