package io.memscope.agent.capture;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import io.memscope.recording.GcRecord;
import io.memscope.internal.error.Failures;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Records every garbage collection the JVM reports through {@code GarbageCollectionNotificationInfo}: name,
 * action, cause, start and duration (1 ms precision), and heap used before and after (summed over heap pools).
 * Notifications arrive on the JVM's notification thread, shortly after the collection.
 */
final class GcListener implements NotificationListener {
    /** Records not yet returned by {@link #takeRecords}; guards {@link #history} updates and waits too. */
    private final List<GcRecord> records = new ArrayList<>();
    private final GcHistory history = new GcHistory();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final Set<String> heapPools = new HashSet<>();
    private final long startNanos;
    private final long jvmStartEpochMs;
    private final long startEpochMs;
    /** Start of the most recent collection, on the capture's nanoTime clock. */
    private volatile long lastStartNanos;

    GcListener(long startNanos, long startEpochMs) {
        this.startNanos = startNanos;
        this.startEpochMs = startEpochMs;
        this.jvmStartEpochMs = ManagementFactory.getRuntimeMXBean().getStartTime();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                heapPools.add(p.getName());
            }
        }
    }

    void start() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter) {
                NotificationEmitter e = (NotificationEmitter) gc;
                e.addNotificationListener(this, null, null);
                emitters.add(e);
            }
        }
    }

    void stop() {
        for (NotificationEmitter e : emitters) {
            try {
                e.removeNotificationListener(this);
            } catch (Exception ex) {
                Failures.report("agent.gc.stop", ex);
            }
        }
        emitters.clear();
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        ThreadState ts = ThreadState.current();
        if (ts != null) {
            ts.busy = true;
        }
        try {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                return;
            }
            GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            GcInfo gi = info.getGcInfo();
            long startEpoch = jvmStartEpochMs + gi.getStartTime();
            long start = startNanos + (startEpoch - startEpochMs) * 1_000_000L;
            GcRecord r = new GcRecord(start, gi.getDuration() * 1_000_000L, info.getGcName(), info.getGcCause(),
                    heap(gi.getMemoryUsageBeforeGc()), heap(gi.getMemoryUsageAfterGc()),
                    committed(gi.getMemoryUsageAfterGc()), info.getGcAction());
            synchronized (records) {
                records.add(r);
                history.add(r);
                lastStartNanos = Math.max(lastStartNanos, start);
                records.notifyAll();
            }
        } catch (Throwable t) {
            Failures.report("agent.gc", t);
        } finally {
            if (ts != null) {
                ts.busy = false;
            }
        }
    }

    private long heap(Map<String, MemoryUsage> usage) {
        long sum = 0;
        for (Map.Entry<String, MemoryUsage> e : usage.entrySet()) {
            if (heapPools.contains(e.getKey())) {
                sum += e.getValue().getUsed();
            }
        }
        return sum;
    }

    private long committed(Map<String, MemoryUsage> usage) {
        long sum = 0;
        for (Map.Entry<String, MemoryUsage> e : usage.entrySet()) {
            if (heapPools.contains(e.getKey())) {
                sum += e.getValue().getCommitted();
            }
        }
        return sum;
    }

    /** @return collections recorded so far */
    long count() {
        return history.count();
    }

    /**
     * Waits until a collection caused by {@code System.gc()} that reclaims memory (not a {@code ... Pauses} record
     * of a concurrent collector) is recorded after the first {@code since} records, at most {@code timeoutMillis}:
     * its notification arrives shortly after the collection, on the JVM's notification thread. Returns at once when
     * the JVM ignores {@code System.gc()} ({@code -XX:+DisableExplicitGC}).
     *
     * @return whether it was recorded
     */
    boolean awaitExplicitCollection(long since, long timeoutMillis) {
        if (explicitGcDisabled()) {
            return false;
        }
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        synchronized (records) {
            while (true) {
                for (GcRecord r : history.since(since, GcHistory.KEPT)) {
                    if ("System.gc()".equals(r.cause()) && (r.name() == null || !r.name().endsWith("Pauses"))) {
                        return true;
                    }
                }
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return false;
                }
                try {
                    records.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
    }

    private static boolean explicitGcDisabled() {
        try {
            com.sun.management.HotSpotDiagnosticMXBean hs =
                    ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            return hs != null && "true".equals(hs.getVMOption("DisableExplicitGC").getValue());
        } catch (Throwable t) {
            return false;
        }
    }

    /** @return start of the latest collection recorded ({@link System#nanoTime()}), 0 before the first */
    long lastStartNanos() {
        return lastStartNanos;
    }

    /** @return the records after the first {@code from} ones, at most {@code max} */
    List<GcRecord> since(long from, int max) {
        return history.since(from, max);
    }

    /** @return the records not returned by an earlier call, oldest first */
    List<GcRecord> takeRecords() {
        synchronized (records) {
            List<GcRecord> out = new ArrayList<>(records);
            records.clear();
            return out;
        }
    }
}
