package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import memscope.fixtures.AccuracyFixture;
import memscope.fixtures.ExactFixture;
import memscope.fixtures.NativeFixture;
import memscope.fixtures.ThreadsFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What the agent captures, checked against known workloads in real JVMs. */
class AgentCaptureTest {
    private static final String SRC = "memscope/fixtures/";

    static List<String> javas() {
        return Jvms.javas();
    }

    private static Map<String, Object> entry(Object report, String list, String site) {
        for (Map<String, Object> e : Json.list(report, list.split("\\."))) {
            if (site.equals(e.get("site"))) {
                return e;
            }
        }
        throw new AssertionError(site + " not in " + list + ": " + Jvms.sites(report, list.split("\\.")));
    }

    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void nativeLeaksReallocationsAndADoubleFree(String java, @TempDir Path out) throws Exception {
        int code = Jvms.memscopeRun(out, List.of(), List.of(java, "-cp", Jvms.classPath(NativeFixture.class),
                NativeFixture.class.getName()));
        assertThat(code).as("the double free was stopped, the JVM survived").isZero();
        Object report = Jvms.report(out);
        Map<String, Object> nat = Json.obj(report, "native");
        assertThat(Json.num(nat, "outstandingBytes")).isEqualTo(4096 + 30000);
        assertThat(Json.num(nat, "outstandingBlocks")).isEqualTo(2);
        String a = "memscope.fixtures.NativeFixture.main(NativeFixture.java:"
                + Jvms.lineOf(SRC + "NativeFixture.java", "LEAK-A") + ")";
        String c = "memscope.fixtures.NativeFixture.main(NativeFixture.java:"
                + Jvms.lineOf(SRC + "NativeFixture.java", "LEAK-C") + ")";
        assertThat(Jvms.sites(report, "native", "leaks")).containsExactly(c, a);
        assertThat(Json.num(entry(report, "native.leaks", a), "bytes")).isEqualTo(4096);
        assertThat(entry(report, "native.leaks", a).get("type")).isEqualTo("native:unsafe");
        assertThat((List<?>) entry(report, "native.leaks", a).get("stack")).isNotEmpty();
        List<Map<String, Object>> anomalies = Json.list(report, "native", "anomalies");
        assertThat(anomalies).hasSize(1);
        assertThat(anomalies.get(0).get("kind")).isEqualTo("double-free");
        assertThat(anomalies.get(0).get("stack").toString()).contains("NativeFixture.java:"
                + Jvms.lineOf(SRC + "NativeFixture.java", "DOUBLE-FREE"));
    }

    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void exactModeCountsEveryAllocation(String java, @TempDir Path out) throws Exception {
        int code = Jvms.memscopeRun(out, List.of("--mode", "exact"), List.of(java, "-cp",
                Jvms.classPath(ExactFixture.class), ExactFixture.class.getName()));
        assertThat(code).isZero();
        Object report = Jvms.report(out);
        assertThat(Json.obj(report, "totals").get("exact")).isEqualTo(true);
        String prefix = "memscope.fixtures.ExactFixture.main(ExactFixture.java:";
        Map<String, Object> ints = entry(report, "topAllocationSites",
                prefix + Jvms.lineOf(SRC + "ExactFixture.java", "INT-SITE") + ")");
        assertThat(Json.num(ints, "count")).isEqualTo(1000);
        assertThat(Json.num(ints, "bytes")).isEqualTo(1000L * 56); // 16-byte header + 10 ints, 8-aligned
        assertThat(ints.get("type")).isEqualTo("int[]");
        Map<String, Object> sbs = entry(report, "topAllocationSites",
                prefix + Jvms.lineOf(SRC + "ExactFixture.java", "OBJ-SITE") + ")");
        assertThat(Json.num(sbs, "count")).isEqualTo(500);
        assertThat(sbs.get("type")).isEqualTo("java.lang.StringBuilder");
        assertThat(Json.num(sbs, "bytes") % 500).isZero();
        Map<String, Object> multi = entry(report, "topAllocationSites",
                prefix + Jvms.lineOf(SRC + "ExactFixture.java", "MULTI-SITE") + ")");
        assertThat(Json.num(multi, "count")).isEqualTo(300);
        // long[2][3]: an outer array of 2 references and two long[3]
        assertThat(Json.num(multi, "bytes")).isEqualTo(300L * (24 + 2 * 40));
        assertThat(multi.get("type")).isEqualTo("long[][]");
    }

    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void exactCountsOverManyShortLivedThreads(String java, @TempDir Path out) throws Exception {
        int code = Jvms.memscopeRun(out, List.of("--mode", "exact"), List.of(java, "-cp",
                Jvms.classPath(ThreadsFixture.class), ThreadsFixture.class.getName()));
        assertThat(code).isZero();
        Map<String, Object> site = entry(Jvms.report(out), "topAllocationSites",
                "memscope.fixtures.ThreadsFixture.work(ThreadsFixture.java:"
                        + Jvms.lineOf(SRC + "ThreadsFixture.java", "THREADS-SITE") + ")");
        assertThat(Json.num(site, "count")).isEqualTo(200_000);
        assertThat(Json.num(site, "bytes")).isEqualTo(200_000L * 56);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sampledTotalIsWithinFivePercentOfThreadMxBean(@TempDir Path out) throws Exception {
        // The truth: ThreadMXBean's exact count of the same deterministic loop in a JVM without the agent (with the
        // agent, ThreadMXBean would also count memscope's own allocations for each sample: stack walks, references).
        Path exact = out.resolve("exact.txt");
        Process plain = new ProcessBuilder(Jvms.current(), "-cp", Jvms.classPath(AccuracyFixture.class),
                AccuracyFixture.class.getName(), exact.toString()).inheritIO().start();
        assertThat(plain.waitFor()).isZero();
        long truth = Long.parseLong(Files.readString(exact).trim());

        Path reports = out.resolve("reports");
        int code = Jvms.memscopeRun(reports, List.of("--interval", "64k"), List.of(Jvms.current(), "-cp",
                Jvms.classPath(AccuracyFixture.class), AccuracyFixture.class.getName(),
                out.resolve("traced.txt").toString()));
        assertThat(code).isZero();
        Object report = Jvms.report(reports);
        long estimated = Json.num(Json.obj(report, "totals"), "allocatedBytes");
        assertThat((double) estimated).isCloseTo(truth, org.assertj.core.data.Percentage.withPercentage(5));
    }

    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void noClassDataSharingWarningAndTheHookClassLivesInJavaBase(String java, @TempDir Path out) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(java, "-Xshare:auto",
                "-javaagent:" + System.getProperty("memscope.agent.jar") + "=mode=exact,out=" + out,
                "-cp", Jvms.classPath(ExactFixture.class), ExactFixture.class.getName());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(output).isZero();
        assertThat(output).doesNotContain("Sharing is only supported").doesNotContain("bootstrap classpath")
                .contains("memscope agent: recording closed");
        Object report = Jvms.reportFromRecording(out);
        String prefix = "memscope.fixtures.ExactFixture.main(ExactFixture.java:";
        assertThat(Json.num(entry(report, "topAllocationSites",
                prefix + Jvms.lineOf(SRC + "ExactFixture.java", "INT-SITE") + ")"), "count")).isEqualTo(1000);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void invalidAgentOptionLeavesTheApplicationRunningWithTrackingOff(@TempDir Path out) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Jvms.current(),
                "-javaagent:" + System.getProperty("memscope.agent.jar") + "=interval=abc,out=" + out,
                "-cp", Jvms.classPath(ExactFixture.class), ExactFixture.class.getName());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).isZero();
        assertThat(output).contains("memscope agent: invalid value 'abc' for option 'interval'")
                .contains("Tracking is OFF");
        assertThat(out).isEmptyDirectory();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void strictInvalidAgentOptionStopsTheJvm(@TempDir Path out) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Jvms.current(),
                "-javaagent:" + System.getProperty("memscope.agent.jar") + "=interval=abc,strict=true",
                "-cp", Jvms.classPath(ExactFixture.class), ExactFixture.class.getName());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).isNotZero();
    }
}
