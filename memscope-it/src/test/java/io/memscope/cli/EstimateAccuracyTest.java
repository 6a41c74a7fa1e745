package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.SizeClassFixture;
import memscope.fixtures.ThreadChurnFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JVM sampler's estimates against exact counts, end to end (`memscope run`, report.json): per allocation site,
 * allocated and held bytes within 10% in every size class from 16 B to 4 MiB, and with thousands of short-lived
 * platform or virtual threads.
 *
 * <p>Platform. Linux x86_64, the JVM sampler's platform (elsewhere the class is skipped, saying why; on Linux x86_64
 * every case asserts that the JVM sampler ran). Two JDKs, because they sample differently: JDK 17
 * ({@code /usr/lib/jvm/java-17-openjdk-amd64}) stands for JDK 24 and older, whose byte accounting memscope corrects
 * by oversampling (its cases assert that samples were thinned); the build's JDK (25: it samples right, nothing is
 * thinned; a JDK 21 to 24 there would be oversampled, and asserted so). A missing JDK 17 shows as skipped cases, not
 * as passes. Virtual threads need JDK 21: the build's JDK. Array sizes assume the JVM's default 16-byte array header
 * (compressed class pointers).
 *
 * <p>Precision. A sample of s bytes stands for 1/p of its kind, p = 1 - exp(-s/interval) (Horvitz-Thompson): for n
 * objects of one size the relative standard error of the estimate is sqrt((1 - p) / (n p)). Each case is sized so
 * that it is at most {@value #MAX_RSE} in every class (checked first), which puts the 10% bound at least four
 * standard errors away: a correct sampler fails a class about once in 16,000 (most classes are at 2% or less: once
 * in a million), a sampler biased by 10% half the time. (At three standard errors, forty classes per build failed a
 * correct sampler about once in a hundred builds: a JDK 17 class once came out at 3.8 standard errors.)
 *
 * <p>Not vacuous. Each case asserts that the correction it relies on ran (memscope drew the threads' distances, and
 * on JDK 17 samples were thinned), and {@link #theJvmsOwnSamplingPointsFailTheSizeClassCheck} shows that the
 * size-class stream fails the 10% bound without the correction.
 */
@EnabledOnOs(value = OS.LINUX, architectures = "amd64",
        disabledReason = "the JVM sampler (JVMTI library) is built for Linux x86_64 only")
class EstimateAccuracyTest {
    private static final double TOLERANCE = 0.10;
    private static final double MAX_RSE = 0.025;
    private static final String SIZE_SRC = "memscope/fixtures/SizeClassFixture.java";
    private static final String[] SIZE_MARKERS = {"SIZE-16B", "SIZE-64B", "SIZE-256B", "SIZE-1K", "SIZE-4K",
        "SIZE-16K", "SIZE-64K", "SIZE-256K", "SIZE-1M", "SIZE-4M"};
    private static final String[] SIZE_METHODS = {"bytes16", "bytes64", "bytes256", "bytes1k", "bytes4k",
        "bytes16k", "bytes64k", "bytes256k", "bytes1m", "bytes4m"};
    private static final String CHURN_SRC = "memscope/fixtures/ThreadChurnFixture.java";
    private static final int THREADS = 6000;
    private static final String CHURN_SITE = "memscope.fixtures.ThreadChurnFixture.";

    /** The build's JDK and JDK 17 (a case that {@link #assumeInstalled skips} when JDK 17 is not installed). */
    static List<String> javas() {
        return List.of(Jvms.current(), Jvms.JDK17.toString());
    }

    private static void assumeInstalled(String java) {
        assumeTrue(Files.isExecutable(Path.of(java)), java + " is not installed: the JDK 24-and-older case is not run");
    }

    private static boolean jdk17(String java) {
        return java.equals(Jvms.JDK17.toString());
    }

    /** One site's truth and estimate. */
    private record Row(String name, long size, long objects, boolean held, long estimated, long samples,
                       double interval) {
        long truth() {
            return objects * size;
        }

        double error() {
            return (estimated - (double) truth()) / truth();
        }

        /** The relative standard error of a Poisson-by-bytes (Horvitz-Thompson) estimate of these objects' bytes. */
        double rse() {
            double p = -Math.expm1(-size / interval);
            return Math.sqrt((1 - p) / (objects * p));
        }

        @Override
        public String toString() {
            return String.format("%-10s %-9s %,14d %,14d %+7.2f%% (rse %.1f%%, %d samples)", name,
                    held ? "held" : "allocated", truth(), estimated, error() * 100, rse() * 100, samples);
        }
    }

    /**
     * Every size class at the default interval (512 KiB), interleaved on two threads: 1.25 GiB per class, about 2,600
     * samples per class of objects smaller than the interval, every object of 4 MiB.
     */
    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void allocatedBytesPerSizeClass(String java, @TempDir Path out) throws Exception {
        assumeInstalled(java);
        Object report = runSizeClasses(java, out, 1280L << 20, false, List.of());
        assertCorrected(java, Json.obj(report, "metadata"), 512 * 1024);
        check(java, sizeRows(report, out, false, 512 * 1024));
    }

    /**
     * Every size class kept until a full collection at the end, interval 16 KiB (so that 40 MiB per class, 400 MiB of
     * heap, give about 2,600 samples per small class): held and allocated bytes per class. Held at that collection
     * (the report's peak: {@code heldAtPeakBytes}); the end check, after main returned, finds them unreachable.
     */
    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void heldBytesPerSizeClass(String java, @TempDir Path out) throws Exception {
        assumeInstalled(java);
        Object report = runSizeClasses(java, out, 40L << 20, true, List.of("--interval", "16k"));
        assertCorrected(java, Json.obj(report, "metadata"), 16 * 1024);
        List<Row> rows = new ArrayList<>(sizeRows(report, out, true, 16 * 1024));
        rows.addAll(sizeRows(report, out, false, 16 * 1024));
        check(java, rows);
    }

    /** 6,000 platform threads, 8 at a time, each allocating 672 KiB at three sites, at the default interval. */
    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void shortLivedPlatformThreads(String java, @TempDir Path out) throws Exception {
        assumeInstalled(java);
        check(java, churn(java, out, "platform", 8));
    }

    /** The same with 6,000 virtual threads, 64 at a time (JDK 21 and later: the build's JDK 25). */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void shortLivedVirtualThreads(@TempDir Path out) throws Exception {
        check(Jvms.current(), churn(Jvms.current(), out, "virtual", 64));
    }

    /**
     * The control: the size-class stream with the JVM's own sampling points (JDK 17, {@code oversample=1,
     * jvmDistances=jvm}, as memscope sampled before its correction) puts the 256 KiB class more than 10% under its
     * exact count (-29% to -34% in five runs: docs/benchmarks.md, "Estimates against exact counts"; the standard
     * error there is 2.5%), so {@link #allocatedBytesPerSizeClass} fails without the correction. Should a JDK 17
     * update fix the JVM's accounting, this fails and says so.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theJvmsOwnSamplingPointsFailTheSizeClassCheck(@TempDir Path out) throws Exception {
        String java = Jvms.JDK17.toString();
        assumeInstalled(java);
        Object report = runSizeClasses(java, out, 640L << 20, false,
                List.of("--agent-option", "oversample=1", "--agent-option", "jvmDistances=jvm"));
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(meta.get("jvmti.jvmIntervalBytes")).isEqualTo("524288");
        assertThat(meta.get("jvmti.distances")).isEqualTo("jvm");
        assertThat(Jvms.metadataCount(meta, "jvmti.samplesThinned")).isZero();
        List<Row> rows = sizeRows(report, out, false, 512 * 1024);
        StringBuilder table = new StringBuilder("the JVM's own sampling points on " + java + ":\n");
        rows.forEach(r -> table.append("  ").append(r).append('\n'));
        System.out.print(table);
        Row large = rows.get(7);
        assertThat(large.name()).isEqualTo("SIZE-256K");
        assertThat(large.error()).as("the JVM's own sampling points under-estimate objects outside TLABs: " + large
                + " (if a JDK 17 update fixed the JVM's accounting, oversample=auto need not oversample it)\n" + table)
                .isLessThan(-TOLERANCE);
    }

    /**
     * The correction ran: memscope drew the threads' distances; on JDK 24 and older (17 here) the JVM was asked for
     * 16 times as many samples and some were thinned, on JDK 25 and newer none.
     */
    private static void assertCorrected(String java, Map<String, Object> meta, long interval) {
        assertThat(meta.get("jvmti.distances")).as("memscope drew the threads' distances: " + meta)
                .isEqualTo("memscope");
        assertThat(Jvms.metadataCount(meta, "jvmti.distancesDrawn")).isPositive();
        int feature = Runtime.Version.parse(meta.get("javaVersion").toString()).feature();
        assertThat(feature).as(java).isEqualTo(jdk17(java) ? 17 : Runtime.version().feature());
        boolean oversampled = feature <= 24;
        assertThat(meta.get("jvmti.jvmIntervalBytes")).as("oversampled 16 times on JDK 24 and older: " + meta)
                .isEqualTo(Long.toString(oversampled ? interval / 16 : interval));
        assertThat(Jvms.metadataCount(meta, "jvmti.samplesThinned") > 0).as("samples thinned: " + meta)
                .isEqualTo(oversampled);
    }

    private static Object runSizeClasses(String java, Path out, long bytesPerClass, boolean keep,
                                         List<String> options) throws Exception {
        Path counts = out.resolve("counts.txt");
        int code = Jvms.memscopeRun(out.resolve("reports"), options, List.of(java, "-Xmx1g", "-cp",
                Jvms.classPath(SizeClassFixture.class), SizeClassFixture.class.getName(),
                Long.toString(bytesPerClass), "2", Boolean.toString(keep), counts.toString()));
        assertThat(code).isZero();
        Object report = Jvms.report(out.resolve("reports"));
        assertThat(Json.obj(report, "metadata").get("sampler")).isEqualTo("jvmti");
        return report;
    }

    private static List<Row> sizeRows(Object report, Path out, boolean held, double interval) throws Exception {
        List<String> counts = Files.readAllLines(out.resolve("counts.txt"));
        List<Row> rows = new ArrayList<>();
        for (int c = 0; c < SIZE_MARKERS.length; c++) {
            String[] f = counts.get(c).split(" ");
            long size = Long.parseLong(f[0]);
            long objects = Long.parseLong(f[held ? 2 : 1]);
            String site = "memscope.fixtures.SizeClassFixture." + SIZE_METHODS[c] + "(SizeClassFixture.java:"
                    + Jvms.lineOf(SIZE_SRC, SIZE_MARKERS[c]) + ")";
            Map<String, Object> e = site(report, site);
            rows.add(new Row(SIZE_MARKERS[c], size, objects, held,
                    Json.num(e, held ? "heldAtPeakBytes" : "allocatedBytes"), Json.num(e, "samples"), interval));
        }
        return rows;
    }

    private static List<Row> churn(String java, Path out, String kind, int atOnce) throws Exception {
        Path counts = out.resolve("counts.txt");
        int code = Jvms.memscopeRun(out.resolve("reports"), List.of(), List.of(java, "-cp",
                Jvms.classPath(ThreadChurnFixture.class), ThreadChurnFixture.class.getName(), Integer.toString(THREADS),
                Integer.toString(atOnce), kind, counts.toString()));
        assertThat(code).isZero();
        Object report = Jvms.report(out.resolve("reports"));
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(meta.get("sampler")).isEqualTo("jvmti");
        assertCorrected(java, meta, 512 * 1024);
        long samples = Jvms.metadataCount(meta, "jvmti.samples");
        long drawn = Jvms.metadataCount(meta, "jvmti.distancesDrawn");
        if (kind.equals("platform")) {
            // one draw at each thread's start (ThreadStart), one after each of the JVM's samples
            assertThat(drawn - samples).as("memscope drew the first distance of (nearly) every thread: " + meta)
                    .isGreaterThanOrEqualTo(THREADS * 95 / 100);
        } else {
            // virtual threads sample on their carriers' distances: one draw after each of the JVM's samples
            assertThat(drawn).as("memscope drew the distance after (nearly) every sample: " + meta)
                    .isGreaterThanOrEqualTo(samples * 95 / 100);
        }
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(counts)) {
            String[] f = line.split(" ");
            Map<String, Object> e = site(report, CHURN_SITE + f[0] + "(ThreadChurnFixture.java:"
                    + Jvms.lineOf(CHURN_SRC, "// CHURN-" + f[0]) + ")");
            rows.add(new Row(f[0], Long.parseLong(f[2]), Long.parseLong(f[1]), false,
                    Json.num(e, "allocatedBytes"), Json.num(e, "samples"), 512 * 1024));
        }
        return rows;
    }

    private static Map<String, Object> site(Object report, String site) {
        for (Map<String, Object> e : Json.list(report, "topAllocationSites")) {
            if (site.equals(e.get("site")) && "byte[]".equals(e.get("type"))) {
                return e;
            }
        }
        throw new AssertionError(site + " not in " + Jvms.sites(report, "topAllocationSites"));
    }

    private static void check(String java, List<Row> rows) {
        StringBuilder table = new StringBuilder("estimates on " + java + ":\n");
        rows.forEach(r -> table.append("  ").append(r).append('\n'));
        System.out.print(table);
        for (Row r : rows) {
            assertThat(r.rse()).as("the case is sized for the tolerance: " + r).isLessThanOrEqualTo(MAX_RSE);
        }
        for (Row r : rows) {
            assertThat(Math.abs(r.error())).as(r + "\n" + table).isLessThanOrEqualTo(TOLERANCE);
        }
    }
}
