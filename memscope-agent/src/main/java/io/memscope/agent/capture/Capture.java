package io.memscope.agent.capture;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.analysis.Anomaly;
import io.memscope.analysis.CaptureData;
import io.memscope.analysis.GcRecord;
import io.memscope.analysis.Site;
import io.memscope.error.Failures;
import java.lang.instrument.Instrumentation;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One capture inside the JVM: starts the hooks, runs the background thread (collected samples become
 * DEALLOCATE events; counters of dead threads are folded), and at the end runs a full GC, settles liveness and
 * native memory, and hands everything over as {@link CaptureData}.
 *
 * <p>At most one capture runs at a time; {@link #start} after {@link #finish} begins a new one.
 */
public final class Capture {
    private static volatile AllocationSink sink = new StoreSink();
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
    private static boolean awaitReferenceProcessing() {
        try {
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
     */
    public static synchronized void start(boolean exact, long intervalBytes, int depth, boolean nativeMemory,
                                          boolean gc) {
        if (running) {
            return;
        }
        StoreSink log = new StoreSink();
        sink = log;
        Liveness.clear();
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
        if (gc) {
            try {
                gcListener = new GcListener(startNanos, startEpochMs);
                gcListener.start();
            } catch (Throwable t) {
                gcListener = null;
                Failures.report("agent.gc.start", t);
            }
        }
        Hooks.exact = exact;
        Hooks.mean = intervalBytes;
        for (ThreadState ts : ThreadState.ALL) {
            ts.untilSample = ts.nextInterval(intervalBytes);
        }
        running = true;
        Thread t = new Thread(Capture::backgroundLoop, "memscope-reaper");
        t.setDaemon(true);
        background = t;
        t.start();
        Hooks.nativeEnabled = nativeMemory;
        Hooks.heapEnabled = true;
    }

    public static boolean running() {
        return running;
    }

    private static void backgroundLoop() {
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true;
        }
        long lastFold = System.nanoTime();
        while (running) {
            try {
                Liveness.drain(sink, 100);
                if (System.nanoTime() - lastFold > 1_000_000_000L) {
                    foldDeadThreads();
                    lastFold = System.nanoTime();
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                Failures.report("agent.reaper", t);
            }
        }
    }

    private static void foldDeadThreads() {
        for (Iterator<ThreadState> it = ThreadState.ALL.iterator(); it.hasNext(); ) {
            ThreadState ts = it.next();
            if (!ts.thread.isAlive()) {
                fold(ts);
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

    /** The slow path of a heap allocation: the thread's byte counter crossed its sampling point. */
    static void sample(ThreadState ts, Object o, int site, long size) {
        ts.busy = true;
        try {
            ts.untilSample = ts.nextInterval(Hooks.mean);
            if (o == null) {
                return;
            }
            long id = Liveness.track(o, site, size);
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
     * Ends the capture: stops heap sampling, runs a full GC (as seed 003 does at stop), waits briefly for
     * Cleaners to release unreachable direct memory, settles liveness, and returns everything captured.
     *
     * @param metadata key/values to add (command, pid, options...)
     */
    public static synchronized CaptureData finish(Map<String, String> metadata) {
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true;
        }
        try {
            Hooks.heapEnabled = false;
            if (!running) {
                return null;
            }
            System.gc();
            settleNative();
            running = false;
            Thread t = background;
            if (t != null) {
                t.interrupt();
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
            if (gcListener != null) {
                gcListener.stop();
            }
            return build(metadata, endNanos);
        } finally {
            if (self != null) {
                self.busy = false;
            }
        }
    }

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

    private static CaptureData build(Map<String, String> metadata, long endNanos) {
        CaptureData d = new CaptureData();
        d.putMetadata(CaptureData.MODE, Hooks.exact ? "exact" : "sample");
        d.putMetadata(CaptureData.INTERVAL_BYTES, Long.toString((long) Hooks.mean));
        d.putMetadata(CaptureData.START_NANOS, Long.toString(startNanos));
        d.putMetadata(CaptureData.END_NANOS, Long.toString(endNanos));
        d.putMetadata(CaptureData.START_EPOCH_MS, Long.toString(startEpochMs));
        metadata.forEach(d::putMetadata);
        Set<Integer> usedSites = new HashSet<>();
        Set<Long> usedStacks = new HashSet<>();
        List<MemoryEvent> events = sink instanceof StoreSink ? ((StoreSink) sink).drain() : List.of();
        for (MemoryEvent e : events) {
            d.addEvent(e);
            usedSites.add(e.siteId());
            if (e.callStackHash() != 0) {
                usedStacks.add(e.callStackHash());
            }
        }
        if (Hooks.exact) {
            for (ThreadState ts : ThreadState.ALL) {
                fold(ts);
            }
            synchronized (FOLDED) {
                for (Map.Entry<Integer, long[]> e : FOLDED.entrySet()) {
                    d.addExactCount(e.getKey(), e.getValue()[0], e.getValue()[1]);
                    usedSites.add(e.getKey());
                }
                FOLDED.clear();
            }
        }
        NativeTracker nt = nativeTracker;
        if (nt != null) {
            for (Anomaly a : nt.anomalies()) {
                d.addAnomaly(a);
                if (a.stackId() != 0) {
                    usedStacks.add(a.stackId());
                }
            }
            d.putMetadata("nativeAnomalies", Long.toString(nt.anomalyCount()));
            d.putMetadata("nativeUnknownFreesByJdk", Long.toString(nt.jdkUnknownFrees()));
        }
        for (int id : usedSites) {
            SiteTable.Info i = SiteTable.get(id);
            if (i != null) {
                d.addSite(new Site(i.id, i.className, i.method, i.file, i.line, i.type));
            }
        }
        for (long id : usedStacks) {
            d.addStack(id, StackTable.frames(id));
        }
        if (gcListener != null) {
            for (GcRecord g : gcListener.records()) {
                d.addGc(g);
            }
        }
        d.failures(Failures.total(), Failures.messages());
        return d;
    }
}
