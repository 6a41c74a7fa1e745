package io.memscope.events.jvm;

import io.memscope.error.Failures;
import io.memscope.events.Counter;
import io.memscope.events.Lifecycle;
import io.memscope.events.RuntimeEvents;
import io.memscope.events.Span;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bridges the JVM's own runtime events into the event rings, through JFR streaming inside this JVM
 * ({@link RecordingStream}, stack traces off). Mapping (names as stored in the ring file):
 * <table>
 *   <caption>JFR event to ring event</caption>
 *   <tr><th>JFR event</th><th>ring event</th></tr>
 *   <tr><td>jdk.GCPhasePause (every stop-the-world pause: young, mixed, remark, cleanup, full)</td>
 *       <td>span {@code gc.pause/<name>} from the pause's start to its end. JDK 21+ names young and full pauses
 *       only "GC Pause": the bridge then names them as {@code -Xlog:gc} does, from the jdk.GarbageCollection and
 *       jdk.G1GarbageCollection events of the same gcId (see {@link #pauseName}), e.g.
 *       {@code gc.pause/Pause Young (Mixed) (G1 Evacuation Pause)}, {@code gc.pause/Pause Full (System.gc())};
 *       remark and cleanup keep JFR's names ({@code Pause Remark}, {@code Pause Cleanup})</td></tr>
 *   <tr><td>jdk.GCPhasePauseLevel1</td><td>span {@code gc.phase/<name>}</td></tr>
 *   <tr><td>jdk.GarbageCollection</td><td>span {@code gc.collection/<gc name> (<cause>)}; counter
 *       {@code gc.sumOfPauses.ns}</td></tr>
 *   <tr><td>jdk.GCHeapSummary (before and after each GC)</td><td>counters {@code heap.used} and
 *       {@code heap.committed} (bytes) at the summary's time</td></tr>
 *   <tr><td>jdk.ThreadStart / jdk.ThreadEnd</td><td>lifecycle {@code thread.start} / {@code thread.end},
 *       datum the Java thread id</td></tr>
 *   <tr><td>jdk.GCPhasePause with the lowest gcId so far</td><td>lifecycle {@code gc.firstObservedId}, datum
 *       the gcId: collections with a lower id happened before JFR recorded (JFR's own start-up can cause one)</td></tr>
 *   <tr><td>(bridge start) / (shutdown hook)</td><td>lifecycle {@code vm.start} at the JVM's start time, datum
 *       the pid / {@code vm.shutdown}</td></tr>
 * </table>
 * JFR delivers events about once a second; they carry their own start and end times, converted to the ring's
 * monotonic clock. The stream reads from the JVM's start time: when a recording was started at VM start
 * ({@code -XX:StartFlightRecording} with these events enabled, which {@code memscope trace} and {@code latency} add),
 * pauses before the bridge started are delivered too; otherwise the bridge sees pauses from its own start on.
 * All of them are written by the JFR stream's thread, so they share one ring. At shutdown the
 * stream is stopped with a final flush on JDK 20+ ({@code RecordingStream.stop()}); when that fails (JFR's own
 * shutdown hook stopped the recording first, or JDK 17-19) the recent events are read from the repository's chunk
 * files instead. Every event is written once, whichever path delivered it.
 */
public final class JvmRuntimeEvents {
    private static RecordingStream stream;
    private static Handlers handlers;
    private static volatile long lastFlush = Long.MIN_VALUE / 2;
    private static final Map<String, Span> SPANS = new ConcurrentHashMap<>();

    private JvmRuntimeEvents() {
    }

    /** Starts runtime events (from the environment's settings) and the JFR bridge. Idempotent; never throws. */
    public static synchronized boolean start() {
        if (stream != null) {
            return true;
        }
        try {
            if (!RuntimeEvents.start()) {
                return false;
            }
            Lifecycle vmStart = RuntimeEvents.lifecycle("vm.start");
            Lifecycle vmShutdown = RuntimeEvents.lifecycle("vm.shutdown");
            long startMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
            vmStart.emit(ProcessHandle.current().pid(), toMono(Instant.ofEpochMilli(startMillis)));
            RecordingStream rs = new RecordingStream();
            // Events of a recording started at VM start (-XX:StartFlightRecording, as memscope trace/latency do)
            // are in the repository already: read them from the JVM's start, so that early pauses count too.
            rs.setStartTime(Instant.ofEpochMilli(startMillis));
            rs.enable("jdk.GCPhasePause");
            rs.enable("jdk.GCPhasePauseLevel1");
            rs.enable("jdk.GarbageCollection");
            rs.enable("jdk.G1GarbageCollection"); // the young pause's type (Normal, Mixed, ...); absent on other GCs
            rs.enable("jdk.GCHeapSummary");
            rs.enable("jdk.ThreadStart").withoutStackTrace();
            rs.enable("jdk.ThreadEnd").withoutStackTrace();
            Counter used = RuntimeEvents.counter("heap.used");
            Counter committed = RuntimeEvents.counter("heap.committed");
            Counter sumOfPauses = RuntimeEvents.counter("gc.sumOfPauses.ns");
            Lifecycle threadStart = RuntimeEvents.lifecycle("thread.start");
            Lifecycle threadEnd = RuntimeEvents.lifecycle("thread.end");
            Handlers h = new Handlers(used, committed, sumOfPauses, threadStart, threadEnd);
            rs.onFlush(() -> {
                guarded(() -> h.flushPending(false));
                lastFlush = System.nanoTime();
            });
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            rs.onMetadata(m -> started.countDown()); // the stream reads its first chunk: the recording runs
            for (String name : Handlers.NAMES) {
                rs.onEvent(name, e -> guarded(() -> h.accept(e)));
            }
            // start() (blocking) in our own daemon thread: startAsync() runs the stream in a non-daemon thread that
            // would keep the JVM alive. Then wait (bounded) until the stream reads its first chunk.
            Thread t = new Thread(() -> {
                try {
                    rs.start();
                } catch (Throwable e) {
                    Failures.report("events.jfr.stream", e);
                }
            }, "memscope-jfr-bridge");
            t.setDaemon(true);
            t.start();
            stream = rs;
            handlers = h;
            RuntimeEvents.beforeStop(() -> {
                vmShutdown.emit(ProcessHandle.current().pid());
                stopStream();
            });
            started.await(1, java.util.concurrent.TimeUnit.SECONDS);
            h.horizon = Instant.now().plusSeconds(5);
            readEarlierChunks(h);
            h.flushPending(false);
            return true;
        } catch (Throwable t) {
            Failures.report("events.jfr", t);
            return false;
        }
    }

    /** Stops the JFR stream, flushing what it still holds when the JDK allows (20+). */
    public static synchronized void stopStream() {
        RecordingStream rs = stream;
        if (rs == null) {
            return;
        }
        stream = null;
        // RecordingStream.stop() (JDK 20+) delivers the rest, but it waits without bound for the stream, which can
        // hang when JFR's own shutdown hook runs at the same time: call it in a daemon thread and wait at most 2 s.
        boolean[] done = new boolean[1];
        Thread stopper = new Thread(() -> {
            try {
                RecordingStream.class.getMethod("stop").invoke(rs);
                done[0] = true;
            } catch (Throwable notAvailableOrAlreadyStopped) {
                // JDK 17-19, or JFR's shutdown hook stopped the recording first
            }
        }, "memscope-jfr-stop");
        stopper.setDaemon(true);
        stopper.start();
        try {
            stopper.join(2000);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        boolean flushed = done[0];
        if (!flushed) {
            // wait (bounded) until the stream flushed what was recorded up to now
            long t0 = System.nanoTime();
            try {
                while (lastFlush - t0 < 0 && System.nanoTime() - t0 < 1_500_000_000L) {
                    Thread.sleep(10);
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
        if (!flushed && handlers != null) {
            readChunksAtExit(handlers);
        }
        if (handlers != null) {
            handlers.flushPending(true);
        }
        if (System.getenv("MEMSCOPE_DEBUG") != null) {
            System.err.println("memscope events: JFR stream stop: flushed=" + flushed + " lastFlush="
                    + (System.nanoTime() - lastFlush) / 1_000_000 + " ms ago");
        }
        Thread closer = new Thread(rs::close, "memscope-jfr-close"); // never block the JVM's exit on it
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(500);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Delivers the GC events of chunks the JVM finished before the stream started (a recording from VM start,
     * {@code -XX:StartFlightRecording}): a stream starts with the newest chunk, so earlier pauses would be missed.
     * Events seen by both paths are written once (keyed by type, gcId, name and start time).
     */
    private static void readEarlierChunks(Handlers h) {
        String repo = System.getProperty("jdk.jfr.repository");
        if (repo == null) {
            return;
        }
        java.io.File[] chunks = new java.io.File(repo).listFiles((d, n) -> n.endsWith(".jfr"));
        if (chunks == null) {
            return;
        }
        java.util.Arrays.sort(chunks);
        for (java.io.File chunk : chunks) {
            try (jdk.jfr.consumer.RecordingFile f = new jdk.jfr.consumer.RecordingFile(chunk.toPath())) {
                while (f.hasMoreEvents()) {
                    RecordedEvent e = f.readEvent();
                    if (Handlers.NAMES.contains(e.getEventType().getName()) && e.getStartTime().isBefore(h.horizon)) {
                        h.accept(e);
                    }
                }
            } catch (Throwable unfinished) {
                // the chunk being written: its events come through the stream
            }
        }
    }

    /**
     * At exit, when JFR's own shutdown hook stopped the recording before the stream delivered its last events:
     * waits (bounded) until the chunk files are complete, then delivers the recent GC events the stream missed.
     */
    private static void readChunksAtExit(Handlers h) {
        String repo = System.getProperty("jdk.jfr.repository");
        if (repo == null) {
            return;
        }
        long deadline = System.nanoTime() + 1_500_000_000L;
        while (true) {
            java.io.File[] chunks = new java.io.File(repo).listFiles((d, n) -> n.endsWith(".jfr"));
            if (chunks == null) {
                return;
            }
            java.util.Arrays.sort(chunks);
            java.util.List<RecordedEvent> events = new java.util.ArrayList<>();
            boolean complete = true;
            for (java.io.File chunk : chunks) {
                try (jdk.jfr.consumer.RecordingFile f = new jdk.jfr.consumer.RecordingFile(chunk.toPath())) {
                    while (f.hasMoreEvents()) {
                        RecordedEvent e = f.readEvent();
                        if (h.isRecent(e)) {
                            events.add(e);
                        }
                    }
                } catch (Throwable unfinished) {
                    complete = false;
                }
            }
            if (complete || System.nanoTime() > deadline) {
                for (RecordedEvent e : events) {
                    h.accept(e);
                }
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Maps JFR events to ring events. An event can reach it twice (through the stream and through a chunk file read
     * at start or at exit): every event is keyed and written once. Keys are kept while their event is recent (end
     * time within {@link #RETAIN_NANOS} of the newest delivered, or a GC id within {@link #KEEP_IDS} of the
     * newest), which bounds the memory in long runs; chunk reads at exit only deliver events at least that recent.
     */
    private static final class Handlers {
        static final java.util.List<String> NAMES = java.util.List.of("jdk.GCPhasePause", "jdk.GCPhasePauseLevel1",
                "jdk.GarbageCollection", "jdk.G1GarbageCollection", "jdk.GCHeapSummary", "jdk.ThreadStart",
                "jdk.ThreadEnd");
        /** Events whose end is this close to the newest delivered one are read again from the chunks at exit. */
        static final long EXIT_WINDOW_NANOS = 5_000_000_000L;
        /** Keys of events this recent stay in {@link #seen} (longer than the exit window: no duplicate). */
        static final long RETAIN_NANOS = 10_000_000_000L;
        static final long KEEP_IDS = 16;
        /** The generic name JDK 21+ gives young and full pauses in jdk.GCPhasePause. */
        static final String GENERIC_PAUSE = "GC Pause";

        final Counter used;
        final Counter committed;
        final Counter sumOfPauses;
        final Lifecycle threadStart;
        final Lifecycle threadEnd;
        final Lifecycle firstObserved = RuntimeEvents.lifecycle("gc.firstObservedId");
        /** key of a delivered event to its end time (epoch ns) */
        final Map<String, Long> seen = new java.util.HashMap<>();
        int pruneAt = 4096;
        long newestEnd = Long.MIN_VALUE;
        long maxGcId = -1;
        long firstGcId = Long.MAX_VALUE;
        volatile Instant horizon = Instant.MAX;
        /** Pauses named {@link #GENERIC_PAUSE}, held until their collection's name and cause are known. */
        final java.util.List<PendingPause> pending = new java.util.ArrayList<>();
        /** gcId to "name/cause" of jdk.GarbageCollection, and gcId to the G1 young type (Normal, Mixed, ...). */
        final Map<Long, String[]> collections = recent();
        final Map<Long, String> g1Types = recent();
        static final int MAX_PENDING = 256;

        /** @return a map that keeps the {@code 1024} entries put last (bounded memory in long runs) */
        private static <V> Map<Long, V> recent() {
            return new java.util.LinkedHashMap<Long, V>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, V> eldest) {
                    return size() > 1024;
                }
            };
        }

        Handlers(Counter used, Counter committed, Counter sumOfPauses, Lifecycle threadStart, Lifecycle threadEnd) {
            this.used = used;
            this.committed = committed;
            this.sumOfPauses = sumOfPauses;
            this.threadStart = threadStart;
            this.threadEnd = threadEnd;
        }

        /** @return true if a chunk read at exit should offer {@code e} (it may be one the stream did not deliver) */
        synchronized boolean isRecent(RecordedEvent e) {
            if (!NAMES.contains(e.getEventType().getName())) {
                return false;
            }
            return epochNanos(e.getEndTime()) >= newestEnd - EXIT_WINDOW_NANOS
                    || (e.hasField("gcId") && e.getLong("gcId") >= maxGcId - KEEP_IDS);
        }

        synchronized void accept(RecordedEvent e) {
            String type = e.getEventType().getName();
            long gcId = e.hasField("gcId") ? e.getLong("gcId") : -1;
            // not the start time: the stream and a chunk file convert ticks to time slightly differently
            String key = gcId + "/" + type + "/" + (e.hasField("name") ? e.getValue("name") : "") + "/"
                    + (e.hasField("when") ? e.getValue("when") : "") + "/" + e.getDuration().toNanos() + "/"
                    + (e.hasField("thread") ? threadId(e) : "");
            long end = epochNanos(e.getEndTime());
            if (seen.putIfAbsent(key, end) != null) {
                return;
            }
            newestEnd = Math.max(newestEnd, end);
            maxGcId = Math.max(maxGcId, gcId);
            if (seen.size() > pruneAt) {
                seen.entrySet().removeIf(k -> k.getValue() < newestEnd - RETAIN_NANOS
                        && gcIdOf(k.getKey()) < maxGcId - KEEP_IDS);
                pruneAt = Math.max(4096, 2 * seen.size());
            }
            switch (type) {
                case "jdk.GCPhasePause": {
                    if (gcId < firstGcId) {
                        firstGcId = gcId;
                        firstObserved.emit(gcId, toMono(e.getStartTime()));
                    }
                    String name = e.getString("name");
                    long begin = toMono(e.getStartTime());
                    long stop = toMono(e.getEndTime());
                    if (GENERIC_PAUSE.equals(name)) {
                        pending.add(new PendingPause(gcId, begin, stop));
                        resolve(gcId);
                    } else {
                        span("gc.pause/" + name, begin, stop);
                    }
                    break;
                }
                case "jdk.GCPhasePauseLevel1":
                    span("gc.phase/" + e.getString("name"), e);
                    break;
                case "jdk.GarbageCollection":
                    collections.put(gcId, new String[] {e.getString("name"), e.getString("cause")});
                    resolve(gcId);
                    span("gc.collection/" + e.getString("name") + " (" + e.getString("cause") + ")", e);
                    sumOfPauses.set(e.getDuration("sumOfPauses").toNanos(), toMono(e.getEndTime()));
                    break;
                case "jdk.G1GarbageCollection":
                    g1Types.put(gcId, e.getString("type"));
                    resolve(gcId);
                    break;
                case "jdk.GCHeapSummary": {
                    long ts = toMono(e.getStartTime());
                    used.set(e.getLong("heapUsed"), ts);
                    committed.set(e.getLong("heapSpace.committedSize"), ts);
                    break;
                }
                case "jdk.ThreadStart":
                    threadStart.emit(threadId(e), toMono(e.getStartTime()));
                    break;
                case "jdk.ThreadEnd":
                    threadEnd.emit(threadId(e), toMono(e.getStartTime()));
                    break;
                default:
            }
        }

        /**
         * Writes the held pauses of collection {@code gcId} once it is known (for a G1 young collection also its
         * type). JFR commits a pause, its jdk.GarbageCollection and jdk.G1GarbageCollection together, in either
         * order, so they reach the bridge together through whichever path (stream or chunk file) delivers them;
         * the two paths are not ordered with each other, so nothing is concluded from gcIds of other collections.
         */
        private void resolve(long gcId) {
            String[] gc = collections.get(gcId);
            if (gc == null || ("G1New".equals(gc[0]) && !g1Types.containsKey(gcId))) {
                return;
            }
            for (java.util.Iterator<PendingPause> it = pending.iterator(); it.hasNext(); ) {
                PendingPause p = it.next();
                if (p.gcId == gcId) {
                    span("gc.pause/" + pauseName(gc, g1Types.get(gcId)), p.begin, p.end);
                    it.remove();
                }
            }
            if (pending.size() > MAX_PENDING) {
                flushPending(true); // collection events are not arriving (not enabled in the recording read)
            }
        }

        /**
         * Writes the held pauses with what is known of their collections: a pause still unnamed after two more
         * flushes of the stream (about 2 s), or every pause when {@code force} (exit), is written as it is.
         */
        synchronized void flushPending(boolean force) {
            for (java.util.Iterator<PendingPause> it = pending.iterator(); it.hasNext(); ) {
                PendingPause p = it.next();
                String[] gc = collections.get(p.gcId);
                if (force || p.flushes++ >= 2) {
                    span("gc.pause/" + pauseName(gc, g1Types.get(p.gcId)), p.begin, p.end);
                    it.remove();
                }
            }
        }

        private static long gcIdOf(String key) {
            return Long.parseLong(key.substring(0, key.indexOf('/')));
        }
    }

    /**
     * The pause name {@code -Xlog:gc} prints, from the collection a generic JFR pause belongs to: {@code Pause
     * Young (<G1 type>) (<cause>)} for G1 young collections, {@code Pause Young (<cause>)} for Serial/Parallel
     * young, {@code Pause Full (<cause>)} for full collections; otherwise the generic name.
     */
    static String pauseName(String[] collection, String g1Type) {
        if (collection == null) {
            return Handlers.GENERIC_PAUSE;
        }
        String gc = collection[0];
        String cause = collection[1] == null ? "" : " (" + collection[1] + ")";
        switch (gc) {
            case "G1New":
                return "Pause Young" + (g1Type == null ? "" : " (" + g1Type + ")") + cause;
            case "DefNew":
            case "ParallelScavenge":
                return "Pause Young" + cause;
            case "G1Full":
            case "SerialOld":
            case "ParallelOld":
            case "PSMarkSweep":
                return "Pause Full" + cause;
            default:
                return Handlers.GENERIC_PAUSE;
        }
    }

    /** A pause waiting for its name. */
    private static final class PendingPause {
        final long gcId;
        final long begin;
        final long end;
        int flushes;

        PendingPause(long gcId, long begin, long end) {
            this.gcId = gcId;
            this.begin = begin;
            this.end = end;
        }
    }

    private static long epochNanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    private static void span(String name, RecordedEvent e) {
        span(name, toMono(e.getStartTime()), toMono(e.getEndTime()));
    }

    private static void span(String name, long begin, long end) {
        Span s = SPANS.computeIfAbsent(name, RuntimeEvents::span);
        s.begin(begin);
        s.end(end);
    }

    private static long threadId(RecordedEvent e) {
        RecordedThread t = e.getThread("thread");
        return t == null ? -1 : t.getJavaThreadId();
    }

    private static final long EPOCH0;
    private static final long MONO0;

    static {
        long m = System.nanoTime();
        Instant now = Instant.now();
        EPOCH0 = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        MONO0 = m;
    }

    /** Converts a JFR instant to {@link System#nanoTime()} nanoseconds. */
    static long toMono(Instant t) {
        return MONO0 + (t.getEpochSecond() * 1_000_000_000L + t.getNano() - EPOCH0);
    }

    private static void guarded(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            Failures.report("events.jfr", t);
        }
    }
}
