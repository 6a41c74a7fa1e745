package io.memscope.bench.events;

import io.memscope.events.EventsSettings;
import io.memscope.events.RuntimeEvents;
import io.memscope.events.jvm.JvmRuntimeEvents;
import jdk.jfr.consumer.RecordingStream;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Overhead of the runtime-event bridge on a GC-heavy workload, split into what JFR costs and what memscope adds.
 * Three configurations, each a fresh JVM ({@code -Xmx64m}), alternating, same run:
 * <ul>
 *   <li>{@code none}: the workload alone;</li>
 *   <li>{@code jfr}: a {@link RecordingStream} in the JVM with exactly the bridge's event settings
 *       (jdk.GCPhasePause, jdk.GCPhasePauseLevel1, jdk.GarbageCollection, jdk.G1GarbageCollection, jdk.GCHeapSummary,
 *       jdk.ThreadStart/End without stack traces) and a handler per event type that only reads the start time: JFR
 *       recording, writing chunks, parsing and delivering the events, no rings;</li>
 *   <li>{@code bridge}: {@link JvmRuntimeEvents#start()}, memscope's bridge: the same stream plus mapping every event
 *       into the rings (de-duplication, pause naming, ring writes).</li>
 * </ul>
 * The workload allocates {@value #ALLOCATIONS} arrays of 2 KiB and keeps a rolling window of 8,192 of them (16 MiB
 * live), about a thousand young pauses. Reported per configuration: the median over the JVMs of the workload's
 * wall time, and of the whole process's CPU time (all threads: GC, JFR, the stream, the bridge) over the workload.
 *
 * <p>Usage: {@code java -cp memscope-bench/target/benchmarks.jar io.memscope.bench.events.BridgeOverhead [reps] [java]}
 */
public final class BridgeOverhead {
    static final int ALLOCATIONS = Integer.getInteger("allocations", 6_000_000);

    enum Mode { none, jfr, bridge }

    private BridgeOverhead() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 2 && args[0].equals("child")) {
            child(Mode.valueOf(args[1]));
            return;
        }
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        String java = args.length > 1 ? args[1] : Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        Path dir = Files.createTempDirectory("memscope-bridge-overhead");
        Map<Mode, List<double[]>> results = new EnumMap<>(Mode.class);
        for (int r = 0; r < reps; r++) {
            for (Mode m : modes()) {
                ProcessBuilder pb = new ProcessBuilder(java, "-Xmx64m",
                        "-DfromStart=" + Boolean.getBoolean("fromStart"), "-Dallocations=" + ALLOCATIONS, "-cp", cp, BridgeOverhead.class.getName(),
                        "child", m.name());
                pb.environment().put("MEMSCOPE_EVENTS_DIR", dir.toString());
                pb.redirectErrorStream(true);
                Process p = pb.start();
                String out = new String(p.getInputStream().readAllBytes()).trim();
                if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new IllegalStateException(m + " failed: " + out);
                }
                String last = out.substring(out.lastIndexOf('\n') + 1);
                String[] f = last.split(" ");
                double[] v = {Double.parseDouble(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3])};
                results.computeIfAbsent(m, k -> new ArrayList<>()).add(v);
                System.out.printf(Locale.ROOT, "run %d %-6s wall %7.0f ms  cpu %7.0f ms  pauses %5.0f%n", r + 1, m,
                        v[0], v[1], v[2]);
            }
        }
        if (results.size() < Mode.values().length) {
            return;
        }
        double wall0 = median(results.get(Mode.none), 0);
        double cpu0 = median(results.get(Mode.none), 1);
        double wallJ = median(results.get(Mode.jfr), 0);
        double cpuJ = median(results.get(Mode.jfr), 1);
        System.out.println("config  median wall ms  vs none   median cpu ms  vs none  pauses");
        for (Mode m : Mode.values()) {
            double w = median(results.get(m), 0);
            double c = median(results.get(m), 1);
            System.out.printf(Locale.ROOT, "%-6s  %13.0f  %+6.1f%%  %13.0f  %+6.1f%%  %6.0f%n", m, w,
                    100 * (w / wall0 - 1), c, 100 * (c / cpu0 - 1), median(results.get(m), 2));
        }
        double wallB = median(results.get(Mode.bridge), 0);
        double cpuB = median(results.get(Mode.bridge), 1);
        System.out.printf(Locale.ROOT, "JFR streaming itself: wall %+.1f%%, cpu %+.1f%%; memscope's part (bridge - jfr): "
                + "wall %+.0f ms (%+.1f%%), cpu %+.0f ms (%+.1f%%)%n", 100 * (wallJ / wall0 - 1),
                100 * (cpuJ / cpu0 - 1), wallB - wallJ, 100 * (wallB - wallJ) / wall0, cpuB - cpuJ,
                100 * (cpuB - cpuJ) / cpu0);
        try (var s = Files.list(dir)) {
            for (Path f : (Iterable<Path>) s::iterator) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(dir);
    }

    /** The configurations to run: system property {@code modes} (comma-separated), default all. */
    private static List<Mode> modes() {
        List<Mode> l = new ArrayList<>();
        for (String m : System.getProperty("modes", "none,jfr,bridge").split(",")) {
            l.add(Mode.valueOf(m.trim()));
        }
        return l;
    }

    private static double median(List<double[]> l, int i) {
        List<Double> v = new ArrayList<>();
        for (double[] d : l) {
            v.add(d[i]);
        }
        Collections.sort(v);
        return v.size() % 2 == 1 ? v.get(v.size() / 2) : (v.get(v.size() / 2 - 1) + v.get(v.size() / 2)) / 2;
    }

    /** Runs the workload in this JVM and prints "result wallMs cpuMs pauses". */
    private static void child(Mode mode) throws Exception {
        RecordingStream rs = null;
        long[] pauses = new long[1];
        if (mode == Mode.jfr) {
            rs = new RecordingStream();
            // the bridge's stream configuration, minus the bridge: read from the JVM's start, flush and metadata hooks
            if (Boolean.getBoolean("fromStart")) {
                rs.setStartTime(java.time.Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime()));
            }
            rs.onFlush(() -> pauses[0] += 0);
            for (String e : new String[] {"jdk.GCPhasePause", "jdk.GCPhasePauseLevel1", "jdk.GarbageCollection",
                "jdk.G1GarbageCollection", "jdk.GCHeapSummary"}) {
                rs.enable(e);
                rs.onEvent(e, ev -> pauses[0] += ev.getStartTime().getNano() == -1 ? 1 : 0);
            }
            rs.enable("jdk.ThreadStart").withoutStackTrace();
            rs.enable("jdk.ThreadEnd").withoutStackTrace();
            rs.onEvent("jdk.GCPhasePause", ev -> pauses[0]++);
            CountDownLatch started = new CountDownLatch(1);
            rs.onMetadata(m -> started.countDown());
            RecordingStream stream = rs;
            Thread t = new Thread(stream::start, "jfr-stream");
            t.setDaemon(true);
            t.start();
            started.await(1, TimeUnit.SECONDS);
        } else if (mode == Mode.bridge) {
            RuntimeEvents.start(EventsSettings.fromEnvironment());
            if (!JvmRuntimeEvents.start()) {
                throw new IllegalStateException("bridge did not start");
            }
        }
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        byte[][] keep = new byte[8192][];
        long sink = 0;
        for (int i = 0; i < ALLOCATIONS; i++) {
            byte[] b = new byte[2048];
            b[i & 2047] = (byte) i;
            keep[i & 8191] = b;
            sink += b[(i * 31) & 2047];
        }
        long wall = System.nanoTime() - t0;
        long cpu = os.getProcessCpuTime() - cpu0;
        long gcCount = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
        }
        if (rs != null) {
            rs.close();
        }
        System.out.println("sink " + sink);
        System.out.printf(Locale.ROOT, "result %.1f %.1f %d%n", wall / 1e6, cpu / 1e6, gcCount);
    }
}
