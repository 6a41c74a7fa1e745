package io.memscope.agent.capture;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.error.Failures;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import io.memscope.recording.MetadataKeys;
import io.memscope.recording.RecordingWriter;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One capture inside the JVM: starts the hooks, runs the background thread (collected samples become
 * DEALLOCATE events; counters of dead threads are folded; every {@code flush} period, or whenever
 * {@value #FLUSH_EVENTS} events are waiting, the store is drained into the recording file by a
 * {@link RecordingStream}), and at the end runs a full GC, settles liveness and native memory, and closes the
 * recording. The recording is all the capture leaves behind: reports are built from it outside the JVM.
 *
 * <p>Memory: the {@link io.memscope.store.EventStore} holds at most about one flush period of events. If the
 * recording cannot be opened, the capture keeps its events in memory until the end and tries to open it then.
 *
 * <p>At most one capture runs at a time; {@link #start} after {@link #finish} begins a new one.
 */
public final class Capture {
    /** Events waiting in the store that trigger a flush before the period is over. */
    static final int FLUSH_EVENTS = 65_536;

    /** Drops everything: before the first capture (no store is made until one starts). */
    private static final AllocationSink NO_SINK = new AllocationSink() {
        @Override
        public void record(MemoryEventType type, long address, long size, long previousSize, int siteId, long stackId,
                           String typeName) {
        }
    };
    private static volatile AllocationSink sink = NO_SINK;

    private static volatile RecordingStream stream;
    private static Path recordingFile;
    private static Map<String, String> startMetadata = Map.of();
    /**
     * Whether the background thread has tried to open the recording (it does first thing: the writer's classes and
     * the file are not the application's start-up's business). Events recorded before wait in the store.
     */
    private static volatile boolean opened;
    private static long flushNanos = 1_000_000_000L;
    private static boolean debug;
    private static volatile NativeTracker nativeTracker;
    private static GcListener gcListener;
    private static int stackDepth = 64;
    private static long startNanos;
    private static long startEpochMs;
    private static volatile boolean running;
    private static Thread background;
    /** The JVM's heap sampler (JVMTI) when it takes this capture's samples, else null. */
    private static volatile JvmtiHeapSampler jvmti;
    /** GC records from the JVM's collections (with {@link #jvmti}), else {@link #gcListener} alone. */
    private static volatile CollectionLog collectionLog;
    private static final Map<Integer, long[]> FOLDED = new HashMap<>();

    private Capture() {
    }

    /** Measures object layout; call once before instrumenting anything. */

    /** The agent's instrumentation: sizes objects for the bytecode hooks, opens a JDK package for the end. */
    private static Instrumentation instrumentation;

    public static void init(Instrumentation inst) {
        instrumentation = inst;
    }

    /**
     * Waits until the JVM's Reference Handler has processed every pending reference (so Cleaners of unreachable
     * direct buffers have run), as {@code java.nio.Bits} does before it reports direct memory exhausted.
     *
     * @return false when the JDK's internal access is not available
     */
    private static boolean awaitReferenceProcessing() {
        try {
            Instrumentation inst = instrumentation;
            if (inst != null) {
                Module base = Object.class.getModule();
                inst.redefineModule(base, Set.of(), Map.of("jdk.internal.access", Set.of(Capture.class.getModule())),
                        Map.of(), Set.of(), Map.of());
            }
            Class<?> secrets = Class.forName("jdk.internal.access.SharedSecrets");
            Object access = secrets.getMethod("getJavaLangRefAccess").invoke(null);
            java.lang.reflect.Method wait = Class.forName("jdk.internal.access.JavaLangRefAccess")
                    .getMethod("waitForReferenceProcessing");
            for (int i = 0; i < 1000 && Boolean.TRUE.equals(wait.invoke(access)); i++) {
                // it waited: look again until nothing is pending
            }
            return true;
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Starts capturing.
     *
     * @param exact          count every allocation per site as well as sampling
     * @param intervalBytes  mean sampling interval in bytes
     * @param depth          frames per sampled stack (0 = none)
     * @param nativeMemory   track native memory (the Unsafe hooks must also be installed)
     * @param gc             record GC notifications
     * @param recording      the recording file to stream into
     * @param metadata       key/values known at the start (pid, command, options...), written first
     * @param flushMillis    how often the store is drained into the recording
     * @param debugFlushes   print one line per flush on stderr
     */
    public static synchronized void start(boolean exact, long intervalBytes, int depth, boolean nativeMemory,
                                          boolean gc, Path recording, Map<String, String> metadata,
                                          long flushMillis, boolean debugFlushes) {
        start(exact, intervalBytes, depth, nativeMemory, gc, recording, () -> metadata, flushMillis, debugFlushes,
                null);
    }

    /**
     * The settings of the JVM's heap sampler (JVMTI) for {@link #start}: its samples are kept by their site class
     * ({@code include}/{@code exclude}) and attributed to their top frame with {@code includeJdk}.
     */
    public static final class JvmtiSettings {
        final List<String> include;
        final List<String> exclude;
        final boolean includeJdk;
        final long queueBytes;
        final int liveLimit;
        /** Filled by {@link #start}: null when the JVM's sampler runs, else why not. */
        volatile String fallback;

        public JvmtiSettings(List<String> include, List<String> exclude, boolean includeJdk, long queueBytes,
                             int liveLimit) {
            this.include = include;
            this.exclude = exclude;
            this.includeJdk = includeJdk;
            this.queueBytes = queueBytes;
            this.liveLimit = liveLimit;
        }

        /** @return null when the JVM's sampler took the capture's samples, else why it could not */
        public String fallback() {
            return fallback;
        }
    }

    /**
     * Starts capturing.
     *
     * @param jvmtiSettings sample with the JVM's own sampler (JVMTI) when possible; null for the bytecode hooks
     * @param metadata      key/values known at the start, asked for once the sampler is chosen
     */
    public static synchronized void start(boolean exact, long intervalBytes, int depth, boolean nativeMemory,
                                          boolean gc, Path recording,
                                          java.util.function.Supplier<Map<String, String>> metadata,
                                          long flushMillis, boolean debugFlushes, JvmtiSettings jvmtiSettings) {
        if (running) {
            return;
        }
        StoreSink log = new StoreSink();
        sink = log;
        recordingFile = recording;
        flushNanos = flushMillis * 1_000_000L;
        debug = debugFlushes;
        Liveness.clear();
        LiveSites.clear();
        synchronized (FOLDED) {
            FOLDED.clear();
        }
        for (ThreadState ts : ThreadState.ALL) {
            ts.counts = new long[0];
        }
        stackDepth = depth;
        startNanos = System.nanoTime();
        startEpochMs = System.currentTimeMillis();
        nativeTracker = new NativeTracker(log, depth);
        Hooks.exact = exact;
        Hooks.mean = intervalBytes;
        jvmti = null;
        collectionLog = null;
        gcListener = null;
        if (jvmtiSettings != null) {
            CollectionLog collections = new CollectionLog(gc);
            JvmtiHeapSampler.Started started = JvmtiHeapSampler.start(intervalBytes, depth,
                    jvmtiSettings.includeJdk, jvmtiSettings.include.isEmpty() && jvmtiSettings.exclude.isEmpty()
                            ? SiteFilter.ALL : new SiteFilter(jvmtiSettings.include, jvmtiSettings.exclude),
                    true, jvmtiSettings.queueBytes, jvmtiSettings.liveLimit, log.store().strings(), HEAP_EVENTS,
                    collections::listening, collections);
            jvmtiSettings.fallback = started.whyNot;
            jvmti = started.sampler;
            if (started.sampler != null) {
                collectionLog = collections;
            }
        }
        if (jvmti == null && instrumentation != null) {
            ObjectSizes.init(instrumentation); // the bytecode hooks size what they see; the JVM's sampler needs not
        }
        if (gc && collectionLog == null) {
            try {
                gcListener = new GcListener(startNanos, startEpochMs);
                gcListener.start();
            } catch (Throwable t) {
                gcListener = null;
                Failures.report("agent.gc.start", t);
            }
        }
        // The writer's file I/O may allocate (and cache per thread) temporary direct buffers: track them as
        // memscope's own, so that when this thread's buffer cache later frees them it is not an unknown free.
        Hooks.nativeEnabled = nativeMemory;
        ThreadState self = ThreadState.current();
        boolean wasBusy = self != null && self.busy;
        if (self != null) {
            self.busy = true;
        }
        try {
            startMetadata = new LinkedHashMap<>(metadata.get());
        } finally {
            if (self != null) {
                self.busy = wasBusy;
            }
        }
        stream = null;
        opened = false;
        for (ThreadState ts : ThreadState.ALL) {
            ts.untilSample = ts.nextInterval(intervalBytes);
        }
        running = true;
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                backgroundLoop();
            }
        }, "memscope-reaper");
        t.setDaemon(true);
        background = t;
        t.start();
        Hooks.nativeEnabled = nativeMemory;
        Hooks.heapSampling = true;
        Hooks.heapEnabled = true;
    }

    /** Opens the recording the capture streams into (background thread, once; or the end of a short capture). */
    private static void openRecording() {
        synchronized (OPEN_LOCK) {
            if (opened) {
                return;
            }
            opened = true;
            AllocationSink s = sink;
            if (s instanceof StoreSink) {
                stream = openStream((StoreSink) s, recordingFile, Hooks.exact, (long) Hooks.mean, startMetadata);
            }
        }
    }

    /** Not the class's lock: the end of a capture holds that while it waits for the background thread. */
    private static final Object OPEN_LOCK = new Object();

    private static RecordingStream openStream(StoreSink log, Path file, boolean exact, long intervalBytes,
                                              Map<String, String> metadata) {
        if (file == null) {
            return null;
        }
        try {
            java.nio.file.Files.createDirectories(file.toAbsolutePath().getParent());
            RecordingWriter w = RecordingWriter.builder(file).strings(log.store().strings())
                    .process(ProcessInfo.pid(), ProcessInfo.startEpochMillis())
                    .clock(startEpochMs * 1_000_000L, startNanos).open();
            w.metadata(MetadataKeys.MODE, exact ? "exact" : "sample");
            w.metadata(MetadataKeys.INTERVAL_BYTES, Long.toString(intervalBytes));
            w.metadata(MetadataKeys.START_NANOS, Long.toString(startNanos));
            w.metadata(MetadataKeys.START_EPOCH_MS, Long.toString(startEpochMs));
            metadata.forEach(w::metadata);
            w.flush();
            return new RecordingStream(log.store(), w);
        } catch (Throwable t) {
            Failures.report("agent.recording.open", t);
            System.err.println("memscope agent: cannot stream into " + file + " (" + t
                    + "); events stay in memory until the end");
            return null;
        }
    }

    public static boolean running() {
        return running;
    }

    /** @return events waiting in the store (not yet moved into the recording) */
    public static long storeEvents() {
        AllocationSink s = sink;
        return s instanceof StoreSink ? ((StoreSink) s).size() : 0;
    }

    /** @return bytes held by the store's buffers */
    public static long storeRetainedBytes() {
        AllocationSink s = sink;
        return s instanceof StoreSink ? ((StoreSink) s).store().retainedBytes() : 0;
    }

    /** @return events moved into the recording by this capture */
    public static long recordingEvents() {
        RecordingStream rs = stream;
        return rs == null ? 0 : rs.drained();
    }

    /** @return the recording file of the current capture, or an empty string */
    public static String recordingFile() {
        Path f = recordingFile;
        return f == null ? "" : f.toAbsolutePath().toString();
    }

    private static void backgroundLoop() {
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true;
        }
        JvmtiHeapSampler own = jvmti;
        if (own != null) {
            own.drainingThread(Thread.currentThread());
        }
        long lastFold = System.nanoTime();
        long lastFlush = lastFold;
        openRecording();
        // Never interrupted: an interrupt during a FileChannel write would close the recording.
        while (running) {
            try {
                JvmtiHeapSampler sampler = jvmti;
                if (sampler != null) {
                    sampler.await(JvmtiHeapSampler.IDLE_NANOS);
                    sampler.drain();
                    Liveness.drain(sink, 0);
                } else {
                    Liveness.drain(sink, 100);
                }
                long now = System.nanoTime();
                if (now - lastFold > 1_000_000_000L) {
                    foldDeadThreads();
                    lastFold = now;
                }
                AllocationSink s = sink;
                if (stream != null && (now - lastFlush >= flushNanos
                        || (s instanceof StoreSink && ((StoreSink) s).size() >= FLUSH_EVENTS))) {
                    flush();
                    lastFlush = System.nanoTime();
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                Failures.report("agent.reaper", t);
            }
        }
    }

    /** Drains the store into the recording (background thread and end of capture). */
    private static void flush() {
        RecordingStream rs = stream;
        if (rs == null) {
            return;
        }
        try {
            long n = rs.drain(gcRecords(false));
            if (debug) {
                StoreSink s = (StoreSink) sink;
                System.err.println("memscope agent: flushed " + n + " events; store holds " + s.size()
                        + " events in " + s.store().retainedBytes() + " bytes; recording has "
                        + rs.drained() + " events");
            }
        } catch (Throwable t) {
            Failures.report("agent.recording.flush", t);
        }
    }

    private static void foldDeadThreads() {
        for (Iterator<ThreadState> it = ThreadState.ALL.iterator(); it.hasNext(); ) {
            ThreadState ts = it.next();
            if (!ts.thread.isAlive()) {
                fold(ts);
                Liveness.orphan(ts);
                ThreadState.release(ts);
                it.remove();
            }
        }
    }

    private static void fold(ThreadState ts) {
        long[] c = ts.counts;
        synchronized (FOLDED) {
            for (int i = 0; i + 1 < c.length; i += 2) {
                if (c[i] != 0) {
                    long[] acc = FOLDED.computeIfAbsent(i >> 1, k -> new long[2]);
                    acc[0] += c[i];
                    acc[1] += c[i + 1];
                }
            }
        }
        ts.counts = new long[0];
    }

    /**
     * The JVM sampler's samples and collections, recorded by the drain thread on behalf of the allocating threads:
     * straight into the recording when it streams (the store's string table is the writer's), else into the store.
     */
    private static final HeapSampleSink HEAP_EVENTS = new HeapSampleSink() {
        @Override
        public void allocated(long timeNanos, long threadId, int threadNameId, long sampleId, long size, int siteId,
                              long stackId, int typeNameId) {
            event(timeNanos, MemoryEventType.ALLOCATE, sampleId, size, 0, threadId, threadNameId, siteId, stackId,
                    typeNameId);
        }

        @Override
        public void collected(long timeNanos, long sampleId, long size, long lifetimeNanos, int siteId) {
            JvmtiHeapSampler s = jvmti;
            event(timeNanos, MemoryEventType.DEALLOCATE, sampleId, size, lifetimeNanos, s == null ? 0 : s.ownTid(),
                    s == null ? 0 : s.ownNameId(), siteId, 0, 0);
        }

        private void event(long time, MemoryEventType type, long address, long size, long previousSize,
                           long threadId, int threadNameId, int siteId, long stackId, int typeNameId) {
            try {
                RecordingStream rs = stream;
                if (rs != null) {
                    rs.accept(time, type, address, size, previousSize, threadId, threadNameId, 0, typeNameId,
                            stackId, siteId);
                    return;
                }
                AllocationSink s = sink;
                if (s instanceof StoreSink) {
                    io.memscope.store.EventStore store = ((StoreSink) s).store();
                    io.memscope.store.StringTable strings = store.strings();
                    store.record(new MemoryEvent(time, type, address, size, previousSize, threadId,
                            strings.get(threadNameId), null, strings.get(typeNameId), stackId, siteId));
                }
            } catch (Throwable t) {
                Failures.report("agent.sample.record", t);
            }
        }
    };

    /** @return the GC records to write now: all of them at the end of the capture */
    private static List<GcRecord> gcRecords(boolean all) {
        CollectionLog log = collectionLog;
        if (log != null) {
            return log.take(all);
        }
        GcListener l = gcListener;
        return l == null ? List.of() : l.takeRecords();
    }

    /** The slow path of a heap allocation: the thread's byte counter crossed its sampling point. */
    static void sample(ThreadState ts, Object o, int site, long size) {
        ts.busy = true;
        try {
            ts.untilSample = ts.nextInterval(Hooks.mean);
            if (o == null || !Hooks.heapSampling) {
                return;
            }
            long id = Liveness.track(ts, o, site, size, LiveSites.weight(size, Hooks.mean));
            long stack = StackTable.capture(stackDepth);
            sink.record(MemoryEventType.ALLOCATE, id, size, 0, site, stack, SiteTable.typeOf(site, o));
        } catch (Throwable t) {
            Failures.report("agent.sample", t);
        } finally {
            ts.busy = false;
        }
    }

    static NativeTracker nativeTracker() {
        return nativeTracker;
    }

    /**
     * Ends the capture: stops heap sampling, runs a full GC (as seed 003 does at stop) and waits for its GC
     * notification, waits briefly for Cleaners to release unreachable direct memory, settles liveness, then moves the
     * last events into the recording, appends what is only known at the end and closes it. Nothing is read back
     * and no report is built here: reports are built from the recording outside the application's JVM.
     *
     * @param metadata key/values to add (command, pid, options...)
     * @return the closed recording, or null if there was no capture or no recording could be written
     */
    public static synchronized Path finish(Map<String, String> metadata) {
        return finish(metadata, true);
    }

    /**
     * @param collect run a full GC first (and wait for Cleaners and for its notification), so that the recording
     *                ends with a collection at which "held" is measured; without it the capture ends at once and
     *                held memory is what the last collection of the run found
     */
    public static synchronized Path finish(Map<String, String> metadata, boolean collect) {
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true;
        }
        try {
            Hooks.heapSampling = false;
            Hooks.heapEnabled = false;
            JvmtiHeapSampler sampler = jvmti;
            if (sampler != null) {
                sampler.pause();
            }
            if (!running) {
                if (sampler != null) {
                    sampler.close();
                    jvmti = null;
                }
                return null;
            }
            GcListener gcs = gcListener;
            if (collect) {
                int gcsBefore = gcs == null ? 0 : gcs.count();
                System.gc();
                settleNative();
                if (gcs != null) {
                    // The final collection's record goes into the recording: held memory at the end is measured at it.
                    gcs.awaitExplicitCollection(gcsBefore, FINAL_GC_WAIT_MILLIS);
                }
            }
            running = false;
            if (sampler != null) {
                sampler.wake();
            }
            Thread t = background;
            if (t != null) {
                try {
                    t.join(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            CollectionLog collections = collectionLog;
            if (collections != null && !collections.listening()) {
                collections.stop(); // no JMX at the end: the collections it did not see keep no details
            }
            if (sampler != null) {
                sampler.close(); // the last samples, and which were collected by the GC above
                jvmtiMetadata(sampler);
            }
            AllocationSink s = sink;
            if (sampler == null) {
                // the bytecode hooks' samples (Java weak references)
                try {
                    Liveness.drain(s, 0);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                Liveness.sweep(s);
            }
            long endNanos = System.nanoTime();
            Hooks.nativeEnabled = false;
            if (gcs != null) {
                gcs.stop();
            }
            if (collections != null) {
                if (collect) {
                    collections.awaitDetails(FINAL_GC_WAIT_MILLIS);
                }
                collections.stop();
                JVMTI_METADATA.put("gcNotificationsUnmatched", Long.toString(collections.unmatched()));
            }
            Map<String, String> meta = new java.util.LinkedHashMap<>(metadata);
            meta.putAll(JVMTI_METADATA);
            JVMTI_METADATA.clear();
            return finishRecording(meta, endNanos);
        } finally {
            if (self != null) {
                self.busy = false;
            }
        }
    }

    /** What the JVM sampler counted, for the recording's metadata at the end. */
    private static final Map<String, String> JVMTI_METADATA = new java.util.LinkedHashMap<>();

    private static void jvmtiMetadata(JvmtiHeapSampler s) {
        JVMTI_METADATA.put("jvmti.samples", Long.toString(s.counter(JvmtiHeapSampler.SEEN)));
        JVMTI_METADATA.put("jvmti.samplesKept", Long.toString(s.kept()));
        JVMTI_METADATA.put("jvmti.droppedQueueFull", Long.toString(s.counter(JvmtiHeapSampler.DROPPED_FULL)));
        JVMTI_METADATA.put("jvmti.skippedExceptionPending",
                Long.toString(s.counter(JvmtiHeapSampler.SKIPPED_EXCEPTION)));
        JVMTI_METADATA.put("jvmti.skippedError", Long.toString(s.counter(JvmtiHeapSampler.SKIPPED_ERROR)));
        JVMTI_METADATA.put("jvmti.unknownClass", Long.toString(s.counter(JvmtiHeapSampler.CLASS_UNKNOWN)));
        JVMTI_METADATA.put("jvmti.ownAllocations", Long.toString(s.own()));
        JVMTI_METADATA.put("jvmti.filtered", Long.toString(s.filtered()));
        JVMTI_METADATA.put("jvmti.unresolvedStacks", Long.toString(s.unresolved()));
        JVMTI_METADATA.put("liveness.untracked", Long.toString(s.untracked()));
        JVMTI_METADATA.put("liveness.collected", Long.toString(s.collected()));
        JVMTI_METADATA.put("liveness.ambiguousCollections", Long.toString(s.ambiguous()));
        JVMTI_METADATA.put("liveness.plainHandleReads", Long.toString(s.counter(JvmtiHeapSampler.PLAIN_READS)));
        JVMTI_METADATA.put("liveness.handleDisagreements",
                Long.toString(s.counter(JvmtiHeapSampler.DISAGREEMENTS)));
        JVMTI_METADATA.put("liveness.checkedAtCollectionStart",
                Long.toString(s.counter(JvmtiHeapSampler.MARKED_AT_GC_START)));
        JVMTI_METADATA.put("collections", Long.toString(s.counter(JvmtiHeapSampler.GC_FINISHED)));
    }

    /** Longest wait, at the end of a capture, for the notification of the final {@code System.gc()}. */
    static final long FINAL_GC_WAIT_MILLIS = 1000;

    private static void settleNative() {
        NativeTracker nt = nativeTracker;
        if (nt == null || !Hooks.nativeEnabled) {
            return;
        }
        if (awaitReferenceProcessing()) {
            return;
        }
        long previous = nt.outstandingBytes();
        int stable = 0;
        for (int i = 0; i < 20 && stable < 2; i++) {
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = nt.outstandingBytes();
            stable = now == previous ? stable + 1 : 0;
            previous = now;
        }
    }

    /**
     * Moves the last events into the recording, appends what is only known at the end (end time, exact counts,
     * native anomalies, failures, final metadata) and closes it. When the recording could not be opened at the start
     * (the events then stayed in the store), it is opened now and everything goes into it.
     *
     * @return the closed recording, or null if it could not be written
     */
    private static Path finishRecording(Map<String, String> metadata, long endNanos) {
        openRecording(); // a capture that ended before the background thread opened it
        RecordingStream rs = stream;
        stream = null;
        Path file = recordingFile;
        if (rs == null && file != null && sink instanceof StoreSink) {
            rs = openStream((StoreSink) sink, file, Hooks.exact, (long) Hooks.mean, startMetadata);
        }
        if (rs == null) {
            return null;
        }
        try {
            rs.drain(gcRecords(true));
        } catch (Throwable t) {
            Failures.report("agent.recording.flush", t);
        }
        try {
            RecordingWriter w = rs.writer();
            w.metadata(MetadataKeys.END_NANOS, Long.toString(endNanos));
            metadata.forEach(w::metadata);
            if (Hooks.exact) {
                for (ThreadState ts : ThreadState.ALL) {
                    fold(ts);
                }
                synchronized (FOLDED) {
                    for (Map.Entry<Integer, long[]> e : FOLDED.entrySet()) {
                        rs.site(e.getKey());
                        w.siteCount(e.getKey(), e.getValue()[0], e.getValue()[1]);
                    }
                    FOLDED.clear();
                }
            }
            NativeTracker nt = nativeTracker;
            if (nt != null) {
                for (Anomaly a : nt.anomalies()) {
                    rs.stack(a.stackId());
                    w.anomaly(a.kind(), a.timestampNanos(), a.address(), a.size(), a.threadId(), a.stackId(),
                            a.detail());
                }
                w.metadata("nativeAnomalies", Long.toString(nt.anomalyCount()));
                w.metadata("nativeUnknownFreesByJdk", Long.toString(nt.jdkUnknownFrees()));
            }
            w.metadata(MetadataKeys.FAILURES, Long.toString(Failures.total()));
            List<String> messages = Failures.messages();
            for (int i = 0; i < messages.size(); i++) {
                w.metadata(MetadataKeys.FAILURE_PREFIX + i, messages.get(i));
            }
            w.close();
            return file;
        } catch (Throwable t) {
            Failures.report("agent.recording", t);
            System.err.println("memscope agent: could not finish the recording " + file + ": " + t);
            try {
                rs.writer().close(false);
            } catch (Throwable ignored) {
                // already reported
            }
            return null;
        }
    }
}
