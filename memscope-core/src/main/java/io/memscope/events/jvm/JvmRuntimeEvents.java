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
import java.lang.reflect.Method;
import java.time.Duration;
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
 *       <td>span {@code gc.pause/<name>} from the pause's start to its end</td></tr>
 *   <tr><td>jdk.GCPhasePauseLevel1</td><td>span {@code gc.phase/<name>}</td></tr>
 *   <tr><td>jdk.GarbageCollection</td><td>span {@code gc.collection/<gc name> (<cause>)}; counter
 *       {@code gc.sumOfPauses.ns}</td></tr>
 *   <tr><td>jdk.GCHeapSummary (before and after each GC)</td><td>counters {@code heap.used} and
 *       {@code heap.committed} (bytes) at the summary's time</td></tr>
 *   <tr><td>jdk.ThreadStart / jdk.ThreadEnd</td><td>lifecycle {@code thread.start} / {@code thread.end},
 *       datum the Java thread id</td></tr>
 *   <tr><td>(bridge start) / (shutdown hook)</td><td>lifecycle {@code vm.start} at the JVM's start time, datum
 *       the pid / {@code vm.shutdown}</td></tr>
 * </table>
 * JFR delivers events about once a second; they carry their own start and end times, converted to the ring's
 * monotonic clock. All of them are written by the JFR stream's thread, so they share one ring. At shutdown the
 * stream is stopped with a final flush on JDK 20+ ({@code RecordingStream.stop()}); on JDK 17-19 the last second of
 * events before exit may be missing.
 */
public final class JvmRuntimeEvents {
    private static RecordingStream stream;
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
            rs.enable("jdk.GCPhasePause");
            rs.enable("jdk.GCPhasePauseLevel1");
            rs.enable("jdk.GarbageCollection");
            rs.enable("jdk.GCHeapSummary");
            rs.enable("jdk.ThreadStart").withoutStackTrace();
            rs.enable("jdk.ThreadEnd").withoutStackTrace();
            Counter used = RuntimeEvents.counter("heap.used");
            Counter committed = RuntimeEvents.counter("heap.committed");
            Counter sumOfPauses = RuntimeEvents.counter("gc.sumOfPauses.ns");
            Lifecycle threadStart = RuntimeEvents.lifecycle("thread.start");
            Lifecycle threadEnd = RuntimeEvents.lifecycle("thread.end");
            rs.onEvent("jdk.GCPhasePause", e -> guarded(() -> span("gc.pause/" + e.getString("name"), e)));
            rs.onEvent("jdk.GCPhasePauseLevel1", e -> guarded(() -> span("gc.phase/" + e.getString("name"), e)));
            rs.onEvent("jdk.GarbageCollection", e -> guarded(() -> {
                span("gc.collection/" + e.getString("name") + " (" + e.getString("cause") + ")", e);
                sumOfPauses.set(e.getDuration("sumOfPauses").toNanos(), toMono(e.getEndTime()));
            }));
            rs.onEvent("jdk.GCHeapSummary", e -> guarded(() -> {
                long ts = toMono(e.getStartTime());
                used.set(e.getLong("heapUsed"), ts);
                committed.set(e.getLong("heapSpace.committedSize"), ts);
            }));
            rs.onEvent("jdk.ThreadStart", e -> guarded(() -> threadStart.emit(threadId(e), toMono(e.getStartTime()))));
            rs.onEvent("jdk.ThreadEnd", e -> guarded(() -> threadEnd.emit(threadId(e), toMono(e.getStartTime()))));
            rs.startAsync();
            stream = rs;
            RuntimeEvents.beforeStop(() -> {
                vmShutdown.emit(ProcessHandle.current().pid());
                stopStream();
            });
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
        try {
            Method stop = RecordingStream.class.getMethod("stop"); // JDK 20+: stops and delivers the rest
            stop.invoke(rs);
        } catch (NoSuchMethodException e) {
            try {
                rs.awaitTermination(Duration.ofMillis(200));
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        } catch (Throwable t) {
            Failures.report("events.jfr.stop", t);
        }
        rs.close();
    }

    private static void span(String name, RecordedEvent e) {
        Span s = SPANS.computeIfAbsent(name, RuntimeEvents::span);
        s.begin(toMono(e.getStartTime()));
        s.end(toMono(e.getEndTime()));
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
