package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.ExactCoverageFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact mode counts allocations made by instrumented code, not those inside the JDK: every exact-mode report says
 * which code is counted and what share of the JVM's own allocated bytes that is.
 */
class ExactCoverageTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anExactModeReportStatesItsCoverageOfTheJvmsAllocations(@TempDir Path out) throws Exception {
        int code = Jvms.memscopeRun(out, List.of("--mode", "exact"), List.of(Jvms.current(), "-cp",
                Jvms.classPath(ExactCoverageFixture.class), ExactCoverageFixture.class.getName()));
        assertThat(code).isZero();
        Object report = Jvms.report(out);
        Map<String, Object> totals = Json.obj(report, "totals");
        assertThat(totals.get("exact")).isEqualTo(true);
        Map<String, Object> coverage = Json.obj(totals, "exactCoverage");
        long counted = Json.num(coverage, "countedBytes");
        long jvm = Json.num(coverage, "jvmAllocatedBytes");
        assertThat(counted).isEqualTo(Json.num(totals, "allocatedBytes"));
        assertThat(counted).as("the application's own 32 MiB").isGreaterThanOrEqualTo(32L << 20);
        assertThat(jvm).as("the JDK's allocations on its behalf too").isGreaterThan(counted + (32L << 20));
        double share = ((Number) coverage.get("share")).doubleValue();
        assertThat(share).isCloseTo((double) counted / jvm, org.assertj.core.data.Offset.offset(0.001))
                .isBetween(0.05, 0.7);
        assertThat(coverage.get("jvmCount")).isIn("all threads", "threads alive at the end");
        assertThat((String) coverage.get("counted")).contains("instrumented").contains("JDK");

        String summary = Files.readString(Reports.recordingDirs(out).get(0).resolve("summary.txt"));
        assertThat(summary).contains("exact mode counted").contains("the JVM allocated")
                .contains(Math.round(share * 100) + "%").contains("not counted");
    }
}
