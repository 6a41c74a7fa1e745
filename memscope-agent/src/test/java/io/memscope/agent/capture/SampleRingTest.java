package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sampler library's queue (sample_ring.h, shared by the JVM heap sampler and the malloc sampler) under the
 * interleaving that overwrote queued records: a producer held up inside its claim, between its reads of the ring's
 * head and tail, while the ring goes round. src/test/native/sample_ring_test.c holds it up there through the header's
 * test hook, once deterministically (the claim must find the ring full and every queued record must read back
 * intact) and in a stress of four producers and the consumer; it is built with gcc and run, and again with
 * ThreadSanitizer when gcc has it. Platform: Linux with gcc (the agent's build needs it there anyway).
 */
class SampleRingTest {
    private static final Path SOURCE = Path.of("src/test/native/sample_ring_test.c");
    private static final Path HEADERS = Path.of("src/main/native");

    @Test
    void aClaimHeldUpWhileTheRingGoesRoundNeverGetsQueuedBytes(@TempDir Path dir) throws Exception {
        assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux"),
                "the sampler library is built for Linux");
        Path program = dir.resolve("sample_ring_test");
        Result built = run(dir, "gcc", "-O2", "-Wall", "-Werror", "-pthread", "-I" + HEADERS.toAbsolutePath(),
                "-o", program.toString(), SOURCE.toAbsolutePath().toString());
        assumeTrue(built != null, "gcc is installed");
        assertThat(built.code).as("gcc: " + built.output).isZero();
        Result ran = run(dir, program.toString());
        assertThat(ran.output).contains("held-up claim: 64 records read back, the claim refused")
                .contains("threads: 160000 records from 4 producers read once each").doesNotContain("FAILED");
        assertThat(ran.code).as(ran.output).isZero();
    }

    @Test
    void theQueueHasNoDataRaceUnderThreadSanitizer(@TempDir Path dir) throws Exception {
        assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux"),
                "the sampler library is built for Linux");
        Path program = dir.resolve("sample_ring_test_tsan");
        Result built = run(dir, "gcc", "-O1", "-g", "-fsanitize=thread", "-pthread", "-I" + HEADERS.toAbsolutePath(),
                "-o", program.toString(), SOURCE.toAbsolutePath().toString());
        assumeTrue(built != null && built.code == 0, "gcc builds with -fsanitize=thread (libtsan installed)");
        Result ran = run(dir, program.toString());
        assertThat(ran.output).doesNotContain("ThreadSanitizer").doesNotContain("FAILED").contains("passed");
        assertThat(ran.code).as(ran.output).isZero();
    }

    private record Result(int code, String output) {
    }

    /** Runs a command in dir, its output and errors together; null when the program is not installed. */
    private static Result run(Path dir, String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(command));
        Process p;
        try {
            p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("output.txt").toFile()).start();
        } catch (IOException notInstalled) {
            return null;
        }
        // a guard against a hang (a producer waiting for room forever), not a timing
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", cmd) + " did not end: "
                    + Files.readString(dir.resolve("output.txt"), StandardCharsets.UTF_8));
        }
        return new Result(p.exitValue(), Files.readString(dir.resolve("output.txt"), StandardCharsets.UTF_8));
    }
}
