package io.memscope.agent.capture;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import io.memscope.analysis.GcRecord;
import io.memscope.error.Failures;
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
    private final List<GcRecord> records = new ArrayList<>();
    /** Records already returned by {@link #takeRecords}. */
    private int taken;
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final Set<String> heapPools = new HashSet<>();
    private final long startNanos;
    private final long jvmStartEpochMs;
    private final long startEpochMs;

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
            GcRecord r = new GcRecord(start, gi.getDuration() * 1_000_000L, info.getGcName(), info.getGcAction(),
                    info.getGcCause(), heap(gi.getMemoryUsageBeforeGc()), heap(gi.getMemoryUsageAfterGc()),
                    committed(gi.getMemoryUsageAfterGc()));
            synchronized (records) {
                records.add(r);
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

    /** @return the records not returned by an earlier call, oldest first */
    List<GcRecord> takeRecords() {
        synchronized (records) {
            List<GcRecord> out = new ArrayList<>(records.subList(taken, records.size()));
            taken = records.size();
            return out;
        }
    }
}
