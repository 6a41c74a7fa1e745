package io.memscope.events.jvm;

import io.memscope.internal.error.Failures;
import io.memscope.events.Counter;
import io.memscope.events.EventsProducer;
import io.memscope.events.Lifecycle;
import io.memscope.events.RuntimeEvents;
import io.memscope.events.Span;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.Map;

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
 *
 * <p>A bridge is an object feeding one {@link EventsProducer}: {@code new JvmRuntimeEvents(producer).attach()}, each
 * with its own JFR stream and handles. The static {@link #start()} and {@link #stopStream()} drive the bridge of
 * the process-wide producer ({@link RuntimeEvents}), the one {@code EventsAgent} and the memscope agent start.
 */
public final class JvmRuntimeEvents {
    /**
     * The bridge of the process-wide producer ({@link RuntimeEvents}), behind the static {@link #start()} that
     * {@code EventsAgent} and the memscope agent call: static like the producer it feeds.
     */
    private static final JvmRuntimeEvents PROCESS = new JvmRuntimeEvents(RuntimeEvents.producer());

    private final EventsProducer producer;
    private RecordingStream stream;
    private Handlers handlers;
    private volatile long lastFlush = Long.MIN_VALUE / 2;
    /** nanoTime of the stream's last delivery (an event or a flush). */
    private volatile long lastDelivery = Long.MIN_VALUE / 2;

    /**
     * A bridge of its own, writing the JVM's events to {@code producer} once {@link #attach() attached}; it shares
     * nothing with another bridge (each has its own JFR stream).
     */
    public JvmRuntimeEvents(EventsProducer producer) {
        this.producer = java.util.Objects.requireNonNull(producer, "producer");
    }

    /** Starts runtime events (from the environment's settings) and the JFR bridge. Idempotent; never throws. */
    public static boolean start() {
        return PROCESS.attach(true);
    }

    /** Stops the process-wide bridge's JFR stream, flushing what it still holds when the JDK allows (20+). */
    public static void stopStream() {
        PROCESS.detach();
    }

    /**
     * Starts this bridge's JFR stream, writing to its producer, which must be running. Idempotent; never throws.
     *
     * @return true if the bridge runs
     */
    public boolean attach() {
        return attach(false);
    }

    private synchronized boolean attach(boolean startProducer) {
        if (stream != null) {
            return true;
        }
        try {
            if (startProducer ? !RuntimeEvents.start() : !producer.enabled()) {
                return false;
            }
            Lifecycle vmStart = producer.lifecycle("vm.start");
            Lifecycle vmShutdown = producer.lifecycle("vm.shutdown");
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
            Counter used = producer.counter("heap.used");
            Counter committed = producer.counter("heap.committed");
            Counter sumOfPauses = producer.counter("gc.sumOfPauses.ns");
            Lifecycle threadStart = producer.lifecycle("thread.start");
            Lifecycle threadEnd = producer.lifecycle("thread.end");
            Handlers h = new Handlers(producer, used, committed, sumOfPauses, threadStart, threadEnd);
            rs.onFlush(() -> {
                guarded(() -> h.flushPending(false));
                lastFlush = System.nanoTime();
                lastDelivery = lastFlush;
            });
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            rs.onMetadata(m -> started.countDown()); // the stream reads its first chunk: the recording runs
            for (String name : Handlers.NAMES) {
                rs.onEvent(name, e -> {
                    lastDelivery = System.nanoTime();
                    guarded(() -> h.accept(e, Handlers.STREAM));
                });
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
            producer.beforeStop(() -> {
                vmShutdown.emit(ProcessHandle.current().pid());
                detach();
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

    /** Stops this bridge's JFR stream, flushing what it still holds when the JDK allows (20+). Idempotent. */
    public synchronized void detach() {
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
            // JFR's own shutdown hook stopped the recording first (stop() then throws "already stopped"); the
            // stream still reads the recording's last chunk and delivers its events, after a first (often empty)
            // flush. Wait (bounded) for a flush after now and then 200 ms without deliveries.
            long t0 = System.nanoTime();
            try {
                while (System.nanoTime() - t0 < 2_000_000_000L) {
                    long now = System.nanoTime();
                    if (lastFlush - t0 > 0 && now - Math.max(lastFlush, lastDelivery) > 200_000_000L) {
                        break;
                    }
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
                    + (System.nanoTime() - lastFlush) / 1_000_000 + " ms ago; written/duplicate per source "
                    + "(stream, start chunks, exit chunks): " + java.util.Arrays.toString(handlers == null ? null
                    : handlers.counts));
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
     * Events seen by both paths are written once (see {@link Handlers}).
     */
    private static void readEarlierChunks(Handlers h) {
        String repo = System.getProperty("jdk.jfr.repository");
        java.io.File[] chunks = repo == null ? null : new java.io.File(repo).listFiles((d, n) -> n.endsWith(".jfr"));
        if (chunks == null || chunks.length <= 1) {
            h.noEarlyChunks(); // only the stream's own chunk, being written: nothing can arrive twice
            return;
        }
        java.util.Arrays.sort(chunks);
        for (java.io.File chunk : chunks) {
            try (jdk.jfr.consumer.RecordingFile f = new jdk.jfr.consumer.RecordingFile(chunk.toPath())) {
                while (f.hasMoreEvents()) {
                    RecordedEvent e = f.readEvent();
                    if (Handlers.NAMES.contains(e.getEventType().getName()) && e.getStartTime().isBefore(h.horizon)) {
                        h.accept(e, Handlers.EARLY_CHUNKS);
                    }
                }
            } catch (Throwable unfinished) {
                // the chunk being written: its events come through the stream
            }
        }
    }

    /**
     * At exit, when JFR's own shutdown hook stopped the recording before the stream delivered its last events:
     * waits (bounded) until the chunk files are complete, then delivers the events (GC and thread) the stream
     * missed. Finds nothing when JFR's hook already removed the repository: then the last second before exit is
     * missing from the rings (memscope latency does not depend on it: it reads each JVM's GC log).
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
                        if (h.isCandidateAtExit(e)) {
                            events.add(e);
                        }
                    }
                } catch (Throwable unfinished) {
                    complete = false;
                }
            }
            if (complete || System.nanoTime() > deadline) {
                for (RecordedEvent e : events) {
                    h.accept(e, Handlers.EXIT_CHUNKS);
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
     * Maps JFR events to ring events. An event can reach it twice: through the stream and through a chunk file read
     * at start ({@link #EARLY_CHUNKS}: the recording's finished chunks, events before {@link #horizon}) or at exit
     * ({@link #EXIT_CHUNKS}: what the stream did not deliver before JFR's shutdown hook stopped it). Every event is
     * written once, keyed by a 64-bit hash of its type, gcId, name, duration, thread and heap-summary side:
     * <ul>
     *   <li>start: the keys of events before the horizon are kept in a set, dropped once the stream is past it;</li>
     *   <li>exit: the keys and end times of the last {@link #RECENT} events delivered are kept in two fixed arrays;
     *       a chunk event at exit is written if it ends after {@link #floor} (the end of the newest event that left
     *       those arrays) and its key is not in them.</li>
     * </ul>
     * In between, stream events are not looked up at all, and nothing per event is retained: the bridge's memory is
     * constant and it adds no old-to-young references for the collector to track on a GC-heavy workload.
     */
    private static final class Handlers {
        static final java.util.List<String> NAMES = java.util.List.of("jdk.GCPhasePause", "jdk.GCPhasePauseLevel1",
                "jdk.GarbageCollection", "jdk.G1GarbageCollection", "jdk.GCHeapSummary", "jdk.ThreadStart",
                "jdk.ThreadEnd");
        static final int STREAM = 0;
        static final int EARLY_CHUNKS = 1;
        static final int EXIT_CHUNKS = 2;
        /** Delivered events remembered for the exit read. */
        static final int RECENT = 1024;
        /** Collections remembered for naming pauses (indexed by gcId modulo this). */
        static final int COLLECTIONS = 256;
        static final int MAX_PENDING = 256;
        /** The generic name JDK 17+ gives young and full pauses in jdk.GCPhasePause. */
        static final String GENERIC_PAUSE = "GC Pause";

        final Counter used;
        final Counter committed;
        final Counter sumOfPauses;
        final Lifecycle threadStart;
        final Lifecycle threadEnd;
        final EventsProducer producer;
        final Lifecycle firstObserved;
        long firstGcId = Long.MAX_VALUE;
        /** Per source (stream, early chunks, exit chunks): events written, duplicates skipped (MEMSCOPE_DEBUG). */
        final long[] counts = new long[6];
        volatile Instant horizon = Instant.MAX;
        /** Keys of events before the horizon; null once the stream delivered events well past it. */
        java.util.Set<Long> early = new java.util.HashSet<>();
        final long[] recentKey = new long[RECENT];
        final long[] recentEnd = new long[RECENT];
        long recentCount;
        /** Exit reads skip events ending at or before this (epoch ns): the stream delivered them. */
        long floor = Long.MIN_VALUE;
        /** Pauses named {@link #GENERIC_PAUSE}, held until their collection's name and cause are known. */
        final java.util.List<PendingPause> pending = new java.util.ArrayList<>();
        /** Per gcId modulo {@link #COLLECTIONS}: the gcId, its jdk.GarbageCollection name and cause, its G1 type. */
        final long[] collectionId = new long[COLLECTIONS];
        final String[][] collection = new String[COLLECTIONS][];
        final long[] g1TypeId = new long[COLLECTIONS];
        final String[] g1Type = new String[COLLECTIONS];
        /** Spans by JFR name, per category (no string concatenation per event). */
        final Map<String, Span> pauseSpans = new java.util.HashMap<>();
        final Map<String, Span> phaseSpans = new java.util.HashMap<>();
        final Map<String, Span> collectionSpans = new java.util.HashMap<>();

        Handlers(EventsProducer producer, Counter used, Counter committed, Counter sumOfPauses, Lifecycle threadStart,
                 Lifecycle threadEnd) {
            this.producer = producer;
            this.firstObserved = producer.lifecycle("gc.firstObservedId");
            this.used = used;
            this.committed = committed;
            this.sumOfPauses = sumOfPauses;
            this.threadStart = threadStart;
            this.threadEnd = threadEnd;
            java.util.Arrays.fill(collectionId, -1);
            java.util.Arrays.fill(g1TypeId, -1);
        }

        /** No finished chunk was there to read at start: stream events need no start-up de-duplication. */
        synchronized void noEarlyChunks() {
            early = null;
        }

        /** @return true if a chunk read at exit should offer {@code e} (the stream may not have delivered it) */
        synchronized boolean isCandidateAtExit(RecordedEvent e) {
            return NAMES.contains(e.getEventType().getName()) && epochNanos(e.getEndTime()) > floor;
        }

        /** @return the event's identity: equal for the same event read through the stream or a chunk file */
        private static long key(RecordedEvent e, int type) {
            // not the start time: the stream and a chunk file convert ticks to time slightly differently
            long h = type;
            if (type <= 4) {
                h = h * 0x9E3779B97F4A7C15L + e.getLong("gcId");
            }
            if (type <= 2) {
                h = h * 0x9E3779B97F4A7C15L + java.util.Objects.toString(e.getString("name")).hashCode();
            } else if (type == 4) {
                h = h * 0x9E3779B97F4A7C15L + java.util.Objects.toString(e.getValue("when")).hashCode();
            } else if (type >= 5) {
                h = h * 0x9E3779B97F4A7C15L + threadId(e);
            }
            h = h * 0x9E3779B97F4A7C15L + e.getDuration().toNanos();
            h ^= h >>> 31;
            return h * 0xBF58476D1CE4E5B9L;
        }

        /** @return true if the event was delivered already (and remembers it otherwise) */
        private boolean duplicate(RecordedEvent e, int type, int source) {
            long end = epochNanos(e.getEndTime());
            java.util.Set<Long> early = this.early;
            boolean beforeHorizon = e.getStartTime().isBefore(horizon);
            long key = 0;
            if (source == EXIT_CHUNKS) {
                if (end <= floor) {
                    return true;
                }
                key = key(e, type);
                int n = (int) Math.min(recentCount, RECENT);
                for (int i = 0; i < n; i++) {
                    if (recentKey[i] == key) {
                        return true;
                    }
                }
                if (early != null && early.contains(key)) {
                    return true;
                }
            } else if (early != null && beforeHorizon) {
                key = key(e, type);
                if (!early.add(key)) {
                    return true;
                }
            } else if (early != null && source == STREAM
                    && e.getStartTime().isAfter(horizon.plusSeconds(10))) {
                // the stream delivers in time order: everything before the horizon is behind it
                this.early = null;
                floor = Math.max(floor, epochNanos(horizon));
            }
            int i = (int) (recentCount++ % RECENT);
            if (recentCount > RECENT) {
                floor = Math.max(floor, recentEnd[i]);
            }
            recentKey[i] = key != 0 ? key : key(e, type);
            recentEnd[i] = end;
            return false;
        }

        synchronized void accept(RecordedEvent e, int source) {
            String type = e.getEventType().getName();
            int typeIndex = NAMES.indexOf(type);
            if (typeIndex < 0 || duplicate(e, typeIndex, source)) {
                counts[source * 2 + 1]++;
                return;
            }
            counts[source * 2]++;
            long gcId = typeIndex <= 4 ? e.getLong("gcId") : -1;
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
                        span(producer, pauseSpans, "gc.pause/", name, begin, stop);
                    }
                    break;
                }
                case "jdk.GCPhasePauseLevel1":
                    span(producer, phaseSpans, "gc.phase/", e.getString("name"), toMono(e.getStartTime()),
                            toMono(e.getEndTime()));
                    break;
                case "jdk.GarbageCollection": {
                    String name = e.getString("name");
                    String cause = e.getString("cause");
                    int i = (int) (gcId & (COLLECTIONS - 1));
                    collectionId[i] = gcId;
                    String[] c = collection[i];
                    if (c == null || !java.util.Objects.equals(c[0], name) || !java.util.Objects.equals(c[1], cause)) {
                        collection[i] = new String[] {name, cause}; // the same few pairs recur: rarely replaced
                    }
                    resolve(gcId);
                    span(producer, collectionSpans, "gc.collection/", name + " (" + cause + ")", toMono(e.getStartTime()),
                            toMono(e.getEndTime()));
                    sumOfPauses.set(e.getDuration("sumOfPauses").toNanos(), toMono(e.getEndTime()));
                    break;
                }
                case "jdk.G1GarbageCollection": {
                    int i = (int) (gcId & (COLLECTIONS - 1));
                    g1TypeId[i] = gcId;
                    g1Type[i] = e.getString("type");
                    resolve(gcId);
                    break;
                }
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
            String[] gc = collectionOf(gcId);
            if (gc == null || ("G1New".equals(gc[0]) && g1TypeOf(gcId) == null)) {
                return;
            }
            for (java.util.Iterator<PendingPause> it = pending.iterator(); it.hasNext(); ) {
                PendingPause p = it.next();
                if (p.gcId == gcId) {
                    writePause(p);
                    it.remove();
                }
            }
            if (pending.size() > MAX_PENDING) {
                flushPending(true); // collection events are not arriving (not enabled in the recording read)
            }
        }

        private String[] collectionOf(long gcId) {
            int i = (int) (gcId & (COLLECTIONS - 1));
            return collectionId[i] == gcId ? collection[i] : null;
        }

        private String g1TypeOf(long gcId) {
            int i = (int) (gcId & (COLLECTIONS - 1));
            return g1TypeId[i] == gcId ? g1Type[i] : null;
        }

        private void writePause(PendingPause p) {
            span(producer, pauseSpans, "gc.pause/", pauseName(collectionOf(p.gcId), g1TypeOf(p.gcId)), p.begin, p.end);
        }

        /**
         * Writes the held pauses with what is known of their collections: a pause still unnamed after two more
         * flushes of the stream (about 2 s), or every pause when {@code force} (exit), is written as it is.
         */
        synchronized void flushPending(boolean force) {
            for (java.util.Iterator<PendingPause> it = pending.iterator(); it.hasNext(); ) {
                PendingPause p = it.next();
                if (force || p.flushes++ >= 2) {
                    writePause(p);
                    it.remove();
                }
            }
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

    /** Writes span {@code prefix + name} from begin to end; spans are looked up by the JFR name alone. */
    private static void span(EventsProducer producer, Map<String, Span> spans, String prefix, String name, long begin,
                             long end) {
        Span s = spans.get(name);
        if (s == null) {
            s = producer.span(prefix + name);
            spans.put(name, s);
        }
        s.record(begin, end); // both edges or neither, even when events stop at exit meanwhile
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
            if (DEBUG) {
                t.printStackTrace();
            }
            Failures.report("events.jfr", t);
        }
    }

    private static final boolean DEBUG = System.getenv("MEMSCOPE_DEBUG") != null;
}
