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
 * The capture's GC records, built from two sources:
 *
 * <ul>
 * <li>the collections the JVM reports through JVMTI (from {@link JvmtiHeapSampler}): every pause, exactly
 *     timed on {@link System#nanoTime()}'s clock, the same collections whose start times the heap samples'
 *     DEALLOCATE events carry;</li>
 * <li>the JDK's GC notifications ({@code GarbageCollectionNotificationInfo}): the collector's name, the action, the
 *     cause, and heap used before and after (summed over heap pools), at millisecond precision on the JVM's
 *     management clock.</li>
 * </ul>
 *
 * A record is one JVMTI collection with the details of the notification(s) that fall within it (Parallel's full
 * collection reports a young and an old collection inside one pause: the record has the first's heap before and the
 * last's heap after and name). The management clock's offset from {@code nanoTime} is learned from the first
 * notifications (see {@link #match}); then a notification belongs to the collection its start falls in, within
 * {@value #TOLERANCE_NANOS} ns. A collection without a notification (G1's remark and cleanup pauses on JDK 17, the
 * collections before the listener was registered) is named {@value #UNNAMED}, with its heap figures 0 (unknown: the
 * JVM reports them only in its notifications). The concurrent cycles of ZGC and Shenandoah are records of their own, timed
 * by the learned offset.
 *
 * <p>Its cost is bounded whatever the run's length, also when nobody reads it for a long time (a recording that
 * could not be opened: everything is settled at the capture's end, in the JVM's shutdown): a notification finds its
 * collection by binary search, the offset is learned from at most {@value #CALIBRATION_NOTIFICATIONS} notifications
 * and {@value #CALIBRATION_PAUSES} collections, at most {@value #MAX_WAITING} notifications wait (the oldest beyond
 * are dropped and counted), and records are made final in one pass.
 *
 * <p>Nothing of JMX is loaded before the first collection: the notification listener is registered by the drain
 * thread when it sees the first collection end, and that collection's details are read from
 * {@code getLastGcInfo()} instead (without its cause).
 */
final class CollectionLog {
    /** How far a notification's start may be from its collection's start once the clock offset is known. */
    static final long TOLERANCE_NANOS = 3_000_000L;
    /** Name of a collection the JDK sent no notification for. */
    static final String UNNAMED = "JVM pause";
    /** A collection is written this long after its end (its notifications arrive in the meantime). */
    private static final long SETTLE_NANOS = 2_000_000_000L;
    /** How long a notification waits for its collection to be reported. */
    private static final long WAIT_NANOS = 1_000_000_000L;
    /** Notifications {@link #calibrate} pairs at most (the first ones). */
    static final int CALIBRATION_NOTIFICATIONS = 32;
    /** Collections {@link #calibrate} pairs at most (the latest before the last of its notifications arrived). */
    static final int CALIBRATION_PAUSES = 128;
    /** Notifications kept waiting for their collection at most; the oldest beyond it are dropped and counted. */
    static final int MAX_WAITING = 16_384;

    private static final class Pause {
        final int ordinal;
        final long start;
        final long end;
        final List<Details> details = new ArrayList<>(1);

        Pause(int ordinal, long start, long end) {
            this.ordinal = ordinal;
            this.start = start;
            this.end = end;
        }
    }

    /** One notification: what it says, and when it arrived. */
    private static final class Details {
        final String name;
        final String action;
        final String cause;
        final long startMillis;
        final long durationMillis;
        final long before;
        final long after;
        final long committed;
        final long receivedNanos;

        Details(String name, String action, String cause, long startMillis, long durationMillis, long before,
                long after, long committed, long receivedNanos) {
            this.name = name;
            this.action = action;
            this.cause = cause;
            this.startMillis = startMillis;
            this.durationMillis = durationMillis;
            this.before = before;
            this.after = after;
            this.committed = committed;
            this.receivedNanos = receivedNanos;
        }
    }

    private final boolean notifications;
    private final List<Pause> pauses = new ArrayList<>();
    private final List<Details> arrived = new ArrayList<>();
    /** Final records not yet taken by {@link #take}. */
    private final List<GcRecord> ready = new ArrayList<>();
    private final GcHistory history = new GcHistory();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final Set<String> heapPools = new HashSet<>();
    private final Set<Long> seenIds = new HashSet<>();
    /** {@link #listen} has registered the listener and read {@code getLastGcInfo()}. */
    private boolean registered;
    /** Set when a pause or a notification arrived since {@link #calibrate} last failed. */
    private boolean calibrationStale;
    private boolean listening;
    private boolean stopped;
    /** nanoTime minus the management clock's milliseconds times 10^6; valid when {@link #offsetKnown}. */
    private long offset;
    private boolean offsetKnown;
    private long unmatched;

    /** @param notifications read the JDK's GC notifications (the agent's {@code gc} option) */
    CollectionLog(boolean notifications) {
        this.notifications = notifications;
    }

    /**
     * A JVMTI collection ended (drain thread).
     *
     * @param ordinal 1 for the JVM's first collection; start and end on {@link System#nanoTime()}'s clock
     */
    void pause(int ordinal, long startNanos, long endNanos) {
        Pause p = new Pause(ordinal, startNanos, endNanos);
        synchronized (this) {
            int n = pauses.size();
            if (n == 0 || pauses.get(n - 1).start <= startNanos) {
                pauses.add(p);
            } else {
                pauses.add(insertionPoint(startNanos), p); // kept in start order for containing()'s search
            }
            calibrationStale = true;
        }
    }

    /** @return the index of the first pause starting after {@code start} */
    private int insertionPoint(long start) {
        int lo = 0;
        int hi = pauses.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (pauses.get(mid).start <= start) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The collections that ended so far have all been passed to {@link #pause} (drain thread). */
    void caughtUp() {
        if (notifications && !listening && !stopped) {
            listen();
        }
    }

    /** Registers the notification listener; reads what the collections so far left in {@code getLastGcInfo()}. */
    private void listen() {
        listening = true;
        ThreadState ts = ThreadState.current();
        boolean wasBusy = ts != null && ts.busy;
        if (ts != null) {
            ts.busy = true;
        }
        try {
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                if (p.getType() == MemoryType.HEAP) {
                    heapPools.add(p.getName());
                }
            }
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter) {
                    NotificationEmitter e = (NotificationEmitter) gc;
                    if (listener == null) {
                        listener = new Listener();
                    }
                    // Registered and remembered under the lock stop() takes: a capture that ends meanwhile either
                    // finds it in emitters (and removes it) or keeps it from being registered at all.
                    synchronized (this) {
                        if (stopped) {
                            return;
                        }
                        e.addNotificationListener(listener, null, null);
                        emitters.add(e);
                    }
                }
                if (gc instanceof com.sun.management.GarbageCollectorMXBean) {
                    GcInfo last = ((com.sun.management.GarbageCollectorMXBean) gc).getLastGcInfo();
                    if (last != null) {
                        arrive(gc.getName(), "", "", last, System.nanoTime());
                    }
                }
            }
        } catch (Throwable t) {
            Failures.report("agent.gc.start", t);
        } finally {
            synchronized (this) {
                registered = true; // from now on only the ids read from getLastGcInfo() are remembered
            }
            if (ts != null) {
                ts.busy = wasBusy;
            }
        }
    }

    /** The notification listener: a nested class, so that JMX is not loaded with {@link CollectionLog}. */
    private final class Listener implements NotificationListener {
        @Override
        public void handleNotification(Notification n, Object handback) {
            notified(n);
        }
    }

    private NotificationListener listener;
    /** GC notifications that reached this log after {@link #stop()} (none when every listener was removed). */
    private long lateNotifications;

    /** @return GC notifications received after {@link #stop()} and ignored */
    synchronized long lateNotifications() {
        return lateNotifications;
    }

    private void notified(Notification n) {
        ThreadState ts = ThreadState.current();
        if (ts != null) {
            ts.busy = true;
        }
        try {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                return;
            }
            synchronized (this) {
                if (stopped) {
                    lateNotifications++; // a listener that outlived its capture: ignored, counted
                    return;
                }
            }
            GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            arrive(info.getGcName(), info.getGcAction(), info.getGcCause(), info.getGcInfo(), System.nanoTime());
        } catch (Throwable t) {
            Failures.report("agent.gc", t);
        } finally {
            if (ts != null) {
                ts.busy = false;
            }
        }
    }

    private void arrive(String name, String action, String cause, GcInfo gi, long now) {
        Details d = new Details(name, action, cause, gi.getStartTime(), gi.getDuration(),
                heap(gi.getMemoryUsageBeforeGc(), false), heap(gi.getMemoryUsageAfterGc(), false),
                heap(gi.getMemoryUsageAfterGc(), true), now);
        synchronized (this) {
            // getLastGcInfo() and the first notification may describe the same collection. The ids are remembered
            // while the listener is being registered, and those of getLastGcInfo() (one per collector) for good:
            // not one per collection of the whole run.
            long id = ((long) name.hashCode() << 32) ^ gi.getId();
            if (!seenIds.contains(id)) {
                if (!registered || action.isEmpty()) {
                    seenIds.add(id);
                }
                arrived(d);
            }
        }
    }

    /** A notification's details, for tests: what {@link #arrive} records from a {@code GcInfo}. */
    synchronized void arrived(String name, String action, String cause, long startMillis, long durationMillis,
                              long before, long after, long committed, long receivedNanos) {
        arrived(new Details(name, action, cause, startMillis, durationMillis, before, after, committed,
                receivedNanos));
    }

    private void arrived(Details d) {
        if (arrived.size() >= MAX_WAITING) {
            // Never paired (the offset never learned, or the log never read): the oldest quarter goes, counted.
            int drop = MAX_WAITING / 4;
            arrived.subList(0, drop).clear();
            unmatched += drop;
        }
        arrived.add(d);
        calibrationStale = true;
    }

    private long heap(Map<String, MemoryUsage> usage, boolean committed) {
        long sum = 0;
        for (Map.Entry<String, MemoryUsage> e : usage.entrySet()) {
            if (heapPools.contains(e.getKey())) {
                sum += committed ? e.getValue().getCommitted() : e.getValue().getUsed();
            }
        }
        return sum;
    }

    /**
     * @param all also the collections that ended just now (end of capture)
     * @return the GC records ready to be written, oldest first; each is returned once
     */
    synchronized List<GcRecord> take(boolean all) {
        settle(all);
        List<GcRecord> out = new ArrayList<>(ready);
        ready.clear();
        return out;
    }

    /** @return GC records made final so far (a collection's record is final about 2 s after it ended) */
    synchronized long count() {
        settle(false);
        return history.count();
    }

    /** @return the final records after the first {@code from}, at most {@code max}, oldest first */
    synchronized List<GcRecord> since(long from, int max) {
        settle(false);
        return history.since(from, max);
    }

    /** Makes the records of the collections settled (or all) final. */
    private void settle(boolean all) {
        match();
        long now = System.nanoTime();
        int n = 0;
        for (Pause p : pauses) {
            if (!all && now - p.end < SETTLE_NANOS) {
                break;
            }
            done(record(p));
            n++;
        }
        pauses.subList(0, n).clear(); // once, not one shift of the list per record
    }

    private void done(GcRecord r) {
        ready.add(r);
        history.add(r);
    }

    /**
     * Pairs the notifications that arrived with their collections. Until the clock offset is known, it is taken from
     * the pairing of one notification with one collection that places the most notifications inside a collection
     * (the first notifications are usually the last collections' {@code getLastGcInfo()}, read once several
     * collections may have passed). A notification whose collection is not known yet waits for it, at most
     * {@value #WAIT_NANOS} ns; one that fits no collection then is dropped and counted.
     */
    private void match() {
        if (!offsetKnown) {
            calibrate();
            if (!offsetKnown) {
                return;
            }
        }
        long now = System.nanoTime();
        int kept = 0;
        for (int i = 0, n = arrived.size(); i < n; i++) {
            Details d = arrived.get(i);
            long predicted = offset + d.startMillis * 1_000_000L;
            if (d.name.contains("Cycles")) {
                // a concurrent cycle (ZGC, Shenandoah): not one of the pauses
                done(new GcRecord(predicted, d.durationMillis * 1_000_000L, d.name, d.cause, d.before, d.after,
                        d.committed, d.action));
                continue;
            }
            Pause best = containing(predicted);
            if (best != null) {
                best.details.add(d);
            } else if (now - d.receivedNanos > WAIT_NANOS) {
                unmatched++;
            } else {
                arrived.set(kept++, d); // still waiting for its collection
            }
        }
        arrived.subList(kept, arrived.size()).clear();
    }

    /** @return the collection (not yet written) whose time contains the predicted start, or null */
    private Pause containing(long predicted) {
        // Pauses are in start order and do not overlap: the nearest is the last one starting at or before the
        // predicted start, or the one after it (the earlier of the two at equal distances).
        int next = insertionPoint(predicted);
        Pause best = null;
        long bestDistance = Long.MAX_VALUE;
        for (int i = Math.max(0, next - 1); i < Math.min(pauses.size(), next + 1); i++) {
            Pause p = pauses.get(i);
            long distance = predicted < p.start ? p.start - predicted : predicted > p.end ? predicted - p.end : 0;
            if (distance < bestDistance) {
                bestDistance = distance;
                best = p;
            }
        }
        return bestDistance <= TOLERANCE_NANOS ? best : null;
    }

    /**
     * Learns the management clock's offset: of the pairings of one notification with one collection, the one that
     * places the most notifications inside a collection; among equals, the one whose placed notifications' durations
     * fit their collections' best (the management clock's milliseconds against JVMTI's nanoseconds), then the later
     * collection. With a single notification (the first collection seen, its details read from
     * {@code getLastGcInfo()} once several collections may have passed) the durations decide.
     */
    private void calibrate() {
        if (!calibrationStale) {
            return; // nothing arrived since the last try: the same pairings would fail again
        }
        calibrationStale = false;
        // Bounded, whatever the log holds (a log nobody read for a long run is calibrated at the capture's end, in
        // the JVM's shutdown): the first notifications, and the pauses that ended before the last of them arrived
        // (a notification is sent after its collection), the latest of those.
        List<Details> sample = new ArrayList<>(CALIBRATION_NOTIFICATIONS);
        long lastArrival = Long.MIN_VALUE;
        for (int i = 0; i < arrived.size() && sample.size() < CALIBRATION_NOTIFICATIONS; i++) {
            Details d = arrived.get(i);
            if (!d.name.contains("Cycles")) {
                sample.add(d);
                lastArrival = Math.max(lastArrival, d.receivedNanos);
            }
        }
        int to = 0;
        while (to < pauses.size() && pauses.get(to).end - lastArrival <= 0) {
            to++;
        }
        int bestScore = 0;
        long bestMisfit = Long.MAX_VALUE;
        long bestOffset = 0;
        for (Pause p : pauses.subList(Math.max(0, to - CALIBRATION_PAUSES), to)) {
            for (Details d : sample) {
                long candidate = p.start - d.startMillis * 1_000_000L;
                int score = 0;
                long misfit = 0;
                for (Details other : sample) {
                    Pause q = containing(candidate + other.startMillis * 1_000_000L);
                    if (q != null) {
                        score++;
                        misfit += Math.abs((q.end - q.start) - other.durationMillis * 1_000_000L);
                    }
                }
                if (score > bestScore || score == bestScore && score > 0 && misfit <= bestMisfit) {
                    bestScore = score;
                    bestMisfit = misfit;
                    bestOffset = candidate;
                }
            }
        }
        offset = bestOffset;
        offsetKnown = bestScore > 0;
    }

    /** @return notifications that fitted no collection (dropped) */
    synchronized long unmatched() {
        return unmatched;
    }

    private static GcRecord record(Pause p) {
        long duration = Math.max(0, p.end - p.start);
        if (p.details.isEmpty()) {
            return new GcRecord(p.start, duration, UNNAMED, null, 0, 0, 0, null); // heap figures unknown
        }
        Details first = p.details.get(0);
        Details last = p.details.get(p.details.size() - 1);
        return new GcRecord(p.start, duration, last.name, first.cause.isEmpty() ? last.cause : first.cause,
                first.before, last.after, last.committed, last.action.isEmpty() ? null : last.action);
    }

    /**
     * Waits (at most {@code millis}) until every collection reported so far has its notification: the end of a
     * capture, after its last collection. Does not wait when not listening.
     */
    void awaitDetails(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            synchronized (this) {
                if (emitters.isEmpty()) {
                    return;
                }
                match();
                boolean all = true;
                for (Pause p : pauses) {
                    all &= !p.details.isEmpty();
                }
                if (all) {
                    return;
                }
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops listening (end of capture); the records not yet taken stay available to {@link #take}. */
    void stop() {
        List<NotificationEmitter> es;
        synchronized (this) {
            stopped = true;
            es = new ArrayList<>(emitters);
            emitters.clear();
        }
        for (NotificationEmitter e : es) {
            try {
                e.removeNotificationListener(listener);
            } catch (Exception ex) {
                Failures.report("agent.gc.stop", ex);
            }
        }
    }

    /** @return whether memscope's notification listener is registered */
    synchronized boolean listening() {
        return !emitters.isEmpty();
    }
}
