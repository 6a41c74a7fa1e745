package io.memscope.bench.agent;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.ZipFile;

/**
 * Whole-process cost of sampling malloc on {@code io.memscope.bench.agent.workload.MallocWorkload} (zlib's Deflater
 * and Inflater streams and zstd-jni's streams over JSON log documents): each configuration is a fresh JVM timed from outside, from start to exit (wall time, and the
 * process's CPU time as the OS counts it), configurations alternating within each repetition, medians over
 * repetitions (needs {@code /usr/bin/time} for the CPU time). Configurations: no agent; memscope without malloc
 * sampling (the default capture: heap sampler, process memory); and for each interval, memscope with
 * {@code malloc=true}, the same with the rest of the capture off ({@link #HEAP_OFF}: the malloc part alone, like
 * for like) and async-profiler 4.1's {@code nativemem} at that interval ({@code tools.profiler:async-profiler}
 * from the local Maven repository). The load ({@code /proc/loadavg}) is printed before and after.
 *
 * <p>Usage (from the repository root, after building memscope-agent and memscope-bench; run with JDK 25, {@code java}
 * the JVM measured, empty for the one running this):
 * {@code java -cp memscope-bench/target/benchmarks.jar io.memscope.bench.agent.MallocOverhead [reps] [documents] [java]
 * [codecs] [intervals]}: codecs {@code zlib,zstd} (the default), {@code zlib} or {@code zstd}; intervals
 * {@code 128k,512k} (the default), any list of sizes in KiB. {@code -Dmemscope.baseline=JAR} adds the same
 * configurations with another memscope agent jar (an older build, to compare in the same run).
 *
 * <p>{@code set=peers} (before the numbers) measures memscope's heap capture with and without malloc sampling against
 * the peers that capture the same: no agent; memscope's default capture; the same with {@code malloc=true}
 * ({@code mallocInterval}: the first interval); async-profiler {@code alloc} (the JVM's sampler at 512 KiB, as
 * memscope's default interval); async-profiler {@code alloc} and {@code nativemem} in one session (JFR output, the only
 * one async-profiler takes for two events); JFR with {@code settings=profile} ({@code jdk.ObjectAllocationSample} at
 * that file's throttle, 300 a second, and the rest of the file). {@code threads=true} also polls each process's
 * threads ({@code /proc/PID/task/TID/stat}, every 50 ms, the last reading of each thread before it ended) and prints
 * the median CPU per thread group (names without their numbers): where the time of each configuration goes; the
 * polling's own CPU is the same for every configuration, so compare rows, not against a run without it.
 */
public final class MallocOverhead {
    /** The agent options that turn off what memscope captures besides malloc, as far as options go. */
    static final String HEAP_OFF = "interval=2147483647,gc=false,native=false,endCheck=off,paths=false,"
            + "processMemory=0,rssDetail=0,jmx=false";

    private MallocOverhead() {
    }

    public static void main(String[] argv) throws Exception {
        String set = "malloc";
        boolean threads = false;
        List<String> positional = new ArrayList<>();
        for (String a : argv) {
            if (a.startsWith("set=")) {
                set = a.substring("set=".length());
            } else if (a.startsWith("threads=")) {
                threads = Boolean.parseBoolean(a.substring("threads=".length()));
            } else {
                positional.add(a);
            }
        }
        if (!set.equals("malloc") && !set.equals("peers")) {
            throw new IllegalArgumentException("set=" + set + ": malloc or peers");
        }
        String[] args = positional.toArray(new String[0]);
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        String documents = args.length > 1 ? args[1] : "20000";
        String java = args.length > 2 && !args[2].isEmpty() ? args[2]
                : Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String codecs = args.length > 3 ? args[3] : "zlib,zstd";
        String[] intervals = (args.length > 4 ? args[4] : "128k,512k").split(",");
        Path root = Path.of("").toAbsolutePath();
        String classPath = System.getProperty("java.class.path"); // the workload's (benchmarks.jar: zstd-jni in it)
        String baseline = System.getProperty("memscope.baseline"); // another memscope-agent.jar to compare with
        Path memscope = root.resolve("memscope-agent/target/memscope-agent.jar");
        Path work = Files.createTempDirectory("memscope-malloc-bench");
        Path asyncJar = Path.of(System.getProperty("user.home"), ".m2", "repository",
                "tools/profiler/async-profiler/4.1/async-profiler-4.1.jar");
        Path asyncLib = Files.exists(asyncJar) ? extract(asyncJar, "linux-x64/libasyncProfiler.so",
                work.resolve("libasyncProfiler.so")) : null;
        Map<String, List<String>> configs = set.equals("peers") ? peers(memscope, asyncLib, intervals[0], work)
                : new LinkedHashMap<>();
        if (set.equals("malloc")) {
            configs.put("no agent", List.of());
            configs.put("memscope, no malloc", List.of("-javaagent:" + memscope + "=quiet=true,out="
                    + work.resolve("m0")));
        }
        for (String k : set.equals("malloc") ? intervals : new String[0]) {
            long bytes = Long.parseLong(k.substring(0, k.length() - 1)) * 1024;
            configs.put("memscope malloc " + k, List.of("-javaagent:" + memscope + "=quiet=true,malloc=true,"
                    + "mallocInterval=" + k + ",out=" + work.resolve("m" + k)));
            // the malloc part alone: heap sampling at its largest interval, no GC records, no direct-buffer
            // tracking, no end check or heap walk, no process memory, no MXBean (what nativemem does not do either)
            configs.put("memscope malloc " + k + ", heap capture off", List.of("-javaagent:" + memscope
                    + "=quiet=true,malloc=true,mallocInterval=" + k + "," + HEAP_OFF + ",out=" + work.resolve("h" + k)));
            if (baseline != null) {
                configs.put("memscope (baseline) malloc " + k, List.of("-javaagent:" + baseline + "=quiet=true,"
                        + "malloc=true,mallocInterval=" + k + ",out=" + work.resolve("b" + k)));
            }
            if (asyncLib != null) {
                configs.put("async-profiler nativemem " + k, List.of("-agentpath:" + asyncLib + "=start,nativemem="
                        + bytes + ",file=" + work.resolve("ap" + k + ".jfr")));
            }
        }
        System.out.println("workload MallocWorkload " + documents + " documents (" + codecs + "), JVM " + java + ", "
                + reps + " repetitions, configurations alternating; load before: " + load());
        Map<String, List<Double>> wall = new LinkedHashMap<>();
        Map<String, List<Double>> cpu = new LinkedHashMap<>();
        Map<String, Map<String, List<Double>>> perThread = new LinkedHashMap<>();
        String checksum = null;
        for (int r = 0; r < reps; r++) {
            for (Map.Entry<String, List<String>> c : configs.entrySet()) {
                List<String> cmd = new ArrayList<>();
                // the process's CPU time (user + system, all its threads) as the OS counted it at its exit
                cmd.addAll(List.of("/usr/bin/time", "-f", "PROCESS_CPU %U %S"));
                cmd.add(java);
                cmd.add("-Xmx512m");
                cmd.addAll(c.getValue());
                cmd.addAll(List.of("-cp", classPath, "io.memscope.bench.agent.workload.MallocWorkload",
                        documents, codecs));
                long t0 = System.nanoTime();
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                ThreadCpu poll = threads ? ThreadCpu.start(p) : null;
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                int code = p.waitFor();
                if (poll != null) {
                    Map<String, List<Double>> groups = perThread.computeIfAbsent(c.getKey(),
                            k -> new LinkedHashMap<>());
                    poll.stop().forEach((g, ms) -> groups.computeIfAbsent(g, k -> new ArrayList<>()).add(ms));
                }
                double ms = (System.nanoTime() - t0) / 1e6;
                String[] times = out.substring(out.lastIndexOf("PROCESS_CPU")).split("\\s+");
                double cpuMs = (Double.parseDouble(times[1]) + Double.parseDouble(times[2])) * 1000;
                if (code != 0 || !out.contains("CHECKSUM")) {
                    throw new IllegalStateException(c.getKey() + " failed (" + code + "):\n" + out);
                }
                String sum = out.substring(out.indexOf("CHECKSUM")).lines().findFirst().orElseThrow();
                if (checksum != null && !checksum.equals(sum)) {
                    throw new IllegalStateException(c.getKey() + ": " + sum + " differs from " + checksum);
                }
                checksum = sum;
                wall.computeIfAbsent(c.getKey(), k -> new ArrayList<>()).add(ms);
                cpu.computeIfAbsent(c.getKey(), k -> new ArrayList<>()).add(cpuMs);
            }
        }
        System.out.println("load after: " + load());
        double base = median(wall.get("no agent"));
        double cpuBase = median(cpu.get("no agent"));
        System.out.println("| configuration | process wall (ms) | vs no agent | process CPU (ms) | vs no agent |");
        System.out.println("|---|---:|---:|---:|---:|");
        for (String name : configs.keySet()) {
            double w = median(wall.get(name));
            double c = median(cpu.get(name));
            System.out.printf(Locale.ROOT, "| %s | %.0f | %.2fx | %.0f | %.2fx |%n", name, w, w / base, c,
                    Double.isNaN(c) ? Double.NaN : c / cpuBase);
        }
        for (String name : configs.keySet()) {
            System.out.println(name + ": wall " + wall.get(name) + ", cpu " + cpu.get(name));
        }
        if (threads) {
            ThreadCpu.print(perThread, reps);
        }
        try (var files = Files.walk(work)) { // the recordings and profiles: not needed any more
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    /**
     * The peers of memscope's heap capture with malloc sampling at {@code mallocInterval}: see the class comment.
     * async-profiler's rows are left out when its library is not in the local Maven repository.
     */
    static Map<String, List<String>> peers(Path memscope, Path asyncLib, String mallocInterval, Path work) {
        long mallocBytes = Long.parseLong(mallocInterval.substring(0, mallocInterval.length() - 1)) * 1024;
        Map<String, List<String>> configs = new LinkedHashMap<>();
        configs.put("no agent", List.of());
        configs.put("memscope default", List.of("-javaagent:" + memscope + "=quiet=true,out=" + work.resolve("d")));
        configs.put("memscope default + malloc " + mallocInterval, List.of("-javaagent:" + memscope
                + "=quiet=true,malloc=true,mallocInterval=" + mallocInterval + ",out=" + work.resolve("dm")));
        if (asyncLib != null) {
            configs.put("async-profiler alloc 512k", List.of("-agentpath:" + asyncLib + "=start,alloc=524288,file="
                    + work.resolve("apa.jfr")));
            configs.put("async-profiler alloc 512k + nativemem " + mallocInterval, List.of("-agentpath:" + asyncLib
                    + "=start,alloc=524288,nativemem=" + mallocBytes + ",file=" + work.resolve("apan.jfr")));
        }
        configs.put("JFR settings=profile", List.of("-XX:StartFlightRecording=settings=profile,filename="
                + work.resolve("jfr.jfr")));
        return configs;
    }

    /** The 1, 5 and 15 minute load averages. */
    private static String load() throws Exception {
        String[] l = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return l[0] + " " + l[1] + " " + l[2];
    }

    private static double median(List<Double> l) {
        double[] v = l.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        return v.length == 0 ? Double.NaN : v[v.length / 2];
    }

    /** Extracts a zip entry to a file; null when the archive has no such entry. */
    private static Path extract(Path jar, String entry, Path to) throws Exception {
        try (ZipFile z = new ZipFile(jar.toFile())) {
            var e = z.getEntry(entry);
            if (e == null) {
                return null;
            }
            try (InputStream in = z.getInputStream(e)) {
                Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return to;
    }
}
