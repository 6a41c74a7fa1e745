package io.memscope.agent.capture;

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

    private static volatile AllocationSink sink = new StoreSink();
    private static volatile RecordingStream stream;
    /** What the application reports through memscope's API during this capture ({@link ApiHooks}). */
    private static ApiCapture api;
    /** Whether the next capture profiles functions ({@link FunctionHooks}), and runs a full GC when it starts. */
    private static boolean profileFunctions;
    private static boolean gcAtStart;
    private static FunctionProfile functions;
    private static Path recordingFile;
    private static Map<String, String> startMetadata = Map.of();
    private static long flushNanos = 1_000_000_000L;
    private static boolean debug;
    private static volatile NativeTracker nativeTracker;
    private static GcListener gcListener;
    private static int stackDepth = 64;
    private static long startNanos;
    private static long startEpochMs;
    private static volatile boolean running;
    private static Thread background;
    private static final Map<Integer, long[]> FOLDED = new HashMap<>();

    private Capture() {
    }

    /** Measures object layout; call once before instrumenting anything. */
    /** The JVM sampler's samples kept, by site class ({@link #siteFilter}). */
    private static volatile SiteFilter siteFilter = SiteFilter.ALL;

    public static void init(Instrumentation inst) {
        ObjectSizes.init(inst);
        try {
            // To wait for the Reference Handler (which runs direct buffers' Cleaners) at the end of a capture.
            Module base = Object.class.getModule();
            inst.redefineModule(base, Set.of(), Map.of("jdk.internal.access", Set.of(Capture.class.getModule())),
                    Map.of(), Set.of(), Map.of());
        } catch (Throwable t) {
            // settleNative() falls back to waiting until outstanding native memory stops changing
        }
    }

    /**
     * Waits until the JVM's Reference Handler has processed every pending reference (so Cleaners of unreachable
     * direct buffers have run), as {@code java.nio.Bits} does before it reports direct memory exhausted.
     *
     * @return false when the JDK's internal access is not available
     */
    static boolean awaitReferenceProcessing() {
        try {
            java.lang.invoke.MethodHandle wait = referenceProcessing();
            for (int i = 0; i < 1000 && (boolean) wait.invoke(); i++) {
                // it waited: look again until nothing is pending
            }
            return true;
        } catch (Throwable t) {
            return false;
        }
    }

    /** {@code JavaLangRefAccess.waitForReferenceProcessing()} bound to the JDK's instance, looked up once. */
    private static volatile java.lang.invoke.MethodHandle referenceProcessing;

    private static java.lang.invoke.MethodHandle referenceProcessing() throws Exception {
        java.lang.invoke.MethodHandle h = referenceProcessing;
        if (h == null) {
            Class<?> secrets = Class.forName("jdk.internal.access.SharedSecrets");
            Object access = secrets.getMethod("getJavaLangRefAccess").invoke(null);
            java.lang.reflect.Method wait = Class.forName("jdk.internal.access.JavaLangRefAccess")
                    .getMethod("waitForReferenceProcessing");
            h = java.lang.invoke.MethodHandles.publicLookup().unreflect(wait).bindTo(access);
            referenceProcessing = h;
        }
        return h;
    }

    /** Collections already turned into held figures ({@link #processGcs}); background thread only. */
    private static long gcsProcessed;

    /**
     * When the GC listener saw new collections: waits until the Reference Handler has enqueued the references they
     * cleared, settles those samples, then tells {@link LiveSites} which objects were reachable at the latest GC
     * (its "held" figures). Background thread only.
     */
    private static void processGcs() throws InterruptedException {
        GcListener g = gcListener;
        if (g == null || g.count() == gcsProcessed) {
            return;
        }
        long n = g.count();
        long start = g.lastStartNanos();
        try {
            // Once: the references the GCs seen so far cleared are then enqueued (looping until nothing is pending
            // would chase the next GCs' references in a program that collects all the time).
            boolean ignored = (boolean) referenceProcessing().invoke();
        } catch (Throwable noInternalAccess) {
            Thread.sleep(20); // give the Reference Handler a moment instead
        }
        Liveness.drain(sink, 0);
        LiveSites.gcProcessed(start);
        gcsProcessed = n;
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
        if (running) {
            return;
        }
        StoreSink log = new StoreSink();
        sink = log;
        recordingFile = recording;
        startMetadata = new LinkedHashMap<>(metadata);
        flushNanos = flushMillis * 1_000_000L;
        debug = debugFlushes;
        Liveness.clear();
        // Loaded and initialized here, before the hooks run: loading it inside the first sample on an instrumented
        // JDK class (--include-jdk) would recurse through the class loader's own allocations.
        OwnBytes.now();
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
        gcListener = null;
        gcsProcessed = 0;
        if (gc) {
            try {
                gcListener = new GcListener(startNanos, startEpochMs);
                gcListener.start();
            } catch (Throwable t) {
                gcListener = null;
                Failures.report("agent.gc.start", t);
            }
        }
        LiveSites.clear(gcListener != null);
        Hooks.exact = exact;
        Hooks.mean = intervalBytes;
        // The writer's file I/O may allocate (and cache per thread) temporary direct buffers: track them as
        // memscope's own, so that when this thread's buffer cache later frees them it is not an unknown free.
        Hooks.nativeEnabled = nativeMemory;
        ThreadState self = ThreadState.current();
        boolean wasBusy = self != null && self.busy;
        if (self != null) {
            self.busy = true;
        }
        try {
            stream = openStream(log, recording, exact, intervalBytes, metadata);
        } finally {
            if (self != null) {
                self.busy = wasBusy;
            }
        }
        api = new ApiCapture(log.store().strings(), depth);
        functions = profileFunctions ? new FunctionProfile() : null;
        if (stream != null) {
            stream.api(api);
            stream.functions(functions);
        }
        ApiHooks.start(api);
        if (gcAtStart) {
            System.gc(); // what is garbage already is not held at the first GC of the capture either
        }
        FunctionHooks.profile(functions);
        for (ThreadState ts : ThreadState.ALL) {
            ts.untilSample = ts.nextInterval(intervalBytes);
        }
        running = true;
        Thread t = new Thread(Capture::backgroundLoop, "memscope-reaper");
        t.setDaemon(true);
        background = t;
        t.start();
        Hooks.nativeEnabled = nativeMemory;
        Hooks.heapSampling = true;
        Hooks.heapEnabled = true;
    }

    private static RecordingStream openStream(StoreSink log, Path file, boolean exact, long intervalBytes,
                                              Map<String, String> metadata) {
        if (file == null) {
            return null;
        }
        try {
            java.nio.file.Files.createDirectories(file.toAbsolutePath().getParent());
            RecordingWriter w = RecordingWriter.builder(file).strings(log.store().strings())
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

    /**
     * Settings of the next {@link #start}: a function profile (the classes are instrumented by the transformer;
     * {@code functions=...}), and a full GC before it starts ({@code gcAtEdges}, as seed 003 does at start).
     */
    public static synchronized void extras(boolean functionProfile, boolean gcAtEdges) {
        profileFunctions = functionProfile;
        gcAtStart = gcAtEdges;
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
        long lastFold = System.nanoTime();
        long lastFlush = lastFold;
        // Never interrupted: an interrupt during a FileChannel write would close the recording.
        while (running) {
            try {
                Liveness.drain(sink, 100);
                processGcs();
                ApiCapture a = api;
                if (a != null) {
                    a.poll(); // named objects collected
                }
                long now = System.nanoTime();
                LiveSites.tick(now);
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
            long n = rs.drain(gcListener);
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

    /** Names of allocated types, one per class (a JVM-sampled object's type). */
    private static final ClassValue<String> TYPE_NAMES = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            return type.getTypeName();
        }
    };

    /** Whether JVM-sampled allocations are attributed to their top (JDK) frame rather than the first application frame. */
    private static volatile boolean includeJdkSites;

    /**
     * Keeps only JVM-sampled allocations whose site class matches the agent's {@code include} / {@code exclude}
     * prefixes ({@link SiteFilter}); before {@link JvmtiSampler#start}.
     */
    public static void siteFilter(List<String> include, List<String> exclude) {
        siteFilter = include.isEmpty() && exclude.isEmpty() ? SiteFilter.ALL : new SiteFilter(include, exclude);
    }

    /** Sets how JVM-sampled allocations are attributed ({@code includeJdk}); before {@link JvmtiSampler#start}. */
    public static void includeJdkSites(boolean includeJdk) {
        includeJdkSites = includeJdk;
        // Initialize the classes of the sample path now, not inside the first callback on an application thread.
        StackTable.isLibrary("");
        SiteTable.size();
        TYPE_NAMES.get(Object.class);
        StackTable.cachedJvm(0L);
        SiteTable.frameKey("", "", 0, ""); // links the string concatenation
        new SampleList(-1).add(new SampleRef(null, null, 0, 0, 0, 1, -1));
    }

    /**
     * A heap sample taken by the JVM (JVMTI sampler) on this thread: the same ALLOCATE event, weak reference and
     * live-site weights as a bytecode sample. Its site is the first application frame of the stack and the object's
     * exact class; memscope's own allocations (a memscope frame on the stack) are dropped. A stack is resolved once:
     * later samples with the same raw stack hash find it in the cache without their frames.
     *
     * @param frames the raw frames, or null on the first call (then a stack not in the cache is not recorded and the
     *               answer is {@link JvmtiSampler#NEED_FRAMES})
     * @return {@link JvmtiSampler#NEED_FRAMES} or 0
     */
    static int sampleJvmti(ThreadState ts, Object o, Class<?> type, long size, long stackHash, int frameCount,
                           long[] frames) {
        ts.busy = true;
        try {
            if (o == null || size <= 0 || !Hooks.heapSampling) {
                return 0;
            }
            boolean includeJdk = includeJdkSites;
            StackTable.JvmStack js = null;
            if (frameCount > 0) {
                long key = StackTable.rawKey(stackHash, stackDepth, includeJdk);
                js = StackTable.cachedJvm(key);
                if (js == null) {
                    if (frames == null) {
                        return JvmtiSampler.NEED_FRAMES;
                    }
                    js = StackTable.resolveJvm(key, frames, stackDepth, includeJdk);
                }
            }
            if (js == StackTable.OWN || js != null && js.jdkOnly && jmxNotifications()) {
                return 0;
            }
            SiteFilter filter = siteFilter;
            if (js != null && js != StackTable.NONE && !filter.acceptsAll() && !js.accepted(filter)) {
                return 0;
            }
            Class<?> cls = type == null ? o.getClass() : type;
            int site;
            long stack;
            String typeName;
            if (js != null && js != StackTable.NONE) {
                StackTable.TypeSite t = js.site(cls, TYPE_NAMES);
                site = t.site;
                typeName = t.typeName;
                stack = js.id;
            } else {
                // The JVM gave no usable frames: walk the stack here (slower, same result).
                StackTable.Sampled st = StackTable.captureSample(stackDepth, includeJdk);
                if (st == null || !filter.accepts(st.siteFrame.getClassName())) {
                    return 0;
                }
                typeName = TYPE_NAMES.get(cls);
                site = SiteTable.registerFrame(st.siteFrame, typeName);
                stack = st.id;
            }
            long id = Liveness.track(ts, o, site, size, LiveSites.weight(size, Hooks.mean));
            sink.record(MemoryEventType.ALLOCATE, id, size, 0, site, stack, typeName);
        } catch (Throwable t) {
            Failures.report("agent.sample.jvmti", t);
        } finally {
            ts.busy = false;
        }
        return 0;
    }

    /**
     * @return whether this is the JVM's JMX notification thread, whose JDK-only stacks build the GC notifications
     *         memscope's own {@link GcListener} asked for ({@code GcInfoBuilder}, {@code GcInfo}, maps): memscope's
     *         doing, not the application's (an application's own listener has its frames on the stack)
     */
    private static boolean jmxNotifications() {
        Thread t = Thread.currentThread();
        if (gcListener == null || !"Notification Thread".equals(t.getName())) {
            return false;
        }
        try {
            return t.isDaemon();
        } catch (RuntimeException halfConstructed) {
            // sampled inside the JVM's own construction of that thread's Thread object (its fields not all set)
            return true;
        }
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

    /** @return native bytes allocated and not yet freed (0 without native tracking) */
    public static long nativeOutstandingBytes() {
        NativeTracker nt = nativeTracker;
        return nt == null || !Hooks.nativeEnabled ? 0 : nt.outstandingBytes();
    }

    /** @return native blocks allocated and not yet freed */
    public static long nativeOutstandingBlocks() {
        NativeTracker nt = nativeTracker;
        return nt == null || !Hooks.nativeEnabled ? 0 : nt.outstandingBlocks();
    }

    /** @return collections seen by this capture, -1 when GCs are not recorded (option {@code gc=false}) */
    public static long gcCount() {
        GcListener g = gcListener;
        return g == null ? -1 : g.count();
    }

    /** @return collections after the first {@code from} of this capture, at most {@code max} (empty without GCs) */
    public static List<GcRecord> gcSince(long from, int max) {
        GcListener g = gcListener;
        return g == null ? List.of() : g.since(from, max);
    }

    /** @return the capture's start on the {@link System#nanoTime()} clock (GC records' time base) */
    public static long startNanos() {
        return startNanos;
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
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true;
        }
        try {
            Hooks.heapSampling = false;
            Hooks.heapEnabled = false;
            JvmtiSampler.stop();
            if (!running) {
                return null;
            }
            GcListener gcs = gcListener;
            int gcsBefore = gcs == null ? 0 : gcs.count();
            System.gc();
            settleNative();
            if (gcs != null) {
                // The final collection's record goes into the recording: held memory at the end is measured at it.
                gcs.awaitExplicitCollection(gcsBefore, FINAL_GC_WAIT_MILLIS);
            }
            // What the API's trackers found by that GC (leases lost while borrowed, named objects collected).
            Map<String, String> ending = new LinkedHashMap<>(metadata);
            awaitReferenceProcessing();
            ApiHooks.captureEnding(ending);
            FunctionHooks.profile(null);
            if (functions != null) {
                ending.put("functions.profiled", Integer.toString(FunctionTable.functions()));
            }
            metadata = ending;
            running = false;
            Thread t = background;
            if (t != null) {
                try {
                    t.join(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            AllocationSink s = sink;
            try {
                Liveness.drain(s, 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Liveness.sweep(s);
            long endNanos = System.nanoTime();
            Hooks.nativeEnabled = false;
            if (gcs != null) {
                gcs.stop();
            }
            return finishRecording(metadata, endNanos);
        } finally {
            if (self != null) {
                self.busy = false;
            }
        }
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
        RecordingStream rs = stream;
        stream = null;
        Path file = recordingFile;
        if (rs == null && file != null && sink instanceof StoreSink) {
            rs = openStream((StoreSink) sink, file, Hooks.exact, (long) Hooks.mean, startMetadata);
            if (rs != null) {
                rs.api(api);
                rs.functions(functions);
            }
        }
        if (rs == null) {
            return null;
        }
        try {
            rs.drain(gcListener);
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
