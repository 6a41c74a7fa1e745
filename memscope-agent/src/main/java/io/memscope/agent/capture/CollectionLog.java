package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.GcRecord;
import io.memscope.recording.GcRecord.Examined;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The capture's GC records, built from three sources:
 *
 * <ul>
 * <li>the collections the JVM reports through JVMTI (from {@link JvmtiHeapSampler}): every pause, exactly timed on
 *     {@link System#nanoTime()}'s clock, numbered 1, 2, ... in the order they start: the same collections whose
 *     times the heap samples' DEALLOCATE events carry;</li>
 * <li>the JVM's GC beans ({@link GcBeans}), read by the drain thread after the pauses it saw ({@link #cut}): how many
 *     collections each bean has counted, and the last one's figures ({@code getLastGcInfo()}: heap used before and
 *     after, start and duration in ms on the JVM's management clock);</li>
 * <li>the JDK's GC notifications ({@code GarbageCollectionNotificationInfo}): the same figures for every bean
 *     collection, with the cause and the action.</li>
 * </ul>
 *
 * <p><b>Which bean collection belongs to which pause.</b> A bean counts a collection inside the collection's pause,
 * before the JVM reports the pause's end through JVMTI. So the counts read while no pause runs and none ended since
 * the last read (the library's started and finished counts the same before and after reading them: a <i>cut</i>)
 * are exactly the collections of the pauses up to the last one ended: the bean collections counted since the
 * previous cut belong to the pauses between the two cuts. The drain thread runs after each pause, so a cut usually
 * follows one pause: its bean collections (one per bean at most: a Parallel full collection counts a young and a full
 * collection in one pause) are known by their ids, the bean's count. Notifications and last-collection figures are
 * then placed by id, whatever their order or delay, and each such pair teaches the management clock's offset
 * ({@link ManagementClock}). When several pauses ended between two cuts, their bean collections are placed by time
 * with that offset; when no offset is known yet, by {@link NotificationTimes} (when a single bean counted as many
 * collections as pauses ended, one each, in order). A pause in which no bean counted a collection has no heap figures
 * (the JVM reports them only for its beans' collections): G1's Remark or Cleanup before JDK 20 (a Remark when it freed
 * sampled objects: {@value #MARKING_END}), or a VM operation that posted the JVMTI collection events and collected
 * nothing (a metadata allocation retried once another thread's collection freed room: microseconds): {@value #UNNAMED}.
 *
 * <p>The JVM's figures are lost for a collection whose notification was sent before the listener was registered:
 * the listener is registered at the first collection, not at start-up (which loads no JMX), on a thread of its own,
 * and collections go on while JMX loads (many on a loaded machine). For those the drain thread reads the heap itself
 * right after the pause ({@link #measure}: {@code gc.collectionsWithMeasuredHeap}); a collection it could not read
 * (another pause had started) keeps its name and what it examined, and its figures are 0
 * ({@code gc.collectionsWithoutHeapFigures}).
 *
 * <p>What each collection examined is decided in order ({@link CollectionKinds}); a collection that examined the whole
 * heap is also handed to the heap sampler ({@link #takeVerdict}), which then confirms the samples it judged.
 *
 * <p>A record is one JVMTI pause with the figures of the bean collection(s) inside it (Parallel's full collection:
 * the first's heap before, the last's heap after and name), written once its notifications arrived or
 * {@value #SETTLE_NANOS} ns after it ended. The concurrent cycles of ZGC and Shenandoah are records of their own,
 * placed on the nanoTime clock by the learned offset (their start as early, their end as late as the offset allows).
 *
 * <p>Nothing of JMX is loaded before the first collection when the capture starts with the JVM: the beans are read
 * and the notification listener registered by the drain thread when it sees the first collection end. A capture
 * that starts later ({@code attach}) reads the beans' counts when it starts.
 *
 * <p>One job, one lock: the pauses, the cuts and the details change together under this log's lock, so the log
 * keeps the order of those steps ({@link #cut}, settle, classify) and hands each part to a class of its own:
 * {@link BeanCuts}, {@link DetailsMatching}, {@link CollectionKinds}, {@link NotificationTimes},
 * {@link ConcurrentCycles}, {@link GcHistory}, {@link GcNotifications}.
 */
final class CollectionLog {
    /** How far a notification's start may be from its collection's start when placed by time. */
    static final long TOLERANCE_NANOS = 3_000_000L;
    /** Name of a collection the JDK sent no notification for. */
    static final String UNNAMED = "JVM pause";
    /**
     * Name of a G1 pause no bean counted (JDK 17 to 19) that freed sampled objects: a Remark, which completed a
     * concurrent marking (other pauses no bean counts: Cleanup, and VM operations that collected nothing, are
     * {@value #UNNAMED}).
     */
    static final String MARKING_END = "G1 Remark";
    /** {@link #takeVerdict}: no collection that examined the whole heap since the last call. */
    static final long NO_VERDICT = Long.MIN_VALUE;
    /** A collection is written this long after its end (its notifications arrive in the meantime). */
    static final long SETTLE_NANOS = 2_000_000_000L;
    /** How long a collection waits at most for a cut that tells its bean collections. */
    private static final long STALE_NANOS = 10_000_000_000L;

    private final boolean notifications;
    private final List<GcPause> pauses = new ArrayList<>();
    /** Final records not yet taken by {@link #take}. */
    private final List<GcRecord> ready = new ArrayList<>();
    private final GcHistory history = new GcHistory();
    private final NotificationTimes times = new NotificationTimes();
    /** Concurrent cycles (ZGC, Shenandoah) seen, not yet written. */
    private final ConcurrentCycles cycles = new ConcurrentCycles(times);
    /** What the bean collections said, placed in their pauses. */
    private final DetailsMatching matching = new DetailsMatching(times, cycles);
    private final long captureStartNanos;
    private final boolean seenFromStart;
    /** The library's started and finished collection counts ({@code started << 32 | finished}), or null. */
    private LongSupplier gcOrdinals;
    private GcBeans beans;
    private CollectionKinds kinds;
    /** Collections that left the sampler library's log before the drain thread read them ({@link #untimed}). */
    private long untimed;
    /** The highest ordinal passed to {@link #pause}. */
    private int lastPauseOrdinal;
    /** The cuts: the beans' counts read between pauses. */
    private final BeanCuts cuts = new BeanCuts();
    private boolean listening;
    private boolean stopped;
    /** The capture's end began ({@link #captureEnding}): no listener is started any more. */
    private volatile boolean ending;
    /** The latest snapshot of a whole-heap collection not yet taken by {@link #takeVerdict}. */
    private long verdict = NO_VERDICT;

    /**
     * @param notifications     read the JVM's GC beans and notifications (the agent's {@code gc} option)
     * @param seenFromStart     the capture starts with the JVM: no bean counted a collection before it
     * @param captureStartNanos the capture's start ({@link System#nanoTime()})
     */
    CollectionLog(boolean notifications, boolean seenFromStart, long captureStartNanos) {
        this.notifications = notifications;
        this.seenFromStart = seenFromStart;
        this.captureStartNanos = captureStartNanos;
    }

    /** A log of a capture that started with the JVM, now. */
    CollectionLog(boolean notifications) {
        this(notifications, true, System.nanoTime());
    }

    /**
     * Where the heap sampler's library counts collections: its started and finished counts, {@code started << 32 |
     * finished}. Called once, before the first {@link #cut}. A capture that did not start with the JVM reads the beans'
     * counts now (the baseline of the first cut).
     */
    void ordinals(LongSupplier gcOrdinals) {
        this.gcOrdinals = gcOrdinals;
        if (!seenFromStart && notifications) {
            listen();
            cut();
        }
    }

    /**
     * A JVMTI collection ended (drain thread).
     *
     * @param ordinal 1 for the JVM's first collection; start and end on {@link System#nanoTime()}'s clock
     */
    void pause(int ordinal, long startNanos, long endNanos) {
        GcPause p = new GcPause(ordinal, startNanos, endNanos);
        boolean unheard;
        synchronized (this) {
            pauses.add(p);
            lastPauseOrdinal = Math.max(lastPauseOrdinal, ordinal);
            unheard = notifications && !registered() && !stopped;
        }
        if (unheard) {
            measure(p);
        }
    }

    /**
     * Collections the JVM reported that the drain thread read too late: the sampler library's log of the latest
     * 4,096 had dropped them (drain thread). They have no time, so no record: they are counted
     * ({@code gc.collectionsUntimed}), and the report adds them to its count.
     */
    synchronized void untimed(int collections) {
        untimed += collections;
    }

    /**
     * Before the notification listener is registered (it is registered on its own thread once the first collection
     * ended, loading JMX takes a while, and collections go on meanwhile) the JVM's figures of a collection are lost:
     * they are sent only to the listeners registered when it ends. So the drain thread reads the heap itself right
     * after such a pause ({@link Runtime}: used and committed), when it is the latest pause and no other one started:
     * an upper bound of the heap used after it (what was allocated between its end and the reading counts too).
     */
    private void measure(GcPause p) {
        LongSupplier o = gcOrdinals;
        if (o == null) {
            return;
        }
        long before = o.getAsLong();
        if ((before >>> 32) != p.ordinal || (before & 0xFFFF_FFFFL) != p.ordinal) {
            return; // another pause started since: the reading would not be this one's
        }
        Runtime rt = Runtime.getRuntime();
        long committed = rt.totalMemory();
        long used = committed - rt.freeMemory();
        if (o.getAsLong() == before) {
            synchronized (this) {
                p.measuredCommitted = committed;
                p.measuredUsed = used;
            }
        }
    }

    /**
     * The heap sampler saw a sampled object allocated at {@code allocatedNanos} freed by the pause of this ordinal
     * (drain thread): evidence that a G1 marking-end pause completed its marking, and a bound of its snapshot
     * ({@link CollectionKinds}).
     */
    void freed(int ordinal, long allocatedNanos) {
        synchronized (this) {
            for (int i = pauses.size() - 1; i >= 0; i--) {
                GcPause p = pauses.get(i);
                if (p.ordinal == ordinal) {
                    p.freed++;
                    p.latestFreedAllocation = Math.max(p.latestFreedAllocation, allocatedNanos);
                    return;
                }
                if (p.ordinal < ordinal) {
                    return;
                }
            }
        }
    }

    /**
     * The capture's end begins (any thread): a listener not started yet is not started (a program whose first
     * collection is the end check's would load JMX at its exit, for no notification it could still use).
     */
    void captureEnding() {
        ending = true;
    }

    /** The collections that ended so far have all been passed to {@link #pause} (drain thread). */
    void caughtUp() {
        if (notifications && !listening && !stopped && !ending) {
            listening = true;
            // on a thread of its own: loading JMX takes long on a loaded machine, and the drain thread keeps reading
            // the heap after each pause meanwhile ({@link #measure})
            Thread t = new Thread(this::listen, "memscope-gc-listener");
            t.setDaemon(true);
            t.start();
        }
    }

    /**
     * Reads the beans, registers the notification listener, and starts the baseline of the cuts when no bean counted a
     * collection before the capture.
     */
    private void listen() {
        listening = true;

        ThreadState ts = ThreadState.current();
        boolean wasBusy = ts != null && ts.busy;
        if (ts != null) {
            ts.busy = true;
        }
        try {
            GcBeans.Platform platform = new GcBeans.Platform();
            GcNotifications n = new GcNotifications(this);
            synchronized (this) {
                notificationSource = n;
            }
            if (!n.register(platform)) {
                return; // the capture ended meanwhile
            }
            synchronized (this) {
                listeningSince = System.nanoTime();
                beans = platform;
                kinds = new CollectionKinds(CollectionKinds.unnamedPausesEndMarkings(platform.names()), seenFromStart,
                        captureStartNanos);
                if (seenFromStart) {
                    cuts.zeroBaseline(platform.size());
                }
            }
        } catch (Throwable t) {
            Failures.report("agent.gc.start", t);
        } finally {
            if (ts != null) {
                ts.busy = wasBusy;
            }
        }
    }

    /** The clock of the settle and wait times ({@link System#nanoTime()}; tests set their own). */
    private java.util.function.LongSupplier clockNanos;

    long now() {
        java.util.function.LongSupplier c = clockNanos;
        return c == null ? System.nanoTime() : c.getAsLong();
    }

    /** Reads these beans instead of the platform's, without a notification listener, on this clock (tests). */
    void readBeans(GcBeans b, java.util.function.LongSupplier nanoClock) {
        clockNanos = nanoClock;
        readBeans(b);
    }

    /** Reads these beans instead of the platform's, without a notification listener (tests). */
    void readBeans(GcBeans b) {
        synchronized (this) {
            listening = true;
            beans = b;
            kinds = new CollectionKinds(CollectionKinds.unnamedPausesEndMarkings(b.names()), seenFromStart,
                    captureStartNanos);
            if (seenFromStart) {
                cuts.zeroBaseline(b.size());
            }
        }
    }

    /** A notification, as the listener would pass it on (tests). */
    void notified(int bean, String action, String cause, GcBeans.Collection c) {
        arrive(new GcDetails(beans.name(bean), action, cause, GcDetails.key(bean, c.id()), c.startMillis(),
                c.durationMillis(), c.usedBefore(), c.usedAfter(), c.committedAfter(), now(), true));
    }

    /**
     * The JMX side of the notifications, registered by {@link #listen}; null before. Created there, not with the log,
     * so that JMX is not loaded with {@link CollectionLog}.
     */
    private GcNotifications notificationSource;
    /** GC notifications that reached this log after {@link #stop()} (none when every listener was removed). */
    private long lateNotifications;

    /** @return GC notifications received after {@link #stop()} and ignored */
    synchronized long lateNotifications() {
        return lateNotifications;
    }

    /**
     * @return the platform's beans a notification is read against, or null when the log reads other beans (tests) or
     *         stopped (the notification is then counted late)
     */
    synchronized GcBeans.Platform notificationBeans() {
        if (stopped) {
            lateNotifications++; // a listener that outlived its capture: ignored, counted
            return null;
        }
        return beans instanceof GcBeans.Platform ? (GcBeans.Platform) beans : null;
    }

    /** What a bean collection said: placed at the next cut or settle. */
    void arrive(GcDetails d) {
        synchronized (this) {
            matching.arrive(d);
        }
    }

    /**
     * A cut (drain thread, after the collections that ended were passed to {@link #pause} and {@link #caughtUp}):
     * reads the beans' counts while no pause runs, places the bean collections counted since the last cut, and reads
     * the last collection of each bean that counted one. Does nothing when a pause starts or ends meanwhile, or when
     * a pause ended that was not passed to {@link #pause} yet (the next call tries again).
     */
    void cut() {
        GcBeans b;
        LongSupplier o;
        synchronized (this) {
            b = beans;
            o = gcOrdinals;
            if (b == null || o == null || stopped) {
                return;
            }
        }
        ThreadState ts = ThreadState.current();
        boolean wasBusy = ts != null && ts.busy;
        if (ts != null) {
            ts.busy = true;
        }
        try {
            long before = o.getAsLong();
            if ((int) (before >>> 32) != (int) before) {
                return; // a pause is running
            }
            long[] counts = new long[b.size()];
            for (int i = 0; i < counts.length; i++) {
                counts[i] = b.count(i);
            }
            if (o.getAsLong() != before) {
                return; // a pause started meanwhile: the counts may be in the middle of it
            }
            List<Integer> changed;
            synchronized (this) {
                changed = cuts.place((int) before, counts, lastPauseOrdinal, pauses, beans, matching.placed());
            }
            long now = now();
            for (int i : changed) {
                GcBeans.Collection c = b.last(i);
                if (c != null && c.id() == counts[i]) { // still the collection the cut counted
                    arrive(new GcDetails(b.name(i), null, null, GcDetails.key(i, c.id()), c.startMillis(), c.durationMillis(),
                            c.usedBefore(), c.usedAfter(), c.committedAfter(), now, false));
                }
            }
            synchronized (this) {
                match();
                classify(false);
            }
        } catch (Throwable t) {
            Failures.report("agent.gc.cut", t);
        } finally {
            if (ts != null) {
                ts.busy = wasBusy;
            }
        }
    }

    /**
     * @return the snapshot ({@link System#nanoTime()}) of the latest collection that examined the whole heap decided
     *         since the last call: the samples allocated before it and still alive were reachable then; or
     *         {@link #NO_VERDICT}
     */
    synchronized long takeVerdict() {
        long v = verdict;
        verdict = NO_VERDICT;
        return v;
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
        long now = now();
        classify(all);
        int written = 0;
        try {
            for (GcPause p : pauses) {
                boolean complete = p.classified && p.resolved() && allNotified(p);
                if (!all && !complete && now - p.end < SETTLE_NANOS || !p.classified) {
                    break;
                }
                if (p.expected != null && p.expected.length > 0 && p.details.isEmpty()) {
                    if (p.measuredUsed >= 0) {
                        measuredFigures++; // the JVM's figures were lost, memscope's reading stands in
                    } else {
                        withoutFigures++; // a collection the JVM counted whose figures were no longer to be had
                    }
                }
                done(p.record(beans, endCheckFigures));
                matching.written(p);
                written++;
            }
        } finally {
            // the written ones go at once: one by one from the front moved every later pause each time, and a drain
            // thread that fell behind writes thousands together
            pauses.subList(0, written).clear();
        }
        cycles.settle(all, now, this);
    }

    private static boolean allNotified(GcPause p) {
        int expected = p.expected == null ? -1 : p.expected.length;
        int notified = 0;
        for (GcDetails d : p.details) {
            if (d.notified) {
                notified++;
            }
        }
        return expected >= 0 && notified >= expected;
    }

    /** A record made final: taken by {@link #take}, kept for {@link #since}. */
    void done(GcRecord r) {
        ready.add(r);
        history.add(r);
    }

    /**
     * Collections a bean counted whose heap figures were not to be had: the JVM reports them in the collection's
     * notification (sent only to listeners registered when it ends) and as a bean's latest collection (until the
     * next one), so a collection is lost when the drain thread reads the beans the first time (at the first
     * collection, not at start-up) after another collection of the same bean ended.
     */
    private long withoutFigures;
    /** When the notification listener was registered ({@link System#nanoTime()}); MAX_VALUE before. */
    private long listeningSince = Long.MAX_VALUE;
    private long measuredFigures;

    /**
     * Decides what the pauses examined, in order: each one whose bean collections are known, or (with {@code all}, or
     * once it is old enough to be written) each one, with what is known of it.
     */
    private void classify(boolean all) {
        if (kinds == null) {
            for (GcPause p : pauses) {
                p.classified = true; // no beans read: nothing known of what any pause examined
                if (p.endCheckFrom != Long.MIN_VALUE) {
                    endCheckPause(p);
                }
            }
            return;
        }
        long now = now();
        for (GcPause p : pauses) {
            if (p.classified) {
                continue;
            }
            // a pause no cut covered yet waits for one (the drain thread may be late: a loaded machine, the first
            // reading of the beans), at most STALE_NANOS
            boolean due = all || now - p.end >= SETTLE_NANOS && (p.ordinal <= cuts.ordinal() || now - p.end >= STALE_NANOS);
            if (!p.resolved() && !due) {
                break; // in order: a later pause waits for this one
            }
            String[] names = null;
            if (p.expected != null) {
                names = new String[p.expected.length];
                for (int i = 0; i < names.length; i++) {
                    names[i] = beans.name((int) (p.expected[i] >>> 48));
                }
            } else if (p.group != null && p.group.complete() || !p.details.isEmpty()) {
                names = new String[p.details.size()];
                for (int i = 0; i < names.length; i++) {
                    names[i] = p.details.get(i).name;
                }
                if (names.length == 0 && !(p.group != null && p.group.complete())) {
                    names = null;
                }
            }
            long[] kind = kinds.pause(p.start, p.end, names, p.freed, p.latestFreedAllocation);
            p.examined = Examined.ofCode((int) kind[0]);
            p.unnamedMarkingEnd = names != null && names.length == 0 && p.examined == Examined.WHOLE_HEAP;
            p.snapshot = kind[1];
            p.classified = true;
            if (p.endCheckFrom != Long.MIN_VALUE) {
                endCheckPause(p);
            }
            if (p.examined == Examined.WHOLE_HEAP) {
                verdict = Math.max(verdict, p.snapshot);
            }
        }
    }

    /**
     * The capture's end check ({@link io.memscope.launch.EndCheck#GC}) ran {@code System.gc()} from {@code fromNanos} to
     * {@code toNanos}: every HotSpot collector examines the whole heap for it (a full collection; a major or whole
     * cycle of ZGC and Shenandoah; with {@code -XX:+ExplicitGCInvokesConcurrent}, a G1 marking {@code System.gc()}
     * waits for), judging every sample taken before the call. The last collection that started during the call is
     * its verdict: whole heap, snapshot at the call (whatever its bean says, which may not have been read: no JMX is
     * loaded at the end of a capture that saw no collection before). A pause no bean collection was placed in gets
     * the heap figures measured around the call ({@code Runtime}), and {@code System.gc()} as its cause.
     */
    synchronized void endCheck(long fromNanos, long toNanos, long usedBefore, long usedAfter, long committed) {
        GcPause last = null;
        for (GcPause p : pauses) {
            // the check's own pause: the last in its window, not one already known to be a young collection (another
            // thread's, just before it, when the check's own pause has not been recorded yet)
            if (p.start >= fromNanos && p.start <= toNanos && !(p.classified && p.examined == Examined.YOUNG)) {
                last = p;
            }
        }
        boolean cycle = cycles.endCheck(fromNanos, toNanos); // its own record judges the whole heap already
        if (last != null && !cycle) {
            // System.gc() returned: whatever record says it, a collection of the whole heap judged every sample taken
            // before the call
            verdict = Math.max(verdict, fromNanos);
            last.endCheckFrom = fromNanos;
            if (last.details.isEmpty()) {
                endCheckFigures = new long[] {last.ordinal, usedBefore, usedAfter, committed};
            }
            if (last.classified) {
                endCheckPause(last);
            } // else its bean collections, once known, decide (classify): the check's own or a later young one
        }
    }

    /** The end check's pause as {@link #endCheck} chose it, now classified: the whole heap unless it was young. */
    private void endCheckPause(GcPause p) {
        if (p.examined == Examined.YOUNG) {
            // another thread's young collection after the check's own, which its record judges (a full collection)
            if (endCheckFigures != null && endCheckFigures[0] == p.ordinal) {
                endCheckFigures = null;
            }
        } else {
            p.examined = Examined.WHOLE_HEAP;
            p.snapshot = p.endCheckFrom;
        }
        p.endCheckFrom = Long.MIN_VALUE;
    }

    /**
     * Whether a concurrent cycle that examined the whole heap and started at or after {@code nanos} is known (after a
     * {@link #cut}): ZGC and Shenandoah satisfy {@code System.gc()} with a cycle already running when it is called,
     * which did not judge what was allocated after its start.
     *
     * @return true when the JVM has no such cycles (its whole-heap collections are pauses), or one is known
     */
    synchronized boolean wholeHeapCycleSince(long nanos) {
        if (beans == null) {
            return true;
        }
        boolean concurrent = false;
        for (int i = 0; i < beans.size(); i++) {
            concurrent |= CollectionKinds.isCycleBean(beans.name(i))
                    && CollectionKinds.ofBean(beans.name(i)) == Examined.WHOLE_HEAP;
        }
        if (!concurrent) {
            return true;
        }
        return cycles.wholeHeapSince(nanos);
    }

    /** The end check's pause's ordinal and heap figures measured around it, when no bean collection said them. */
    private long[] endCheckFigures;

    /** @return notifications that fitted no collection (dropped) */
    synchronized long unmatched() {
        return matching.unmatched();
    }

    /** Under the lock: places the details that arrived ({@link DetailsMatching#match}). */
    private void match() {
        verdict = Math.max(verdict, matching.match(pauses, cuts, now()));
    }

    /**
     * What the log knows of its own work, for the recording's metadata: notifications placed nowhere, cuts made and
     * those that held several pauses, pairs that taught the clock, collections a bean counted whose heap figures
     * were not to be had (pauses no bean counts have none: the JVM reports figures only for its beans' collections).
     */
    synchronized void metadata(Map<String, String> out) {
        out.put("gcNotificationsUnmatched", Long.toString(matching.unmatched()));
        out.put("gc.cuts", Long.toString(cuts.cuts()));
        out.put("gc.cutsWithSeveralPauses", Long.toString(cuts.ambiguous()));
        out.put("gc.clockPairs", Long.toString(times.clock().pairs()));
        out.put("gc.clockUncertaintyNanos", times.paired() ? Long.toString(times.clock().uncertainty()) : "unknown");
        out.put("gc.collectionsWithoutHeapFigures", Long.toString(withoutFigures));
        out.put("gc.collectionsWithMeasuredHeap", Long.toString(measuredFigures));
        out.put(MetadataKeys.GC_COLLECTIONS_UNTIMED, Long.toString(untimed));
    }

    /**
     * The end of a capture: a last cut (the figures of the collections since the drain thread's last one: the final
     * collection's), then waits (at most {@code millis}) for the notifications of the collections reported so far.
     * Does not wait when not listening.
     */
    void awaitDetails(long millis) {
        cut();
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            synchronized (this) {
                if (!registered()) {
                    return;
                }
                match();
                boolean all = true;
                for (GcPause p : pauses) {
                    if (p.end < listeningSince) {
                        continue; // ended before the listener was registered: its notification never comes
                    }
                    all &= p.expected == null ? !p.details.isEmpty() : p.details.size() >= p.expected.length;
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
        GcNotifications n;
        synchronized (this) {
            stopped = true;
            n = notificationSource;
        }
        if (n != null) {
            n.unregister();
        }
    }

    /** Under the lock: whether the notification listener is registered on a bean. */
    private boolean registered() {
        return notificationSource != null && notificationSource.registered();
    }

    /** Under the lock: whether {@link #stop} was called. */
    boolean stopped() {
        return stopped;
    }

    /** @return whether memscope's notification listener is registered */
    synchronized boolean listening() {
        return registered();
    }
}
