package io.memscope.junit;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * Heap bytes allocated by threads, as {@code com.sun.management.ThreadMXBean} counts them: exact per thread (the
 * JVM adds each TLAB's used part), about 10 ns for the current thread. The JVM-wide total including threads that
 * ended ({@code getTotalThreadAllocatedBytes}) exists from JDK 21 on; on older JVMs threads that ended are not seen.
 */
final class ThreadAllocations {
    private static final com.sun.management.ThreadMXBean MX = mxBean();
    /** {@code getTotalThreadAllocatedBytes()}, JDK 21+, else null. */
    private static final MethodHandle TOTAL = totalHandle();

    private ThreadAllocations() {
    }

    private static com.sun.management.ThreadMXBean mxBean() {
        java.lang.management.ThreadMXBean b = ManagementFactory.getThreadMXBean();
        if (b instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()) {
            if (!sun.isThreadAllocatedMemoryEnabled()) {
                sun.setThreadAllocatedMemoryEnabled(true);
            }
            return sun;
        }
        return null;
    }

    private static MethodHandle totalHandle() {
        if (MX == null) {
            return null;
        }
        try {
            return MethodHandles.publicLookup().findVirtual(com.sun.management.ThreadMXBean.class,
                    "getTotalThreadAllocatedBytes", MethodType.methodType(long.class)).bindTo(MX);
        } catch (ReflectiveOperationException e) {
            return null; // JDK 17 to 20
        }
    }

    /** @return whether this JVM counts allocated bytes per thread (HotSpot does) */
    static boolean supported() {
        return MX != null;
    }

    /** @return bytes the current thread allocated since it started */
    static long current() {
        return MX.getCurrentThreadAllocatedBytes();
    }

    /** @return bytes every thread allocated since the JVM started, ended threads included; -1 before JDK 21 */
    static long total() {
        if (TOTAL == null) {
            return -1;
        }
        try {
            return (long) TOTAL.invokeExact();
        } catch (Throwable t) {
            return -1;
        }
    }

    /** @return allocated bytes of every live thread, by thread id */
    static Map<Long, Long> all() {
        long[] ids = MX.getAllThreadIds();
        long[] bytes = MX.getThreadAllocatedBytes(ids);
        Map<Long, Long> m = new HashMap<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                m.put(ids[i], bytes[i]);
            }
        }
        return m;
    }
}
