package io.memscope.events.jvm;

import io.memscope.internal.error.Failures;
import io.memscope.events.Counter;
import io.memscope.events.EventsProducer;
import io.memscope.events.Lifecycle;
import io.memscope.events.RuntimeEvents;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

import java.lang.management.ManagementFactory;
import java.time.Instant;

/**
 * Bridges the JVM's own runtime events into the event rings, through JFR streaming inside this JVM
 * ({@link RecordingStream}, stack traces off). Mapping (names as stored in the ring file):
 * <table>
 *   <caption>JFR event to ring event</caption>
 *   <tr><th>JFR event</th><th>ring event</th></tr>
 *   <tr><td>jdk.GCPhasePause (every stop-the-world pause: young, mixed, remark, cleanup, full)</td>
 *       <td>span {@code gc.pause/<name>} from the pause's start to its end. JDK 21+ names young and full pauses
 *       only "GC Pause": the bridge then names them as {@code -Xlog:gc} does, from the jdk.GarbageCollection and
 *       jdk.G1GarbageCollection events of the same gcId (see {@link JfrEventMapper#pauseName}), e.g.
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
    private JfrEventMapper mapper;
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
            vmStart.emit(ProcessHandle.current().pid(), JfrEventMapper.toMono(Instant.ofEpochMilli(startMillis)));
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
            JfrEventMapper h = new JfrEventMapper(producer, used, committed, sumOfPauses, threadStart, threadEnd);
            rs.onFlush(() -> {
                guarded(() -> h.flushPending(false));
                lastFlush = System.nanoTime();
                lastDelivery = lastFlush;
            });
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            rs.onMetadata(m -> started.countDown()); // the stream reads its first chunk: the recording runs
            for (String name : JfrEventMapper.NAMES) {
                rs.onEvent(name, e -> {
                    lastDelivery = System.nanoTime();
                    guarded(() -> h.accept(e, JfrEventMapper.STREAM));
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
            mapper = h;
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
        if (!flushed && mapper != null) {
            readChunksAtExit(mapper);
        }
        if (mapper != null) {
            mapper.flushPending(true);
        }
        if (System.getenv("MEMSCOPE_DEBUG") != null) {
            System.err.println("memscope events: JFR stream stop: flushed=" + flushed + " lastFlush="
                    + (System.nanoTime() - lastFlush) / 1_000_000 + " ms ago; written/duplicate per source "
                    + "(stream, start chunks, exit chunks): " + java.util.Arrays.toString(mapper == null ? null
                    : mapper.counts));
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
     * Events seen by both paths are written once (see {@link JfrEventMapper}).
     */
    private static void readEarlierChunks(JfrEventMapper h) {
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
                    if (JfrEventMapper.NAMES.contains(e.getEventType().getName()) && e.getStartTime().isBefore(h.horizon)) {
                        h.accept(e, JfrEventMapper.EARLY_CHUNKS);
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
    private static void readChunksAtExit(JfrEventMapper h) {
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
                    h.accept(e, JfrEventMapper.EXIT_CHUNKS);
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
