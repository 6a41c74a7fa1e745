package io.memscope.bench.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;

/**
 * Whole-process overhead of allocation profilers on {@code io.memscope.bench.agent.workload.AllocationWorkload}, all measured in the same run on the
 * same machine: no agent; memscope sample mode; memscope exact mode; JFR with {@code settings=profile} (allocation
 * sampling); async-profiler in alloc mode ({@code tools.profiler:async-profiler}); Google's
 * java-allocation-instrumenter with a counting sampler. Each configuration runs {@code reps} fresh JVMs; the figure
 * is the median of their median round times, both in the main thread's CPU time (robust against other processes
 * competing for the cores) and in wall-clock time. Also checks accuracy: memscope's sampled total against ThreadMXBean's
 * exact count, and exact mode's allocation count against the workload's own count.
 *
 * <p>Usage (from the repository root, after {@code ./mvnw package -DskipTests}):
 * {@code java -cp memscope-bench/target/benchmarks.jar io.memscope.bench.agent.AgentOverhead [workload=alloc|jackson]
 * [only=NAME,NAME] (only these configurations, by their names in the table, plus "no agent")
 * [reps] [rounds] [java]} ({@code alloc}, the default, is {@code AllocationWorkload}, a bare allocation loop;
 * {@code jackson} is {@code JacksonWorkload}, Jackson databind writing and parsing a list of POJOs)
 * (the measured JVMs default to JDK 17 when installed: java-allocation-instrumenter 3.3.4 cannot read JDK 25
 * class files, so on JDK 25 it would silently instrument nothing).
 */
public final class AgentOverhead {
    /** Selectable measured programs, by the name given as {@code workload=NAME}; the first is the default. */
    private static final Map<String, String> WORKLOADS = Map.of(
            "alloc", "io.memscope.bench.agent.workload.AllocationWorkload",
            "jackson", "io.memscope.bench.agent.workload.JacksonWorkload");

    private AgentOverhead() {
    }

    private static final class Result {
        final List<Double> medians = new ArrayList<>();
        final List<Double> cpuMedians = new ArrayList<>();
        final List<Double> cpuMins = new ArrayList<>();
        final List<String> outputs = new ArrayList<>();

        double median() {
            return median(medians);
        }

        double cpuMedian() {
            return median(cpuMedians);
        }

        double cpuMin() {
            return median(cpuMins);
        }

        private static double median(List<Double> l) {
            double[] v = l.stream().mapToDouble(Double::doubleValue).toArray();
            Arrays.sort(v);
            return v.length == 0 ? Double.NaN : v[v.length / 2];
        }
    }

    public static void main(String[] argv) throws Exception {
        String workloadName = "alloc";
        List<String> only = List.of();
        List<String> positional = new ArrayList<>();
        for (String a : argv) {
            if (a.startsWith("workload=")) {
                workloadName = a.substring("workload=".length());
            } else if (a.startsWith("only=")) {
                only = List.of(a.substring("only=".length()).split(","));
            } else {
                positional.add(a);
            }
        }
        String workload = WORKLOADS.get(workloadName);
        if (workload == null) {
            throw new IllegalArgumentException("unknown workload " + workloadName + ", known: " + WORKLOADS.keySet());
        }
        String[] args = positional.toArray(new String[0]);
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        String rounds = args.length > 1 ? args[1] : "10";
        Path root = Path.of("").toAbsolutePath();
        Path benchJar = Path.of(AgentOverhead.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path memscope = root.resolve("memscope-agent/target/memscope-agent.jar");
        Path m2 = Path.of(System.getProperty("user.home"), ".m2", "repository");
        Path instrumenter = m2.resolve("com/google/code/java-allocation-instrumenter/java-allocation-instrumenter/"
                + "3.3.4/java-allocation-instrumenter-3.3.4.jar");
        Path asyncJar = m2.resolve("tools/profiler/async-profiler/4.1/async-profiler-4.1.jar");
        Path work = Files.createTempDirectory("memscope-agent-bench");
        Path asyncLib = extract(asyncJar, "linux-x64/libasyncProfiler.so", work.resolve("libasyncProfiler.so"));
        Path jdk17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64/bin/java");
        String java = args.length > 2 ? args[2]
                : Files.isExecutable(jdk17) ? jdk17.toString()
                : Path.of(System.getProperty("java.home"), "bin", "java").toString();
        System.out.println("workload: " + workload + ", measured JVM: " + java + ", " + reps + " JVMs per configuration, " + rounds
                + " warm-up and " + rounds + " measured rounds each");

        Map<String, List<String>> configs = new LinkedHashMap<>();
        configs.put("no agent", List.of());
        // sampler=auto: the JVM's own sampler (JVMTI) when its library loads, which the run checks below.
        configs.put("memscope sample", List.of("-javaagent:" + memscope + "=quiet=true,out=" + work.resolve("s")));
        configs.put("memscope sample bytecode", List.of("-javaagent:" + memscope
                + "=quiet=true,sampler=bytecode,out=" + work.resolve("sb")));
        if (!workloadName.equals("alloc")) {
            // Realistic workloads allocate much inside java.* methods, which memscope hooks only with includeJdk.
            configs.put("memscope sample includeJdk", List.of("-javaagent:" + memscope
                    + "=quiet=true,includeJdk=true,out=" + work.resolve("sj")));
        }
        configs.put("memscope exact", List.of("-javaagent:" + memscope + "=quiet=true,mode=exact,out="
                + work.resolve("e")));
        configs.put("JFR profile", List.of("-XX:StartFlightRecording=settings=profile,filename="
                + work.resolve("r.jfr")));
        if (asyncLib != null) {
            configs.put("async-profiler alloc", List.of("-agentpath:" + asyncLib + "=start,event=alloc,file="
                    + work.resolve("ap.txt") + ",collapsed"));
        }
        if (Files.exists(instrumenter) && java.contains("17")) {
            configs.put("allocation-instrumenter", List.of("-javaagent:" + instrumenter,
                    "-Dbench.countingSampler=true"));
        }

        if (!only.isEmpty()) {
            // only=a,b: keep "no agent" and the configurations with exactly these names.
            List<String> keep = only;
            configs.keySet().removeIf(name -> !name.equals("no agent") && !keep.contains(name));
        }

        Map<String, Result> results = new LinkedHashMap<>();
        for (String name : configs.keySet()) {
            results.put(name, new Result());
        }
        for (int r = 0; r < reps; r++) {
            for (Map.Entry<String, List<String>> c : configs.entrySet()) {
                List<String> cmd = new ArrayList<>();
                cmd.add(java);
                cmd.add("-Xmx1g");
                cmd.addAll(c.getValue());
                cmd.addAll(List.of("-cp", benchJar.toString(), workload, rounds, rounds));
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (p.waitFor() != 0) {
                    throw new IllegalStateException(c.getKey() + " failed:\n" + out);
                }
                results.get(c.getKey()).medians.add(Double.parseDouble(field(out, "MEDIAN_ROUND_MS")));
                results.get(c.getKey()).cpuMedians.add(Double.parseDouble(field(out, "MEDIAN_ROUND_CPU_MS")));
                results.get(c.getKey()).cpuMins.add(Double.parseDouble(field(out, "MIN_ROUND_CPU_MS")));
                results.get(c.getKey()).outputs.add(out);
            }
        }

        double base = results.get("no agent").median();
        double cpuBase = results.get("no agent").cpuMedian();
        double minBase = results.get("no agent").cpuMin();
        System.out.println("| configuration | round, main thread CPU (ms) | vs no agent | fastest round, CPU (ms) | vs no "
                + "agent | round, wall (ms) | vs no agent |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (Map.Entry<String, Result> e : results.entrySet()) {
            double m = e.getValue().median();
            double c = e.getValue().cpuMedian();
            double f = e.getValue().cpuMin();
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.2fx (%+.1f%%) | %.1f | %.2fx (%+.1f%%) | %.1f | %.2fx (%+.1f%%) |%n",
                    e.getKey(), c, c / cpuBase, (c / cpuBase - 1) * 100, f, f / minBase, (f / minBase - 1) * 100,
                    m, m / base, (m / base - 1) * 100);
        }

        System.out.println();
        for (Map.Entry<String, Result> e : results.entrySet()) {
            System.out.println(e.getKey() + ": per-JVM median round CPU ms " + e.getValue().cpuMedians
                    + ", fastest " + e.getValue().cpuMins);
        }

        // Accuracy, from the last repetition.
        // Truth: ThreadMXBean in the JVM without an agent (the loop is deterministic; with the agent ThreadMXBean
        // would also count memscope's own per-sample allocations).
        long truth = Long.parseLong(field(last(results.get("no agent").outputs), "THREAD_ALLOCATED_BYTES"));
        if (results.containsKey("memscope sample")) {
            long estimated = reportTotal(work.resolve("s"), "allocatedBytes");
            System.out.printf(Locale.ROOT, "%nsample mode (sampler %s): estimated %d bytes, ThreadMXBean (no agent) %d "
                    + "bytes: error %+.2f%%%n", reportMetadata(work.resolve("s"), "sampler"), estimated, truth,
                    (estimated - (double) truth) / truth * 100);
        }
        // The whole JVM: memscope's estimate covers every thread from the agent's start to the end, the rounds'
        // count above only the main thread's measured rounds (not its start-up, not the other threads).
        long wholeTruth = Long.parseLong(field(last(results.get("no agent").outputs), "ALL_THREADS_ALLOCATED_BYTES"));
        for (String[] c : new String[][] {{"memscope sample", "s"}, {"memscope sample bytecode", "sb"}}) {
            if (results.containsKey(c[0])) {
                long estimated = reportTotal(work.resolve(c[1]), "allocatedBytes");
                System.out.printf(Locale.ROOT, "%s, whole JVM: estimated %d bytes, ThreadMXBean all live threads (no "
                        + "agent) %d bytes: error %+.2f%%%n", c[0], estimated, wholeTruth,
                        (estimated - (double) wholeTruth) / wholeTruth * 100);
            }
        }
        if (results.containsKey("memscope sample bytecode")) {
            long estimated = reportTotal(work.resolve("sb"), "allocatedBytes");
            System.out.printf(Locale.ROOT, "sample mode (sampler %s): estimated %d bytes: error %+.2f%%%n",
                    reportMetadata(work.resolve("sb"), "sampler"), estimated, (estimated - (double) truth) / truth * 100);
        }
        if (results.containsKey("memscope sample includeJdk")) {
            long withJdk = reportTotal(work.resolve("sj"), "allocatedBytes");
            System.out.printf(Locale.ROOT, "sample mode includeJdk: estimated %d bytes: error %+.2f%%%n",
                    withJdk, (withJdk - (double) truth) / truth * 100);
        }
        if (results.containsKey("memscope exact")) {
            exactAccuracy(results, work);
        }
        for (Map.Entry<String, Result> e : results.entrySet()) {
            String checksum = field(last(e.getValue().outputs), "CHECKSUM");
            String sampled = e.getKey().equals("allocation-instrumenter")
                    ? ", sampler saw " + field(last(e.getValue().outputs), "SAMPLER_COUNT") + " allocations" : "";
            System.out.println(e.getKey() + ": checksum " + checksum + sampled);
        }
    }

    private static void exactAccuracy(Map<String, Result> results, Path work) throws Exception {
        String exactOut = last(results.get("memscope exact").outputs);
        long allocations = Long.parseLong(field(exactOut, "ALLOCATIONS"));
        long counted = reportTotal(work.resolve("e"), "allocatedObjects");
        if (allocations >= 0) {
            System.out.printf(Locale.ROOT, "exact mode: counted %d allocations, workload made %d in its loop (the "
                    + "rest are its start-up and printing)%n", counted, allocations);
        } else {
            System.out.printf(Locale.ROOT, "exact mode: counted %d allocations (the workload does not count its "
                    + "own: most happen inside the library)%n", counted);
        }
    }

    private static String last(List<String> l) {
        return l.get(l.size() - 1);
    }

    private static String field(String out, String name) {
        Matcher m = Pattern.compile("^" + name + " (\\S+)$", Pattern.MULTILINE).matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("no " + name + " in output:\n" + out);
        }
        return m.group(1);
    }

    /** @return a totals field of the newest report.json under dir */
    /** @return a string metadata value of the newest report under dir, or "?" */
    private static String reportMetadata(Path dir, String key) throws IOException {
        String json = Files.readString(newestReport(dir));
        Matcher m = Pattern.compile("\"" + key + "\": \"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : "?";
    }

    private static long reportTotal(Path dir, String key) throws IOException {
        String json = Files.readString(newestReport(dir));
        Matcher m = Pattern.compile("\"" + key + "\": (\\d+)").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + key + " in " + dir);
        }
        return Long.parseLong(m.group(1));
    }

    private static Path newestReport(Path dir) throws IOException {
        Path newest = null;
        try (var s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.filter(f -> f.getFileName().toString().equals("report.json"))::iterator) {
                if (newest == null || Files.getLastModifiedTime(p).compareTo(Files.getLastModifiedTime(newest)) > 0) {
                    newest = p;
                }
            }
        }
        return newest;
    }

    private static Path extract(Path jar, String entry, Path to) throws IOException {
        if (!Files.exists(jar)) {
            return null;
        }
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
