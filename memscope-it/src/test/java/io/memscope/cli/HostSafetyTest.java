package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.RecordingReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.fixtures.SmallHeapFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host application is never hurt and what memscope recorded is kept: a recording that cannot be written takes
 * bounded memory, an application that runs out of memory still gets its recording closed and the report says when,
 * and a full disk is said at once. The JVM sampler (Linux x86_64) is what these JVMs run with.
 */
class HostSafetyTest {

    record Run(int exit, String output) {
    }

    static Run java(Path out, String options, List<String> jvm, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Jvms.current());
        cmd.addAll(jvm);
        cmd.add("-javaagent:" + System.getProperty("memscope.agent.jar") + "=out=" + out + options);
        cmd.addAll(List.of("-cp", Jvms.classPath(SmallHeapFixture.class), SmallHeapFixture.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(output).isTrue();
        return new Run(p.exitValue(), output);
    }

    static Path onlyJvmDir(Path out) throws Exception {
        try (Stream<Path> s = Files.list(out)) {
            List<Path> l = s.toList();
            assertThat(l).hasSize(1);
            return l.get(0);
        }
    }

    /**
     * A program that lives in 8 MB, sampled every KiB, whose recording cannot be written: memscope keeps what it can
     * in bounded memory, says so at once, drops the rest with a count, and the program runs to its end (with an
     * unbounded store it died of OutOfMemoryError within seconds: the run drops over a million events). The program
     * keeps 2 MB of the 8: on JDK 25 the agent's fixed tables (sized for large heaps: the JVM sampler's drain and
     * resolver arrays, its reserves, the recording held in memory) and the JDK's own larger start take about 3.5 MB
     * more of the live heap than without the agent, and a 3 MB cache no longer fit.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aRecordingThatCannotBeWrittenTakesBoundedMemory(@TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "not a folder");
        Run run = java(file.resolve("out"), ",interval=1k", List.of("-Xmx8m", "-XX:+UseSerialGC"), "8000", "2000");
        assertThat(run.output).as(run.output).contains("done").doesNotContain("OutOfMemoryError");
        assertThat(run.exit).as(run.output).isZero();
        assertThat(run.output).contains("memscope agent: cannot write " + file.resolve("out"))
                .contains("tracking continues in memory up to")
                .contains("events from now on are dropped and counted")
                .contains("the recording held in memory").contains("is lost");
    }

    /** The output folder could not be made at the start and can at the end: what memory held goes into the file. */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aRecordingHeldInMemoryGoesIntoItsFileWhenTheFolderCanBeMadeAtTheEnd(@TempDir Path tmp) throws Exception {
        Path blocker = Files.writeString(tmp.resolve("later"), "a file where the folder should be");
        Path out = blocker.resolve("out");
        List<String> cmd = List.of(Jvms.current(), "-javaagent:" + System.getProperty("memscope.agent.jar") + "=out="
                + out, "-cp", Jvms.classPath(SmallHeapFixture.class), SmallHeapFixture.class.getName(), "4000", "100");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8));
        StringBuilder output = new StringBuilder();
        for (String line; (line = r.readLine()) != null; ) {
            output.append(line).append('\n');
            if (line.contains("tracking continues in memory")) {
                Files.delete(blocker); // the folder can be made from now on
            }
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output.toString()).isZero();
        Path recording = onlyJvmDir(out).resolve("recording.msrec");
        assertThat(RecordingReader.isClosed(recording)).as(output.toString()).isTrue();
        Object report = Jvms.reportFromRecording(out);
        assertThat(Json.num(Json.obj(report, "totals"), "samples")).isGreaterThan(0);
        assertThat(Json.obj(report, "metadata")).doesNotContainKey("recordingFailure");
    }

    /**
     * A program that leaks until it runs out of memory: the recording is closed, says when the JVM ran out of memory,
     * and holds what led there.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void anApplicationThatRunsOutOfMemoryKeepsItsRecordingAndTheReportSaysWhen(@TempDir Path out) throws Exception {
        Run run = java(out, ",interval=64k", List.of("-Xmx64m"), "2000", "1000", "leak");
        assertThat(run.output).contains("leaking").contains("java.lang.OutOfMemoryError");
        assertThat(run.output).doesNotContain("thrown from the UncaughtExceptionHandler in thread \"memscope");
        Path dir = onlyJvmDir(out);
        assertThat(RecordingReader.isClosed(dir.resolve("recording.msrec"))).as(run.output).isTrue();
        assertThat(dir.resolve(".recording.reserve")).doesNotExist();
        CliRun report = CliRun.run("report", dir.toString(), "--json", dir.resolve("report.json").toString());
        assertThat(report.exit).as(report.err).isZero();
        assertThat(report.out).containsPattern("the JVM ran out of memory \\(Java heap\\) at [0-9.]+ s of the capture");
        Map<String, Object> meta = Json.obj(Jvms.report(out), "metadata");
        assertThat(Long.parseLong(meta.get("outOfMemory.count").toString())).isGreaterThanOrEqualTo(1);
        assertThat(report.out).contains("SmallHeapFixture.main(SmallHeapFixture.java:");
    }
}
