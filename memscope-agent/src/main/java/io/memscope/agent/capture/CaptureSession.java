package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import io.memscope.internal.error.Failures;
import io.memscope.launch.EndCheck;
import io.memscope.recording.GcRecord;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One capture inside the JVM, owning its parts, each an object with one job:
 *
 * <ul>
 * <li>the heap sampler: the JVM's ({@link JvmtiHeapSampler}, which also tracks its samples' collections) or the
 *     bytecode hooks' slow path ({@link #sample}, with {@link Liveness} for their weak references);</li>
 * <li>exact mode's per-site counts ({@link ExactCounts});</li>
 * <li>the native memory tracker ({@link NativeTracker});</li>
 * <li>the live and allocated figures per site ({@link LiveSites}, what the MXBean serves);</li>
 * <li>the GC records ({@link CollectionLog} with the JVM's sampler, else {@link GcListener});</li>
 * <li>the stack table ({@link StackTable}): the capture's stacks and the JVM-sampled methods they resolve through;</li>
 * <li>the store and the recording ({@link StoreSink}, {@link CaptureRecording});</li>
 * <li>the process memory sampler ({@link ProcessMemorySampler}), which the background thread runs;</li>
 * <li>its background thread {@code memscope-reaper} ({@link CaptureLoop}): drains the JVM sampler's queue and checks liveness after each
 *     collection (or drains the bytecode samples' reference queue), folds the counters of threads that ended, and
 *     every {@code flush} period, or whenever {@value #FLUSH_EVENTS} events are waiting, drains the store into the
 *     recording; in exact mode, every {@value #COUNTS_FLUSHES} flush periods, a snapshot of the counts goes with
 *     it.</li>
 * </ul>
 *
 * The static hooks reach the running session through {@link Hooks#session()}; the parts that resolve stacks reach
 * the session's {@link StackTable} through the session (each was given it when made), never through a static.
 * {@link #finish} ends it and leaves nothing behind: its thread ends, the JVM sampler's buffers and references are
 * freed, its weak references dropped, its stack table emptied and no longer reachable from any static; another
 * session may start afterwards (attach, detach, attach). At most one runs at a time.
 *
 * <p>Memory: the {@link io.memscope.internal.store.EventStore} holds at most about one flush period of events. If the
 * recording cannot be opened, the events stay in memory until the end, when opening is tried again.
 */
public final class CaptureSession {
    /** Events waiting in the store that trigger a flush before the period is over. */
    static final int FLUSH_EVENTS = 65_536;
    /** Exact mode writes a snapshot of its counts every this many flush periods (10 s by default). */
    static final int COUNTS_FLUSHES = 10;
    /** Longest wait, at the end of a capture with a final GC, for that collection's notification. */
    static final long FINAL_GC_WAIT_MILLIS = 1000;

    // The parts below are package-private for CaptureStart and CaptureEnd, which start and end the capture under
    // this session's lock.
    final CaptureSettings settings;
    final Instrumentation inst;
    final StoreSink sink = new StoreSink();
    /** This capture's stacks (and the JVM-sampled methods they resolve through), emptied at {@link #finish}. */
    final StackTable stacks = new StackTable();
    /** Replaced once at the start when the bytecode sampler keeps its samples for the held figures. */
    volatile LiveSites liveSites = new LiveSites(false);
    final NativeTracker nativeTracker;
    final long startNanos = System.nanoTime();
    /** Sites the JVM's table had refused before this capture (its figures count this capture's). */
    private final long sitesRefusedAtStart = SiteTable.refused();
    final long startEpochMs = System.currentTimeMillis();
    /** What the JVM sampler counted, for the recording's metadata at the end. */
    final Map<String, String> endMetadata = new LinkedHashMap<>();
    /** The end of the capture ({@link #finish}), made now: nothing is allocated for it at the end. */
    private final CaptureEnd end = new CaptureEnd(this);
    /** The start of the capture ({@link #start}). */
    private final CaptureStart start = new CaptureStart(this);
    /** Exact mode: the JVM's own count of allocated bytes since the start, or null. */
    JvmAllocatedBytes jvmAllocated;
    CaptureRecording recording;
    Liveness liveness;
    /** This capture's object sizes, measured at start (the hooks read them through {@link Hooks#sizes}). */
    ObjectSizes objectSizes = ObjectSizes.UNMEASURED;
    ExactCounts counts;
    volatile JvmtiHeapSampler jvmti;
    volatile CollectionLog collections;
    GcListener gcListener;
    String samplerFallback;
    volatile boolean running;
    boolean finished;
    Thread background;
    /** Bytecode samples lost to a failure on the sample path (each also counted by {@code Failures}). */
    private final java.util.concurrent.atomic.AtomicLong lostSamples = new java.util.concurrent.atomic.AtomicLong();
    /** What the application reports through memscope's API during this capture ({@link ApiHooks}). */
    volatile ApiCapture api;
    /** The push started by {@link #startPush}, or null. */
    private volatile ProfilePusher pusher;
    /** The function profile ({@link FunctionHooks}), or null. */
    FunctionProfile functions;
    boolean profileFunctions;
    boolean gcAtStart;
    /** The capture starts with the JVM ({@code -javaagent}): no collection was counted and no G1 marking runs. */
    boolean seenFromJvmStart = true;
    /** How the end of the capture confirms what is reachable ({@link #finish}). */
    private EndCheck endCheck = EndCheck.GC;
    /** Walk the heap from the GC roots at the end ({@code paths}), and what a walk may cost. */
    boolean pathsAtEnd = true;
    volatile HeapWalk.Budget pathsBudget = HeapWalk.Budget.DEFAULT;
    /** How often the process's memory is sampled (ms, 0 = not), and its sampler once the capture started. */
    long processMemoryMillis;
    long rssDetailMillis;
    volatile ProcessMemorySampler processMemory;
    /** Sample the process's malloc calls ({@code malloc}), their mean interval, and the sampler once it started. */
    boolean malloc;
    long mallocInterval;
    volatile MallocSampler mallocSampler;
    /** The JVM running out of memory, and the memory kept for the recording's last flush and close. */
    volatile OutOfMemoryWatch outOfMemory;

    /**
     * @param inst the agent's instrumentation (object sizes for the bytecode hooks, a JDK package opened for the
     *             final GC's Cleaners), or null
     */
    public CaptureSession(CaptureSettings settings, Instrumentation inst) {
        this.settings = settings;
        this.inst = inst;
        this.nativeTracker = new NativeTracker(sink, stacks, settings.stackDepth());
    }

    /**
     * Settings of {@link #start} beyond {@link CaptureSettings}: a function profile (its classes are instrumented by
     * the transformer; {@code functions=...}), and a full GC when the capture starts ({@code gcAtEdges}).
     */
    public synchronized void extras(boolean functionProfile, boolean gcAtCaptureStart) {
        profileFunctions = functionProfile;
        gcAtStart = gcAtCaptureStart;
    }

    /**
     * Bounds the capture's tables that grow with the application's code and threads ({@link TableBounds}; options
     * {@code maxStacks}, {@code maxSites}, {@code maxStrings}). Before {@link #start}.
     */
    public synchronized void bounds(TableBounds b) {
        b.apply(this);
    }

    /** @return the figures of the capture's bounded tables (sizes, limits, evictions, refusals; {@link TableBounds}) */
    public java.util.Map<String, Long> boundsFigures() {
        return TableBounds.figures(this, sitesRefusedAtStart);
    }

    /**
     * Writes the recording in chunks with this policy (options {@code maxSize}, {@code maxAge}, {@code chunkSize},
     * {@code chunkAge}); null (the default): one file.
     */
    public synchronized void chunks(io.memscope.internal.recording.ChunkPolicy policy) {
        chunkPolicy = policy;
    }

    io.memscope.internal.recording.ChunkPolicy chunkPolicy;

    /** Samples the process's memory every {@code millis} milliseconds ({@code processMemory}; 0 = not). */
    public synchronized void processMemory(long millis) {
        processMemoryMillis = millis;
    }

    /** Runs the resident check over /proc/self/smaps every {@code millis} milliseconds ({@code rssDetail}; 0 = not). */
    public synchronized void rssDetail(long millis) {
        rssDetailMillis = millis;
    }

    /** Samples the process's malloc calls every {@code intervalBytes} on average ({@code malloc}, {@code mallocInterval}). */
    public synchronized void malloc(boolean on, long intervalBytes) {
        malloc = on;
        mallocInterval = intervalBytes;
    }

    /**
     * Paths from GC roots ({@link HeapWalk}): whether the capture's end walks the heap (option {@code paths}), and
     * the budget of every walk (options {@code pathsTime}, {@code pathsMemory}).
     *
     * @param timeMillis  the longest pause a walk may cause
     * @param memoryBytes the most memory a walk may take in this JVM
     */
    public synchronized void paths(boolean atEnd, long timeMillis, long memoryBytes) {
        pathsAtEnd = atEnd;
        pathsBudget = new HeapWalk.Budget(timeMillis * 1_000_000L, memoryBytes);
    }

    /**
     * Walks the heap from the GC roots now and writes what it found into the recording (a RETENTION block), for
     * {@code memscope paths}: why each sampled object still tracked is held. Any thread; never throws.
     *
     * @param timeMillis  the longest pause this walk may cause
     * @param memoryBytes the most memory this walk may take in this JVM
     * @return a one-line account of the walk, or why there is none
     */
    public String walkHeap(long timeMillis, long memoryBytes) {
        JvmtiHeapSampler sampler = jvmti;
        CaptureRecording r = recording;
        if (!running || sampler == null || r == null) {
            return sampler == null && running ? "no heap walk: paths need the JVM's sampler (sample mode, Linux x86_64)"
                    : "no heap walk: no capture is running";
        }
        io.memscope.recording.RetentionWalk w = sampler.walkHeap(new HeapWalk.Budget(timeMillis * 1_000_000L,
                memoryBytes), "on demand");
        if (w == null) {
            return "no heap walk: the capture ended";
        }
        r.retention(w, true);
        return describe(w);
    }

    /** One line about a walk: what it covered and what it cost. */
    static String describe(io.memscope.recording.RetentionWalk w) {
        long reached = w.samplesReached();
        return "heap walk " + w.outcome().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": "
                + reached + " of " + w.samples().size() + " tracked samples reached, " + w.objectsVisited()
                + " objects, pause " + (w.pauseNanos() / 1_000_000) + " ms, " + (w.totalNanos() / 1_000_000)
                + " ms in all" + (w.detail() == null ? "" : " (" + w.detail() + ")");
    }

    /**
     * Starts capturing: the JVM's sampler when asked for and it can start (else the bytecode hooks' sampling), the
     * hooks, the background thread. The recording is opened by the background thread.
     *
     * @param metadata key/values known at the start (pid, command, options...), asked for once the sampler is chosen
     *                 ({@link #jvmtiSampler}), written at the head of the recording
     */
    public synchronized void start(Supplier<Map<String, String>> metadata) {
        start.start(metadata);
    }

    /**
     * Whether the capture starts with the JVM ({@code -javaagent}, the default) or later ({@code attach}): then the
     * GC beans' counts are read at its start, and a G1 marking may be running.
     */
    public synchronized void seenFromJvmStart(boolean fromStart) {
        seenFromJvmStart = fromStart;
    }

    /**
     * How the end of the capture confirms what is still reachable (default: a whole-heap collection), and the heap in
     * use above which that collection is skipped (bytes).
     */
    public synchronized void endCheck(EndCheck check, long maxHeapBytes) {
        endCheck = check;
        endCheckMaxHeap = maxHeapBytes;
    }

    long endCheckMaxHeap = Long.MAX_VALUE;

    /** @return whether the JVM's sampler (JVMTI) takes this capture's heap samples */
    public boolean jvmtiSampler() {
        return jvmti != null;
    }

    /** @return why the JVM's sampler was asked for and could not start, else null */
    public String samplerFallback() {
        return samplerFallback;
    }

    /**
     * A full collection that clears the soft references not used since it started ({@link SoftReferences}).
     *
     * @return whether soft references could be cleared (else it was a plain {@code System.gc()})
     */
    public boolean fullGcClearingSoftReferences() {
        return SoftReferences.fullGcClearing();
    }

    /**
     * Waits until the samples taken before the call are in the live figures ({@link #liveSites()}): the JVM's sampler
     * queues samples for the background thread, which is woken and waited for one round; at most
     * {@code timeoutMillis}. The bytecode hooks count on the allocating thread: nothing to wait for.
     *
     * @return whether the figures caught up in time
     */
    public boolean catchUp(long timeoutMillis) {
        JvmtiHeapSampler sampler = jvmti;
        if (sampler == null || !running) {
            return true;
        }
        long target = rounds + 2; // a round that started after this call has ended
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (rounds < target && running) {
            sampler.wake();
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Rounds of the background loop completed (read by {@link #catchUp}). */
    volatile long rounds;

    public boolean running() {
        return running;
    }

    /** @return the live and allocated figures per site of this capture */
    public LiveSites liveSites() {
        return liveSites;
    }

    /** @return events waiting in the store (not yet moved into the recording) */
    public long storeEvents() {
        return sink.size();
    }

    /** @return bytes held by the store's buffers */
    public long storeRetainedBytes() {
        return sink.store().retainedBytes();
    }

    /** @return events moved into the recording by this capture */
    public long recordingEvents() {
        CaptureRecording r = recording;
        return r == null ? 0 : r.events();
    }

    /** @return the recording file, or an empty string */
    public String recordingFile() {
        Path f = settings.recording();
        return f == null ? "" : f.toAbsolutePath().toString();
    }

    /** @return this capture's stack table (empty once the capture finished) */
    StackTable stackTable() {
        return stacks;
    }

    NativeTracker nativeTracker() {
        return nativeTracker;
    }

    /** @return this capture's object sizes (measured at start; defaults before) */
    ObjectSizes objectSizes() {
        return objectSizes;
    }

    /** @return the native memory tracker while it tracks (null with {@code native=false} or after the end) */
    NativeTracker nativeTrackerIfEnabled() {
        return settings.nativeMemory() && running ? nativeTracker : null;
    }

    /** @return the JVM's heap sampler of this capture, or null (the bytecode hooks sample) */
    JvmtiHeapSampler jvmHeapSampler() {
        return jvmti;
    }

    /** @return the bytecode samples' liveness, or null (the JVM's sampler tracks its own) */
    Liveness liveness() {
        return liveness;
    }

    /**
     * @return heap samples the JVM or the bytecode hooks delivered that this capture could not record: the JVM
     *         sampler's queue was full, a JNI failure or a pending exception in its callback, an unresolvable stack,
     *         a failure on the sample path; plus events the store dropped. 0 when nothing was lost. Samples left out
     *         on purpose (memscope's own allocations, {@code include}/{@code exclude}) are not counted
     */
    public long droppedSamples() {
        long n = lostSamples.get() + sink.store().dropped();
        CaptureRecording r = recording;
        if (r != null) {
            n += r.failedEvents();
        }
        JvmtiHeapSampler s = jvmti;
        if (s != null) {
            n += s.lost();
        }
        return n;
    }

    /**
     * @return estimated bytes malloc'd and not yet freed, from the malloc samples ({@link MallocSampler}); -1 when
     *         malloc is not sampled
     */
    public long mallocOutstandingBytes() {
        MallocSampler m = mallocSampler;
        return m == null || !running ? -1 : m.outstandingBytes();
    }

    /** @return native bytes allocated and not yet freed (0 without native tracking) */
    public long nativeOutstandingBytes() {
        return settings.nativeMemory() && running ? nativeTracker.outstandingBytes() : 0;
    }

    /**
     * @return the latest sample of the process's memory, in the order of {@link #processMemoryParts()}; empty when it
     *         is not sampled (or not yet)
     */
    public long[] processMemory() {
        ProcessMemorySampler pm = processMemory;
        return pm == null || !running ? new long[0] : pm.latest();
    }

    /** @return the names of {@link #processMemory()}'s values (docs/formats/recording.md, 4.17) */
    public static String[] processMemoryParts() {
        return ProcessMemorySampler.PARTS.toArray(new String[0]);
    }

    /** @return native blocks allocated and not yet freed (0 without native tracking) */
    public long nativeOutstandingBlocks() {
        return settings.nativeMemory() && running ? nativeTracker.outstandingBlocks() : 0;
    }

    /**
     * @return GC records of this capture made so far (with the JVM's sampler a collection's record is made about
     *         2 s after it, once its notification arrived), -1 when GCs are not recorded (option {@code gc=false})
     */
    public long gcCount() {
        CollectionLog log = collections;
        if (log != null) {
            return settings.gc() ? log.count() : -1;
        }
        GcListener g = gcListener;
        return g == null ? -1 : g.count();
    }

    /** @return the GC records after the first {@code from} of this capture, at most {@code max}, oldest first */
    public List<GcRecord> gcSince(long from, int max) {
        CollectionLog log = collections;
        if (log != null) {
            return settings.gc() ? log.since(from, max) : List.of();
        }
        GcListener g = gcListener;
        return g == null ? List.of() : g.since(from, max);
    }

    /**
     * Starts pushing a profile of every interval ({@link ProfilePusher}); after {@link #start}. The caller stops it
     * (before {@link #finish}) and reads its counters.
     *
     * @return the running pusher, or null when no capture runs
     */
    public synchronized ProfilePusher startPush(ProfilePusher.Settings push) {
        if (!running || recording == null) {
            return null;
        }
        ProfilePusher p = new ProfilePusher(push, new PushSource(this));
        p.start();
        pusher = p;
        return p;
    }

    /** @return the push's counters ({@link ProfilePusher#metadata}), empty when nothing is pushed */
    public java.util.Map<String, String> pushCounters() {
        ProfilePusher p = pusher;
        return p == null ? java.util.Map.of() : p.metadata();
    }

    /** Lets the memory kept for the recording's last flush and close go: the first thing of a JVM's exit hook. */
    public void releaseReserve() {
        OutOfMemoryWatch w = outOfMemory;
        if (w != null) {
            w.release();
        }
    }

    /** @return the capture's start on the {@link System#nanoTime()} clock (GC records' time base) */
    public long startNanos() {
        return startNanos;
    }

    /** The bytecode hooks' slow path: the thread's byte counter crossed its sampling point. */
    void sample(ThreadState ts, Object o, int site, long size) {
        ts.busy = true;
        try {
            ts.untilSample = ts.nextInterval(Hooks.mean);
            Liveness l = liveness;
            if (o == null || !Hooks.heapSampling || l == null) {
                return;
            }
            long stack = stacks.capture(settings.stackDepth());
            long id = l.track(ts, o, site, size, LiveSites.weight(size, Hooks.mean), stack);
            sink.record(MemoryEventType.ALLOCATE, id, size, 0, site, stack, SiteTable.typeOf(site, o));
        } catch (Throwable t) {
            lostSamples.incrementAndGet();
            Failures.report("agent.sample", t);
        } finally {
            ts.busy = false;
        }
    }

    /**
     * The JVM sampler's samples and collections, recorded by the drain thread on behalf of the allocating threads
     * (DEALLOCATEs on the drain thread's name).
     */
    final class HeapEvents implements HeapSampleSink {
        @Override
        public void events(io.memscope.internal.recording.EventColumns batch) {
            recording.events(batch);
        }
    }



    /**
     * When the GC listener recorded a collection that examined the whole heap and started after
     * {@code nanos}, waits (at most 2 s) until the background thread turned it into held figures ({@link CaptureLoop}),
     * so that a query right after a full GC sees its verdict. Returns at once otherwise.
     */
    void awaitJudged(long nanos) {
        GcListener g = gcListener;
        if (g == null || liveSites.heldAsOfNanos() >= nanos || !g.wholeHeapSince(nanos)) {
            return;
        }
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (liveSites.heldAsOfNanos() < nanos && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * A failure of the background thread: counted, never fatal. An {@code OutOfMemoryError} is noted without
     * allocating (the recording says so at its next flush that finds room, or at its close).
     */
    void survive(Throwable t) {
        if (OutOfMemoryWatch.isOutOfMemory(t)) { // not instanceof here: resolved once in OutOfMemoryWatch.prepare
            OutOfMemoryWatch w = outOfMemory;
            if (w != null) {
                w.caught(t);
            }
        }
        if (t == null || OutOfMemoryWatch.isOutOfMemory(t)) {
            return; // the call at the start (the call sites above are resolved now); an error noted above
        }
        try {
            Failures.report("agent.reaper", t);
        } catch (Throwable ignored) {
            // out of memory still: counted another time
        }
    }


    /** @return the GC records to write now: all of them at the end of the capture */
    List<GcRecord> gcRecords(boolean all) {
        CollectionLog log = collections;
        if (log != null) {
            return log.take(all);
        }
        GcListener l = gcListener;
        return l == null ? List.of() : l.takeRecords();
    }

    /**
     * Ends the capture: stops heap sampling; with {@code collect}, runs a full GC (as the Lua memory profiler does at
     * stop), waits for the Cleaners of unreachable direct memory and for the GC's notification; settles liveness, then
     * moves the last events into the recording, appends what is only known at the end and closes it. Nothing is read
     * back and no report is built here: reports are built from the recording outside the application's JVM.
     *
     * @param metadata key/values to add
     * @param collect  run a full GC first, so that the recording ends with a collection at which "held" is measured;
     *                 without it the capture ends at once and held memory is what the last collection found
     * @return the closed recording, or null if there was no capture or no recording could be written
     */
    public synchronized Path finish(Map<String, String> metadata, boolean collect) {
        return end.finish(metadata, collect);
    }

    /** Under the session's lock: called by {@link CaptureEnd} once its end begins. @return whether it had ended before */
    boolean markFinished() {
        boolean was = finished;
        finished = true;
        return was;
    }

}
