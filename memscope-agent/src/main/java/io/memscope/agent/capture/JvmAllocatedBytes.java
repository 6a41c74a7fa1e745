package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * The JVM's own count of the heap bytes allocated during one capture, next to which exact mode states its coverage:
 * exact mode counts allocations in instrumented code only (not inside the JDK), and the report says what share of
 * the JVM's allocated bytes that is. Taken only in exact mode (the lookup initializes {@code java.lang.management},
 * which sample mode does not pay for at start).
 *
 * <p>On JDK 21 and later the figure is {@code getTotalThreadAllocatedBytes()} at the end minus at the start: every
 * thread, also those that ended meanwhile. Before JDK 21 the JVM forgets an ended thread's bytes: the figure is what
 * the threads alive at the end allocated since the start (or since they started), and the scope says so. memscope's
 * own threads ({@code memscope-*}) alive at the end are left out either way.
 */
final class JvmAllocatedBytes {
    /** Scope of the figure on JDK 21 and later. */
    static final String ALL_THREADS = "all threads";
    /** Scope of the figure before JDK 21. */
    static final String LIVE_THREADS = "threads alive at the end";

    private final com.sun.management.ThreadMXBean bean;
    private final MethodHandle total;
    private final long totalAtStart;
    private final Map<Long, Long> atStart = new HashMap<>();

    private JvmAllocatedBytes(com.sun.management.ThreadMXBean bean, MethodHandle total) {
        this.bean = bean;
        this.total = total;
        long t = -1;
        if (total != null) {
            try {
                t = (long) total.invoke(bean);
            } catch (Throwable e) {
                t = -1;
            }
        }
        this.totalAtStart = t;
        long[] ids = bean.getAllThreadIds();
        long[] bytes = bean.getThreadAllocatedBytes(ids);
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                atStart.put(ids[i], bytes[i]);
            }
        }
    }

    /** @return the JVM's count from now on, or null when the JVM does not count allocated bytes per thread */
    static JvmAllocatedBytes start() {
        try {
            java.lang.management.ThreadMXBean b = ManagementFactory.getThreadMXBean();
            if (!(b instanceof com.sun.management.ThreadMXBean sun) || !sun.isThreadAllocatedMemorySupported()
                    || !sun.isThreadAllocatedMemoryEnabled()) {
                return null;
            }
            MethodHandle total = null;
            try {
                total = MethodHandles.publicLookup().findVirtual(com.sun.management.ThreadMXBean.class,
                        "getTotalThreadAllocatedBytes", MethodType.methodType(long.class));
            } catch (NoSuchMethodException | IllegalAccessException e) {
                // before JDK 21: the threads alive at the end
            }
            return new JvmAllocatedBytes(sun, total);
        } catch (Throwable t) {
            Failures.report("agent.jvmAllocatedBytes", t);
            return null;
        }
    }

    /** Puts {@code jvmAllocatedBytes} and its scope into {@code metadata} (nothing when the JVM cannot say). */
    void end(Map<String, String> metadata) {
        try {
            long[] ids = bean.getAllThreadIds();
            long[] bytes = bean.getThreadAllocatedBytes(ids);
            java.lang.management.ThreadInfo[] infos = bean.getThreadInfo(ids);
            long own = 0;
            long live = 0;
            for (int i = 0; i < ids.length; i++) {
                if (bytes[i] < 0) {
                    continue;
                }
                long since = bytes[i] - atStart.getOrDefault(ids[i], 0L);
                if (infos[i] != null && infos[i].getThreadName().startsWith("memscope")) {
                    own += Math.max(0, since);
                } else {
                    live += Math.max(0, since);
                }
            }
            long figure = live;
            String scope = LIVE_THREADS;
            if (total != null && totalAtStart >= 0) {
                figure = (long) total.invoke(bean) - totalAtStart - own;
                scope = ALL_THREADS;
            }
            metadata.put(io.memscope.launch.MetadataKeys.JVM_ALLOCATED_BYTES, Long.toString(Math.max(0, figure)));
            metadata.put(io.memscope.launch.MetadataKeys.JVM_ALLOCATED_SCOPE, scope);
        } catch (Throwable t) {
            Failures.report("agent.jvmAllocatedBytes", t);
        }
    }
}
