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
 * action, cause, start and duration (1 ms precision), heap used before and after (summed over heap pools), and what
 * it examined ({@link CollectionKinds}: G1's Remark and Cleanup have notifications only from JDK 20 on, so before it
 * only G1's full collections examine the whole heap here). Notifications arrive on the JVM's notification thread,
 * shortly after the collection. Used when the JVM's sampler does not run (the bytecode hooks: exact mode, other
 * platforms).
 *
 * <p><b>Times.</b> A notification's start and duration are in whole milliseconds on the JVM's management clock, whose
 * offset from {@code nanoTime} is not published. A notification arrives after its collection ended, so
 * {@code receivedNanos - (start + duration) ms}, the smallest over the notifications so far, is an upper bound of the
 * offset, tight within the notification thread's delay (usually well under a millisecond). Records are placed with
 * that bound minus {@value #MARGIN_NANOS} ns, so that a whole-heap collection's snapshot is not later than its true
 * start unless every notification of the run arrived more than that late (samples allocated after a snapshot were
 * not judged). The end check knows its own call's time and needs no estimate ({@link #endCheck}).
 */
final class GcListener implements NotificationListener {
    /** Records not yet returned by {@link #takeRecords}; guards {@link #history} updates and waits too. */
    private final List<GcRecord> records = new ArrayList<>();
    private final GcHistory history = new GcHistory();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final Set<String> heapPools = new HashSet<>();
    private final long startNanos;
    /** Start of the most recent collection, on the capture's nanoTime clock. */
    private volatile long lastStartNanos;
    /** The smallest upper bound seen of {@code nanoTime - managementMillis * 10^6} (see the class comment). */
    private long offsetUpper = Long.MAX_VALUE;
    /** How much earlier than the offset's upper bound records are placed. */
    static final long MARGIN_NANOS = 20_000_000L;
    private final CollectionKinds kinds;
    /** The latest snapshot of a whole-heap collection not taken yet ({@link #takeVerdict}). */
    private long verdict = CollectionLog.NO_VERDICT;

    GcListener(long startNanos, long startEpochMs) {
        this(startNanos, startEpochMs, true);
    }

    /** @param seenFromStart the capture starts with the JVM (no G1 marking can be running then) */
    GcListener(long startNanos, long startEpochMs, boolean seenFromStart) {
        this.startNanos = startNanos;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                heapPools.add(p.getName());
            }
        }
        List<String> names = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            names.add(gc.getName());
        }
        this.kinds = new CollectionKinds(CollectionKinds.unnamedPausesEndMarkings(names), seenFromStart, startNanos);
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
            long upper = System.nanoTime() - (gi.getStartTime() + gi.getDuration()) * 1_000_000L;
            String name = GcDetails.canonical(info.getGcName());
            synchronized (records) {
                offsetUpper = Math.min(offsetUpper, upper);
                long start = offsetUpper - MARGIN_NANOS + gi.getStartTime() * 1_000_000L;
                long duration = gi.getDuration() * 1_000_000L;
                GcRecord.Examined examined;
                long snapshot = start;
                long verdictAt = start;
                if (CollectionKinds.isCycleBean(name)) {
                    examined = CollectionKinds.ofBean(name);
                    verdictAt = start + duration + 1_000_000L; // the end, as late as the millisecond allows
                } else if (name != null && name.endsWith("Pauses")) {
                    examined = GcRecord.Examined.UNKNOWN; // a pause inside a cycle: its cycle's record judges
                } else {
                    long[] k = kinds.pause(start, start + duration, new String[] {name}, 0, Long.MIN_VALUE); // frees not attributed
                    examined = GcRecord.Examined.ofCode((int) k[0]);
                    snapshot = k[1];
                }
                GcRecord r = new GcRecord(start, duration, name, GcDetails.canonical(info.getGcCause()),
                        heap(gi.getMemoryUsageBeforeGc()), heap(gi.getMemoryUsageAfterGc()),
                        committed(gi.getMemoryUsageAfterGc()), GcDetails.canonical(info.getGcAction()), examined,
                        examined == GcRecord.Examined.WHOLE_HEAP ? Math.min(snapshot, start) : start, verdictAt);
                if (r.wholeHeap()) {
                    verdict = Math.max(verdict, r.snapshotNanos());
                }
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
                for (GcRecord r : history.since(since, history.kept())) {
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

    /**
     * @return the snapshot of the latest collection that examined the whole heap recorded since the last call, or
     *         {@link CollectionLog#NO_VERDICT}
     */
    long takeVerdict() {
        synchronized (records) {
            long v = verdict;
            verdict = CollectionLog.NO_VERDICT;
            return v;
        }
    }

    /**
     * The capture's end check ran {@code System.gc()} from {@code fromNanos} to {@code toNanos} (see
     * {@link CollectionLog#endCheck}): the last record that started during the call judged the whole heap, with its
     * snapshot at the call. Records not yet taken only.
     */
    void endCheck(long fromNanos, long toNanos) {
        synchronized (records) {
            for (int i = records.size() - 1; i >= 0; i--) {
                GcRecord r = records.get(i);
                if (r.startNanos() >= fromNanos - 1_000_000L && r.startNanos() <= toNanos && r.isPause()
                        && !(r.name() != null && r.name().endsWith("Pauses"))) {
                    if (!r.wholeHeap()) {
                        records.set(i, r.withExamined(GcRecord.Examined.WHOLE_HEAP, Math.min(fromNanos,
                                r.startNanos()), r.verdictNanos()));
                    }
                    verdict = Math.max(verdict, Math.min(fromNanos, r.startNanos()));
                    return;
                }
            }
        }
    }

    /** @return whether a collection that examined the whole heap with a snapshot at or after {@code nanos} was recorded */
    boolean wholeHeapSince(long nanos) {
        for (GcRecord r : history.since(Math.max(0, history.count() - 64), 64)) {
            if (r.wholeHeap() && r.snapshotNanos() >= nanos) {
                return true;
            }
        }
        return false;
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
