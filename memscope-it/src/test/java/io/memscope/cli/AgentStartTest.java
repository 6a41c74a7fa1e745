package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import memscope.fixtures.HelloFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the agent's start loads into the smallest program (docs/benchmarks.md, "Agent: start and exit"): its own
 * classes once, from its jar, by its own class loader; and none of the JDK machinery that its start and its
 * recording were cut loose from. Class names, not timings: a test that cannot be fooled by the machine's load.
 */
class AgentStartTest {

    static List<String> javas() {
        return Jvms.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void theStartLoadsTheAgentOnceFromItsJarAndNoneOfTheJdkMachineryItWasCutLooseFrom(String java, @TempDir Path dir)
            throws Exception {
        String jar = System.getProperty("memscope.agent.jar");
        Path tmp = Files.createDirectories(dir.resolve("tmp")); // the agent's private cache of Unsafe, this test's own
        // the first start fills the cache of instrumented JDK classes (with ASM); the second is what every later start
        // of an application with this agent jar does
        for (int run = 1; run <= 2; run++) {
            Path log = dir.resolve("classes-" + run + ".log");
            Path out = dir.resolve("out-" + run);
            ProcessBuilder pb = new ProcessBuilder(java, "-Djava.io.tmpdir=" + tmp,
                    "-Xlog:class+load=info:file=" + log, "-javaagent:" + jar + "=out=" + out,
                    "-cp", Jvms.classPath(HelloFixture.class), HelloFixture.class.getName());
            pb.redirectErrorStream(true);
            Process p = pb.start();
            String output = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).as(output).isZero();
            assertThat(output).contains("hello: agent loader true, capture running true")
                    .contains("memscope agent: recording closed");
            if (run == 1) {
                continue;
            }
            List<String> lines = Files.readAllLines(log);
            int main = indexOf(lines, " memscope.fixtures.HelloFixture ");
            assertThat(main).as("the application's main class loaded").isPositive();
            List<String> start = lines.subList(0, main);

            assertThat(lines.stream().filter(l -> l.contains(" io.memscope.agent.capture.CaptureSession ")))
                    .as("the agent's classes are loaded once, by its own loader, from its jar").hasSize(1)
                    .allMatch(l -> l.contains("source: file:") && l.endsWith("memscope-agent.jar"));
            assertThat(start).as("no ASM: Unsafe's instrumentation comes from the cache")
                    .noneMatch(l -> l.contains(" io.memscope.agent.shaded.asm."));
            assertThat(start).as("no VarHandle over an array for the failure counters")
                    .noneMatch(l -> l.contains(" java.util.concurrent.atomic.AtomicLongArray "));
            assertThat(lines).as("the recording is written without a FileChannel (30 JDK classes)")
                    .noneMatch(l -> l.contains(" java.nio.channels.FileChannel ")
                            || l.contains(" sun.nio.ch.FileChannelImpl "));
            assertThat(lines).as("a small recording's checksums are computed without CRC32C's initializer")
                    .noneMatch(l -> l.contains(" java.util.zip.CRC32C "));
        }
        // and the recording, written with neither, reads back closed and whole
        Object report = Jvms.reportFromRecording(dir.resolve("out-2"));
        assertThat(Json.obj(report, "recording").get("closed")).isEqualTo(true);
    }

    /**
     * A capture that ends within the process sampler's first interval never sets it up (the JDK's management beans,
     * the resident check's thread: tens of ms of CPU the exit would wait for) and says so. The interval is a minute
     * here, so that a loaded machine cannot make the program outlive it. When the end check's collection is the run's
     * only one, it starts no GC notification listener either (JMX loaded at the exit, for nothing).
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aCaptureShorterThanTheProcessSamplersFirstIntervalDoesNotSetItUp(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("classes.log");
        Path out = dir.resolve("out");
        ProcessBuilder pb = new ProcessBuilder(Jvms.current(), "-Xlog:class+load=info:file=" + log,
                "-javaagent:" + System.getProperty("memscope.agent.jar") + "=out=" + out + ",processMemory=60000",
                "-cp", Jvms.classPath(HelloFixture.class), HelloFixture.class.getName());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(output).isZero();
        List<String> classes = Files.readAllLines(log);
        assertThat(classes).as("the process sampler and the resident check never loaded")
                .noneMatch(l -> l.contains(" io.memscope.agent.capture.ProcessMemorySampler ")
                        || l.contains(" io.memscope.agent.capture.ResidentCheckThread "));
        Object report = Jvms.reportFromRecording(out);
        if (Json.num(Json.obj(report, "gc"), "count") == 1) { // the end check's only: no listener for its notification
            assertThat(classes).as("no GC listener started by the end check's collection")
                    .noneMatch(l -> l.contains(" java.lang.management.ManagementFactory "));
        }
        assertThat(Json.obj(report, "recording").get("closed")).isEqualTo(true);
        assertThat(Json.obj(report, "metadata").get("processMemory.off"))
                .isEqualTo("the capture ended before its first sample, 60000 ms after its start");
        assertThat(report).extracting(r -> ((java.util.Map<?, ?>) r).get("processMemory")).isNull();
    }

    private static int indexOf(List<String> lines, String what) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(what)) {
                return i;
            }
        }
        return -1;
    }
}
