package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.AttachFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

/** `memscope attach` / `detach` against a JVM started without any memscope option. */
class AttachTest {
    private static final String SRC = "memscope/fixtures/AttachFixture.java";

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void attachWithDurationThenAttachAgainAndDetach(@TempDir Path dir) throws Exception {
        Path stop = dir.resolve("stop");
        Path log = dir.resolve("fixture.log");
        Process p = new ProcessBuilder(Jvms.current(), "-cp", Jvms.classPath(AttachFixture.class),
                AttachFixture.class.getName(), stop.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Jvms.awaitOutput(log, "ready");
            String pid = Long.toString(p.pid());
            String temp = "memscope.fixtures.AttachFixture.work(AttachFixture.java:"
                    + Jvms.lineOf(SRC, "ATTACH-TEMP") + ")";
            String retained = "memscope.fixtures.AttachFixture.work(AttachFixture.java:"
                    + Jvms.lineOf(SRC, "ATTACH-RETAINED") + ")";

            // 1. attach for 2 seconds: the already loaded fixture class is retransformed, then restored.
            Path out1 = dir.resolve("one");
            int code = Main.execute("attach", pid, "--duration", "2", "--out", out1.toString(), "--mode", "exact");
            assertThat(code).isZero();
            Object report = Jvms.report(out1);
            assertThat(Json.obj(report, "metadata").get("attached")).isEqualTo("true");
            assertThat(Json.obj(report, "metadata").get("sampler")).as("exact mode").isEqualTo("bytecode");
            assertThat(Jvms.sites(report, "topAllocationSites")).contains(temp, retained);
            for (Map<String, Object> e : Json.list(report, "topAllocationSites")) {
                if (temp.equals(e.get("site"))) {
                    assertThat(e.get("type")).isEqualTo("char[]");
                    assertThat(Json.num(e, "count")).isGreaterThan(1000);
                }
            }
            assertThat(Json.num(Json.obj(report, "failures"), "count")).isZero();
            assertThat(p.isAlive()).isTrue();

            // 2. attach again without a duration, then detach: detach closes the recording (found through the
            // agent's property, not told the output directory) and builds the report; the JVM keeps running.
            Path out2 = dir.resolve("two");
            assertThat(Main.execute("attach", pid, "--out", out2.toString())).isZero();
            Path recording2 = out2.resolve(pid).resolve("recording.msrec");
            // the agent's background thread creates the recording shortly after the attach returned; wait until
            // the capture has flushed a few samples (a recording being written may not open yet: retried)
            await("100 events in " + recording2).atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> io.memscope.analysis.RecordedRun.open(recording2).eventCount() >= 100);
            // top on the attached agent: its figures start at the attach, and it says so
            CliRun top = CliRun.run("top", pid, "-n", "1");
            assertThat(top.exit).as(top.err).isZero();
            assertThat(top.out).contains("native outstanding since the attach")
                    .containsPattern("  attached [0-9.hms ]+ ago");
            CliRun detached = CliRun.run("detach", pid);
            assertThat(detached.exit).as(detached.err).isZero();
            assertThat(detached.out).contains("memscope report for pid " + pid);
            Object second = Jvms.report(out2);
            assertThat(Jvms.sites(second, "topAllocationSites")).contains(temp);
            assertThat(Json.obj(second, "metadata").get("sampler")).as("sample mode: the JVM's sampler, enabled "
                    + "in the live phase").isEqualTo("jvmti");
            assertThat(p.isAlive()).isTrue();

            // 3. attach once more after the JVMTI sampler was disabled by detach: it starts again.
            Path out3 = dir.resolve("three");
            assertThat(Main.execute("attach", pid, "--duration", "2", "--out", out3.toString())).isZero();
            Object third = Jvms.report(out3);
            assertThat(Json.obj(third, "metadata").get("sampler")).isEqualTo("jvmti");
            assertThat(Jvms.sites(third, "topAllocationSites")).contains(temp);
            assertThat(Json.num(Json.obj(third, "failures"), "count")).isZero();
            assertThat(p.isAlive()).isTrue();

            Files.createFile(stop);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            assertThat(Files.readString(log, StandardCharsets.UTF_8)).contains("attach fixture done");
        } finally {
            p.destroyForcibly();
        }
    }
}
