package io.memscope.agent.capture;

import io.memscope.internal.error.Failures;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The start of a {@link CaptureSession}, in order: the heap sampler (the JVM's, with its {@link CollectionLog}, else
 * the bytecode hooks' {@link Liveness} with the {@link GcListener}), object sizes, exact counts, the recording and its
 * head, the malloc sampler, the API's capture and the function profile, a full GC when asked, the threads' first
 * sampling points, the room kept for the end, then the hooks on and the background thread ({@link CaptureLoop})
 * started. Made with its session; runs under the session's lock. The mirror of {@link CaptureEnd}.
 */
final class CaptureStart {
    private final CaptureSession s;

    CaptureStart(CaptureSession session) {
        this.s = session;
    }

    /** See {@link CaptureSession#start}; called under the session's lock. */
    void start(Supplier<Map<String, String>> metadata) {
        if (s.running || s.finished) {
            return;
        }
        Hooks.exact = s.settings.exact();
        Hooks.mean = s.settings.intervalBytes();
        startSamplerAndGcs();
        if (s.jvmti == null) {
            // held figures need the GCs: the samples wait for the next one only when it will be seen
            s.liveSites = new LiveSites(s.gcListener != null);
            s.liveness = new Liveness(s.liveSites);
            if (s.inst != null) {
                // the bytecode hooks size what they see; the JVM's sampler needs not
                s.objectSizes = ObjectSizes.measure(s.inst);
            }
        } else if (s.inst != null) {
            s.objectSizes = ObjectSizes.instancesOnly(s.inst); // objects the application tracks by name are sized
        }
        if (s.settings.exact()) {
            s.counts = new ExactCounts();
        }
        ThreadState self = ThreadState.current();
        boolean wasBusy = self != null && self.busy;
        if (self != null) {
            self.busy = true;
        }
        Map<String, String> head;
        try {
            if (s.settings.exact()) {
                s.jvmAllocated = JvmAllocatedBytes.start(); // what exact mode's counts are a share of
            }
            head = new LinkedHashMap<>(metadata.get());
            head.put("processMemory.intervalMs", Long.toString(s.processMemoryMillis));
            if (s.malloc) {
                head.put(io.memscope.launch.MetadataKeys.MALLOC_INTERVAL_BYTES, Long.toString(s.mallocInterval));
            }
        } finally {
            if (self != null) {
                self.busy = wasBusy;
            }
        }
        s.recording = new CaptureRecording(s.sink, s.stacks, s.settings.recording(), head, s.startNanos,
                s.startEpochMs, s.settings.exact(), s.settings.intervalBytes());
        s.recording.chunks(s.chunkPolicy);
        s.recording.jvmSampler(s.jvmti); // told when a chunk begins (null without the JVM sampler)
        if (s.malloc) {
            // Before the application's main: its first native allocations are sampled too.
            s.mallocSampler = MallocSampler.start(s.recording, s.stacks, s.sink.store().strings(), s.mallocInterval,
                    s.settings.stackDepth(), s.endMetadata);
        }
        // Loaded and initialized here, before the hooks run: loading it inside the first sample on an instrumented
        // JDK class (--include-jdk) would recurse through the class loader's own allocations. Its counter only when
        // a function profile needs it now (else when memscope-core's API links: ApiHooks.linked).
        OwnBytes.now();
        if (s.profileFunctions) {
            OwnBytes.prepare();
        }
        ApiCapture a = new ApiCapture(s.sink.store().strings(), s.stacks, s.settings.stackDepth(), s.objectSizes);
        JvmtiHeapSampler sampler = s.jvmti;
        if (sampler != null) {
            a.wakeDrainWith(new Runnable() { // not a lambda on the start-up path
                @Override
                public void run() {
                    sampler.wake();
                }
            });
        }
        s.api = a;
        s.functions = s.profileFunctions ? new FunctionProfile() : null;
        s.recording.extensions(a, s.functions);
        ApiHooks.start(a);
        if (s.gcAtStart) {
            System.gc(); // what is garbage already is not held at the first GC of the capture either
        }
        FunctionHooks.profile(s.functions);
        for (ThreadState ts : ThreadState.ALL) {
            ts.untilSample = ts.nextInterval(s.settings.intervalBytes());
        }
        s.survive(null); // resolved now, while there is memory
        s.running = true;
        Thread t = new Thread(new CaptureLoop(s), "memscope-reaper");
        t.setDaemon(true);
        s.background = t;
        Hooks.activate(s, s.settings.nativeMemory());
        t.start();
    }

    /**
     * The heap sampler and the GC records, as the settings ask: the JVM's sampler with its {@link CollectionLog}
     * (else why not, {@link CaptureSession#samplerFallback}), or the GC listener when the bytecode hooks sample.
     */
    private void startSamplerAndGcs() {
        if (s.settings.jvmti()) {
            CollectionLog log = new CollectionLog(s.settings.gc(), s.seenFromJvmStart, s.startNanos);
            SiteFilter filter = s.settings.include().isEmpty() && s.settings.exclude().isEmpty() ? SiteFilter.ALL
                    : new SiteFilter(s.settings.include(), s.settings.exclude());
            JvmtiHeapSampler.Started started = JvmtiHeapSampler.start(s.stacks, s.settings.intervalBytes(),
                    s.settings.jvmIntervalBytes(Runtime.version().feature()), s.settings.ownDistances(),
                    s.settings.stackDepth(), s.settings.includeJdk(), filter, true, s.settings.queueBytes(),
                    s.settings.liveLimit(), s.settings.stackWalk(), s.sink.store().strings(), s.new HeapEvents(),
                    s.liveSites, log);
            s.samplerFallback = started.whyNot;
            s.jvmti = started.sampler;
            if (started.sampler != null) {
                s.collections = log;
            }
        }
        if (s.settings.gc() && s.collections == null) {
            try {
                s.gcListener = new GcListener(s.startNanos, s.startEpochMs, s.seenFromJvmStart);
                s.gcListener.start();
            } catch (Throwable t) {
                s.gcListener = null;
                Failures.report("agent.gc.start", t);
            }
        }
    }
}
