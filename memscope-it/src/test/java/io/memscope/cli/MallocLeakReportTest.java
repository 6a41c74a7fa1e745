package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.InflaterGrowthFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report side of malloc sampling, end to end: under {@code memscope run --malloc}, inflaters kept and never
 * ended are a {@code native:malloc} leak suspect at the line that created them, with zlib's native frames
 * ({@code nativeFrames}), in report.json's {@code native.leakSuspects} and the summary; inflaters ended at once are
 * not a suspect; {@code native.malloc} states the sampling. Linux x86_64 with glibc (the malloc sampler's platform);
 * every JDK of the matrix.
 */
class MallocLeakReportTest {
    private static final String SRC = "memscope/fixtures/InflaterGrowthFixture.java";
    private static final String FIXTURE = InflaterGrowthFixture.class.getName();

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void keptInflatersAreAMallocLeakSuspectAtTheirLine(@TempDir Path out) throws Exception {
        assumeThat(System.getProperty("os.arch")).as("the malloc sampler is Linux x86_64").isIn("amd64", "x86_64");
        String leak = FIXTURE + ".main(InflaterGrowthFixture.java:" + Jvms.lineOf(SRC, "// LEAK") + ")";
        String ended = FIXTURE + ".main(InflaterGrowthFixture.java:" + Jvms.lineOf(SRC, "// ENDED") + ")";
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            int code = Jvms.memscopeRun(dir, List.of("--malloc", "--malloc-interval", "64k"),
                    List.of(java, "-cp", Jvms.classPath(InflaterGrowthFixture.class), FIXTURE, "100"));
            assertThat(code).as(java).isZero();
            Object report = Jvms.report(dir);
            Map<String, Object> malloc = Json.obj(report, "native", "malloc");
            assertThat(malloc).as(java + ": native.malloc").isNotNull();
            assertThat(Json.num(malloc, "intervalBytes")).isEqualTo(64L * 1024);
            assertThat(Json.num(malloc, "samples")).isPositive();
            assertThat(Json.obj(malloc, "coverage").get("selfTest")).as(java).isEqualTo("passed");

            assertThat(Jvms.sites(report, "native", "leakSuspects")).as(java).contains(leak).doesNotContain(ended);
            Map<String, Object> suspect = Json.list(report, "native", "leakSuspects").stream()
                    .filter(e -> e.get("site").equals(leak)).findFirst().orElseThrow();
            assertThat(suspect.get("type")).isEqualTo("native:malloc");
            assertThat(Json.num(suspect, "liveSamples")).isPositive();
            @SuppressWarnings("unchecked")
            List<String> nativeFrames = (List<String>) suspect.get("nativeFrames");
            assertThat(nativeFrames).as(java + ": zlib's frames").isNotEmpty()
                    .anyMatch(f -> f.contains("libz") || f.contains("libzip"));
            // 1,000 inflaters kept, each with zlib's inflate state (about 7 KiB): the estimate is at least 4 KiB each
            assertThat(Json.num(suspect, "liveBytes")).as(java).isGreaterThan(1000L * 4 * 1024);

            String summary = Files.readString(Jvms.summaryFile(dir));
            // the native list's line of the site (the malloc line names it too, as where most was at the RSS peak)
            assertThat(summary.lines().filter(l -> l.contains(leak) && l.contains("[native:malloc]")).findFirst()
                    .orElseThrow()).contains("LEAK SUSPECT");
            assertThat(summary.lines().filter(l -> l.contains(ended) && l.contains("[native:malloc]")))
                    .allSatisfy(l -> assertThat(l).doesNotContain("LEAK SUSPECT"));
            assertThat(summary).contains("malloc (sampled, mean interval ");
        }
    }
}
