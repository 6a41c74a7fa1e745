package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.ClassLoadingFixture;
import memscope.fixtures.JdkAllocationFixture;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Sample mode on the JVM's own allocation sampler (JVMTI SampledObjectAlloc), against the bytecode sampler. */
class JvmtiSamplerTest {
    private static final String SRC = "memscope/fixtures/JdkAllocationFixture.java";
    private static final String PREFIX = "memscope.fixtures.JdkAllocationFixture.main(JdkAllocationFixture.java:";

    static List<String> javas() {
        return Jvms.javas();
    }

    private static long run(String java, Path out, List<String> options) throws Exception {
        Path truth = out.resolve("threadmxbean.txt");
        int code = Jvms.memscopeRun(out.resolve("reports"), options, List.of(java, "-Xmx512m", "-cp",
                Jvms.classPath(JdkAllocationFixture.class), JdkAllocationFixture.class.getName(), truth.toString()));
        assertThat(code).isZero();
        return Long.parseLong(Files.readString(truth).trim());
    }

    private static Map<String, Object> site(Object report, String site, String type) {
        for (Map<String, Object> e : Json.list(report, "topAllocationSites")) {
            if (site.equals(e.get("site")) && type.equals(e.get("type"))) {
                return e;
            }
        }
        throw new AssertionError(site + " [" + type + "] not in " + Jvms.sites(report, "topAllocationSites"));
    }

    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void totalsIncludeAllocationsInsideTheJdkAndSitesNameTheApplicationLine(String java, @TempDir Path out)
            throws Exception {
        long truth = run(java, out, List.of());
        Object report = Jvms.report(out.resolve("reports"));
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(meta.get("sampler")).as("default sampler=auto on Linux x86_64").isEqualTo("jvmti");
        assertThat(meta).doesNotContainKey("samplerFallback");
        long estimated = Json.num(Json.obj(report, "totals"), "allocatedBytes");
        System.out.printf("jvmti sampler on %s: estimated %d bytes, ThreadMXBean %d bytes, error %+.2f%%%n", java,
                estimated, truth, (estimated - (double) truth) / truth * 100);
        assertThat((double) estimated).as("estimate vs the thread's ThreadMXBean count %d", truth)
                .isCloseTo(truth, Percentage.withPercentage(10));
        // Integer.valueOf, ArrayList.grow, HashMap.resize and putVal, Formatter: all inside the JDK, all named after
        // the fixture's line that called them.
        site(report, PREFIX + Jvms.lineOf(SRC, "BOXING-SITE") + ")", "java.lang.Integer");
        site(report, PREFIX + Jvms.lineOf(SRC, "BOXING-SITE") + ")", "java.lang.Object[]");
        site(report, PREFIX + Jvms.lineOf(SRC, "MAP-SITE") + ")", "java.util.HashMap$Node");
        Map<String, Object> boxing = site(report, PREFIX + Jvms.lineOf(SRC, "BOXING-SITE") + ")", "java.lang.Integer");
        assertThat(boxing.get("stack").toString()).as("the stack starts inside the JDK")
                .startsWith("[java.lang.Integer.valueOf(Integer.java:");
        for (Map<String, Object> e : Json.list(report, "topAllocationSites").subList(0, 3)) {
            assertThat(e.get("site").toString()).startsWith(PREFIX);
        }
        assertThat(Json.num(Json.obj(report, "failures"), "count")).isZero();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void bytecodeSamplerStillWorksAndMissesTheJdksAllocations(@TempDir Path out) throws Exception {
        long truth = run(Jvms.current(), out, List.of("--sampler", "bytecode"));
        Object report = Jvms.report(out.resolve("reports"));
        assertThat(Json.obj(report, "metadata").get("sampler")).isEqualTo("bytecode");
        long estimated = Json.num(Json.obj(report, "totals"), "allocatedBytes");
        // Only `new ArrayList`, `new HashMap`, `new StringBuilder` and the formatted strings' sites are hooked.
        assertThat(estimated).isLessThan(truth / 2);
        assertThat(Jvms.sites(report, "topAllocationSites")).doesNotContain(
                PREFIX + Jvms.lineOf(SRC, "MAP-SITE") + ")");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fallsBackToTheBytecodeSamplerWithTheReasonInTheReport(@TempDir Path out) throws Exception {
        // The JVM's sampling interval is a 32-bit int: 4 GiB cannot be set, so the agent uses its own hooks.
        int code = Jvms.memscopeRun(out, List.of("--interval", "4g"), List.of(Jvms.current(), "-cp",
                Jvms.classPath(JdkAllocationFixture.class), "memscope.fixtures.AccuracyFixture",
                out.resolve("x.txt").toString()));
        assertThat(code).isZero();
        Map<String, Object> meta = Json.obj(Jvms.report(out), "metadata");
        assertThat(meta.get("sampler")).isEqualTo("bytecode");
        assertThat(meta.get("samplerFallback").toString()).contains("4294967296").contains("limit");
    }

    /**
     * include/exclude select the JVM sampler's samples by their site class, as they select the instrumented classes
     * of the bytecode sampler: the fixture's allocations all have fixture sites.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void includeAndExcludeSelectSamplesBySiteClass(@TempDir Path out) throws Exception {
        long truth = run(Jvms.current(), out.resolve("in"), List.of("--include", "memscope.fixtures"));
        Object included = Jvms.report(out.resolve("in").resolve("reports"));
        assertThat(Json.obj(included, "metadata").get("sampler")).isEqualTo("jvmti");
        assertThat(Jvms.sites(included, "topAllocationSites")).isNotEmpty().allMatch(s -> s.startsWith(PREFIX));
        assertThat((double) Json.num(Json.obj(included, "totals"), "allocatedBytes"))
                .isCloseTo(truth, Percentage.withPercentage(10));

        run(Jvms.current(), out.resolve("ex"), List.of("--exclude", "memscope.fixtures"));
        Object excluded = Jvms.report(out.resolve("ex").resolve("reports"));
        assertThat(Jvms.sites(excluded, "topAllocationSites")).noneMatch(s -> s.startsWith("memscope.fixtures."));
        assertThat(Json.num(Json.obj(excluded, "totals"), "allocatedBytes")).isLessThan(truth / 10);
    }

    /**
     * With an interval of 1 byte the JVM samples every allocation, including the {@code java.lang.Class} mirrors it
     * allocates while it loads a class: the callback queues them like any other sample (no Java code runs in it), and
     * nothing else on the sample path fails (threads sampled while the JVM constructs their Thread object).
     */
    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyAllocationSampledWithoutHarm(String java, @TempDir Path out) throws Exception {
        int code = Jvms.memscopeRun(out, List.of("--interval", "1"), List.of(java, "-cp",
                Jvms.classPath(JdkAllocationFixture.class), "memscope.fixtures.NativeFixture"));
        assertThat(code).as("the double free was stopped, the JVM survived").isZero();
        Object report = Jvms.report(out);
        assertThat(Json.obj(report, "metadata").get("sampler")).isEqualTo("jvmti");
        // a small program: the JVM samples thousands of allocations after the sampler starts, in the JVM's and the
        // agent's start-up and on memscope's drain thread (counted, not queued), whose share depends on how often it
        // gets a core: 16 000 to 190 000 on a machine at load 5, 7 670 once at load 10 (JDK 25); how many of the
        // program's fit the queue between two drains depends on that too (a few hundred on a quiet machine, none on
        // a loaded one): every sample is accounted for
        Map<String, Object> meta = Json.obj(report, "metadata");
        long seen = Jvms.metadataCount(meta, "jvmti.samples");
        assertThat(seen).isGreaterThan(5_000);
        assertThat(Json.num(Json.obj(report, "totals"), "samples")).isEqualTo(Jvms.metadataCount(meta, "jvmti.samplesKept"));
        assertThat(Jvms.metadataCount(meta, "jvmti.samplesKept") + Jvms.metadataCount(meta, "jvmti.ownAllocations")
                + Jvms.metadataCount(meta, "jvmti.filtered") + Jvms.metadataCount(meta, "jvmti.unresolvedStacks")
                + Jvms.metadataCount(meta, "jvmti.classMirrors") + Jvms.metadataCount(meta, "jvmti.jmxConnector")
                + Jvms.metadataCount(meta, "jvmti.droppedQueueFull") + Jvms.metadataCount(meta, "jvmti.skippedExceptionPending")
                + Jvms.metadataCount(meta, "jvmti.skippedError")
                + Jvms.metadataCount(meta, "jvmti.samplesThinned")).as("kept, memscope's own, filtered, dropped or thinned: " + meta)
                .isEqualTo(seen);
        assertThat(Json.num(Json.obj(report, "failures"), "count")).isZero();
        assertThat(Json.list(report, "native", "anomalies")).hasSize(1);
        // the JVM's class mirrors, sampled while classes load, are left out and counted (docs/agent.md)
        assertThat(Jvms.metadataCount(meta, "jvmti.classMirrors")).isPositive();
        for (String list : List.of("topAllocationSites", "topLiveSites", "leakSuspects", "temporaries")) {
            assertThat(Json.list(report, list)).extracting(e -> e.get("type")).doesNotContain("java.lang.Class");
        }
        Path folded = out.resolve("all.txt");
        assertThat(Main.execute("export", Reports.recordingDirs(out).get(0).toString(), "--format", "collapsed",
                "-o", folded.toString())).isZero();
        assertThat(Files.readString(folded)).as("no stack of any site allocates a java.lang.Class")
                .doesNotContain(";java.lang.Class ");
    }

    /**
     * Every allocation sampled (interval 1 byte) while several threads load and initialize a few thousand JDK
     * classes, define hidden classes, proxies and lambdas: the application loads exactly the classes it loads without
     * the agent (a class-loading circularity caused by code run inside the sampling callback would make some fail,
     * for good) and finishes; the samples that did not fit the queue are counted, not lost silently.
     */
    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyAllocationSampledDuringHeavyClassLoading(String java, @TempDir Path out) throws Exception {
        String cp = Jvms.classPath(JdkAllocationFixture.class);
        // A low metaspace threshold: collections for metadata, whose GC markers HotSpot nests (two starts before the
        // first finish), happen while the sampler runs; the sampler must take them as one pause.
        String metaspace = "-XX:MetaspaceSize=6m";
        Path plainCount = out.resolve("plain.txt");
        Process plain = new ProcessBuilder(java, metaspace, "-cp", cp, ClassLoadingFixture.class.getName(),
                plainCount.toString()).inheritIO().start();
        assertThat(plain.waitFor()).isZero();
        Path sampledCount = out.resolve("sampled.txt");
        Path gcLog = out.resolve("gc.log");
        int code = Jvms.memscopeRun(out.resolve("reports"), List.of("--interval", "1"), List.of(java, metaspace,
                "-Xlog:gc:file=" + gcLog, "-cp", cp, ClassLoadingFixture.class.getName(), sampledCount.toString()));
        assertThat(code).isZero();
        assertThat(Files.readString(gcLog)).as("collections for metadata happened").contains("Metadata GC Threshold");
        assertThat(Files.readString(sampledCount)).as("classes loaded under the agent")
                .isEqualTo(Files.readString(plainCount));
        Object report = Jvms.report(out.resolve("reports"));
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(meta.get("sampler")).isEqualTo("jvmti");
        assertThat(Json.num(Json.obj(report, "failures"), "count")).isZero();
        long seen = Jvms.metadataCount(meta, "jvmti.samples");
        assertThat(seen).isGreaterThan(100_000);
        assertThat(Jvms.metadataCount(meta, "jvmti.samplesKept") + Jvms.metadataCount(meta, "jvmti.ownAllocations")
                + Jvms.metadataCount(meta, "jvmti.filtered") + Jvms.metadataCount(meta, "jvmti.unresolvedStacks")
                + Jvms.metadataCount(meta, "jvmti.classMirrors") + Jvms.metadataCount(meta, "jvmti.jmxConnector")
                + Jvms.metadataCount(meta, "jvmti.droppedQueueFull") + Jvms.metadataCount(meta, "jvmti.skippedExceptionPending")
                + Jvms.metadataCount(meta, "jvmti.skippedError")
                + Jvms.metadataCount(meta, "jvmti.samplesThinned"))
                .as("every sample is kept, memscope's own, filtered out, thinned, or dropped and counted: " + meta)
                .isEqualTo(seen);
        assertThat(Jvms.sites(report, "topAllocationSites")).isNotEmpty();
    }
}
