package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.memscope.MemoryEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.MallocAttachFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malloc sampling under {@code memscope attach --malloc}: the libraries of a running JVM are patched when the agent
 * starts, twice in a row (the second capture starts afresh on hooks the first left in place, passing through), and
 * the JVM keeps running and exits normally. Linux x86_64; the build's JDK.
 */
class MallocAttachTest {
    private static final String SRC = "memscope/fixtures/MallocAttachFixture.java";
    private static final String FIXTURE = MallocAttachFixture.class.getName();

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void attachSamplesARunningJvmsMallocTwice(@TempDir Path dir) throws Exception {
        assumeThat(System.getProperty("os.arch")).as("the malloc sampler is Linux x86_64").isIn("amd64", "x86_64");
        Path stop = dir.resolve("stop");
        Path log = dir.resolve("fixture.log");
        Process p = new ProcessBuilder(Jvms.current(), "-cp", Jvms.classPath(MallocAttachFixture.class), FIXTURE,
                stop.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Jvms.awaitOutput(log, "ready");
            String pid = Long.toString(p.pid());
            int line = Jvms.lineOf(SRC, "// ATTACH-INFLATER");
            for (String round : List.of("one", "two")) {
                Path out = dir.resolve(round);
                int code = Main.execute("attach", pid, "--duration", "3", "--out", out.toString(), "--malloc",
                        "--malloc-interval", "16k");
                assertThat(code).as(round).isZero();
                MallocRecording r = MallocRecording.read(out);
                assertThat(r.metadataText("malloc.selfTest")).as(round).isEqualTo("passed");
                List<MemoryEvent> at = r.allocationsAt(FIXTURE, line);
                assertThat(at).as(round + ": inflaters sampled at their line").isNotEmpty();
                assertThat(r.stack(at.get(0)).get(0)).as(round).doesNotEndWith(")").containsAnyOf("libz", "libzip");
                assertThat(r.outstandingAt(FIXTURE, line)).as(round + ": kept inflaters outstanding").isNotEmpty();
                assertThat(p.isAlive()).as(round).isTrue();
            }
            Files.writeString(stop, "stop");
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(Files.readString(log)).isZero();
            assertThat(Files.readString(log)).contains("malloc attach fixture done");
        } finally {
            p.destroyForcibly();
        }
    }
}
