package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import io.memscope.recording.RecordingReader;
import memscope.fixtures.ExactKilledFixture;
import memscope.fixtures.KilledFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recording is the one contract between the application's JVM and the analysis: the agent only writes it, the
 * CLI builds every report in its own process, also for a JVM that died without closing its recording.
 */
class AnalysisOutOfProcessTest {

    @Test
    void theAgentJarHoldsNoAnalysisClass() throws Exception {
        try (JarFile jar = new JarFile(System.getProperty("memscope.agent.jar"))) {
            List<String> names = jar.stream().map(e -> e.getName()).toList();
            assertThat(names).as("the agent is in the jar").contains("io/memscope/agent/capture/CaptureSession.class");
            assertThat(names).noneMatch(n -> n.contains("/analysis/"));
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theApplicationsJvmLoadsNoAnalysisClassAndRunBuildsTheReport(@TempDir Path out) throws Exception {
        Path classLog = out.resolve("classes.log");
        // --gc-at-end: the buffers still held at the end are told from the unreachable ones by a collection
        CliRun r = CliRun.run("run", "--out", out.toString(), "--gc-at-end", "--", Jvms.current(),
                "-Xlog:class+load=info:file=" + classLog, "-cp", System.getProperty("memscope.demo.jar"),
                "io.memscope.demo.DemoMain", "direct-buffer-leak");
        assertThat(r.exit).as(r.err).isZero();
        List<String> loaded = Files.readAllLines(classLog);
        assertThat(loaded).as("the agent ran in that JVM")
                .anyMatch(l -> l.contains("io.memscope.agent.capture.CaptureSession "));
        assertThat(loaded).noneMatch(l -> l.contains("io.memscope.analysis.")
                || l.contains("io.memscope.agent.shaded.memscope.analysis."));
        Object report = Jvms.report(out);
        assertThat(Json.num(Json.obj(report, "native"), "outstandingBytes")).isEqualTo(32L * 256 * 1024);
        assertThat(Json.obj(report, "recording").get("closed")).isEqualTo(true);
        assertThat(r.out).contains("memscope report for pid").contains("report.json");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aJvmKilledWithKill9UnderRunStillGetsItsReportWithTheDamageNamed(@TempDir Path out) throws Exception {
        CliRun r = CliRun.run("run", "--out", out.toString(), "--interval", "16k", "--agent-option", "flush=100",
                "--", Jvms.current(), "-cp", Jvms.classPath(KilledFixture.class), KilledFixture.class.getName(),
                "100000");
        assertThat(r.exit).as("the command's exit status: killed by SIGKILL").isEqualTo(128 + 9);
        assertThat(r.err).contains("was killed by signal 9 (SIGKILL) before it could close its recording");
        assertThat(r.out).contains("the recording was not closed");
        Object report = Jvms.report(out);
        Map<String, Object> recording = Json.obj(report, "recording");
        assertThat(recording.get("closed")).isEqualTo(false);
        // the file ends after its last whole block, or inside a block the writer was writing when the kill came
        assertThat((String) Json.obj(recording, "damage").get("what"))
                .containsAnyOf("without an END block", "truncated block");
        Map<String, Object> totals = Json.obj(report, "totals");
        assertThat(Json.num(totals, "allocatedBytes")).as("what the flushed blocks hold")
                .isGreaterThan(20L << 20);
        String retained = "memscope.fixtures.KilledFixture.main(KilledFixture.java:"
                + Jvms.lineOf("memscope/fixtures/KilledFixture.java", "KILLED-RETAINED") + ")";
        assertThat(Jvms.sites(report, "topAllocationSites")).contains(retained);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aJvmKilledInExactModeKeepsItsExactCountsAsOfItsLastSnapshot(@TempDir Path out) throws Exception {
        int n = 12_345;
        // only the fixture's allocations are counted: the recording reader it polls with allocates too
        CliRun r = CliRun.run("run", "--out", out.toString(), "--mode", "exact", "--include", "memscope.fixtures",
                "--agent-option", "flush=100", "--", Jvms.current(), "-cp",
                Jvms.classPath(ExactKilledFixture.class, RecordingReader.class), ExactKilledFixture.class.getName(),
                Integer.toString(n));
        assertThat(r.exit).as(r.err).isEqualTo(128 + 9);
        assertThat(r.out).contains("the recording was not closed").contains("exact counts as of");
        Object report = Jvms.report(out);
        assertThat(Json.obj(report, "recording").get("closed")).isEqualTo(false);
        Map<String, Object> totals = Json.obj(report, "totals");
        assertThat(totals.get("exact")).isEqualTo(true);
        assertThat(((Number) totals.get("exactCountsAsOfMs")).doubleValue()).as("the snapshot's time").isPositive();
        String counted = "memscope.fixtures.ExactKilledFixture.main(ExactKilledFixture.java:"
                + Jvms.lineOf("memscope/fixtures/ExactKilledFixture.java", "EXACT-COUNTED") + ")";
        Map<String, Object> site = Json.list(report, "topAllocationSites").stream()
                .filter(e -> counted.equals(e.get("site"))).findFirst().orElseThrow();
        assertThat(Json.num(site, "allocatedObjects")).as("exactly the arrays allocated before the snapshot, "
                + "none of those after it").isEqualTo(n);
        assertThat(Json.num(site, "allocatedBytes")).isGreaterThanOrEqualTo(1024L * n);
    }

    @Test
    void aRecordingOfTheLandedVersionStillReportsThroughTheCli(@TempDir Path out) throws Exception {
        Path old = Path.of("../memscope-analysis/src/test/resources/recordings/v1.0-demo-sample.msrec");
        Path json = out.resolve("r.json");
        CliRun r = CliRun.run("report", old.toString(), "--json", json.toString());
        assertThat(r.exit).as(r.err).isZero();
        assertThat(r.out).contains("LeakyCacheWorkload");
        Object report = Json.parse(Files.readString(json));
        assertThat(Json.obj(report, "recording").get("formatVersion")).isEqualTo("1.0");
        // format 1.0 does not say what a collection examined: its one full collection is recognized by name, and a leak
        // must be seen growing at three whole-heap collections; the report says it could not judge
        assertThat(Jvms.sites(report, "topLiveSites")).first().asString().contains("LeakyCacheWorkload.run");
        assertThat(Jvms.sites(report, "leakSuspects")).isEmpty();
        assertThat(r.out).contains("Leak suspects: not judged: the window had 1 collection that examined the whole "
                + "heap");
        assertThat(Json.obj(report, "peak")).isNotNull();
    }
}
