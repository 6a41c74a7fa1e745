package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.MallocChurnFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native memory allocated and freed in a loop (deflaters and inflaters created, used and ended) leaves nothing
 * outstanding under {@code memscope run --malloc}: every sampled block's free is matched, though frees are not
 * sampled, while the allocations themselves are seen in their hundreds of megabytes; a stack repeated is sent by the
 * hooks once and then by its id. Linux x86_64; JDK 25 and 17.
 */
class MallocChurnTest {
    private static final String SRC = "memscope/fixtures/MallocChurnFixture.java";
    private static final String FIXTURE = MallocChurnFixture.class.getName();
    private static final int ROUNDS = 3000;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aMallocAndFreeLoopHasNothingOutstanding(@TempDir Path out) throws Exception {
        assumeThat(System.getProperty("os.arch")).as("the malloc sampler is Linux x86_64").isIn("amd64", "x86_64");
        int deflaters = Jvms.lineOf(SRC, "// CHURN-D");
        int inflaters = Jvms.lineOf(SRC, "// CHURN-I");
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            int code = Jvms.memscopeRun(dir, List.of("--malloc", "--malloc-interval", "32k"), List.of(java, "-cp",
                    Jvms.classPath(MallocChurnFixture.class), FIXTURE, Integer.toString(ROUNDS)));
            assertThat(code).as(java).isZero();
            MallocRecording r = MallocRecording.read(dir);
            assertThat(r.metadataText("malloc.selfTest")).as(java).isEqualTo("passed");
            assertThat(r.metadata("malloc.dropped")).as(java).isZero();
            assertThat(r.allocationsAt(FIXTURE, deflaters)).as(java + ": deflaters sampled").hasSizeGreaterThan(100);
            assertThat(r.allocationsAt(FIXTURE, inflaters)).as(java + ": inflaters sampled").hasSizeGreaterThan(100);
            // a deflater at the default level allocates its window, hash chains and pending buffer: over 256 KiB
            assertThat(r.estimate(r.allocationsAt(FIXTURE, deflaters))).as(java + ": allocated, estimated")
                    .isGreaterThan(ROUNDS * 128.0 * 1024);
            assertThat(r.outstandingAt(FIXTURE, deflaters)).as(java + ": nothing outstanding").isEmpty();
            assertThat(r.outstandingAt(FIXTURE, inflaters)).as(java + ": nothing outstanding").isEmpty();
            assertThat(r.metadata("malloc.staleFrees")).as(java).isZero();
            // the hooks send each stack's frames once, then its id: far more samples by id than stacks sent, and every
            // id named was defined (the sites above were resolved through them)
            assertThat(r.metadata("malloc.stacksSent")).as(java + ": stacks sent whole").isPositive();
            assertThat(r.metadata("malloc.samplesById")).as(java + ": samples by id")
                    .isGreaterThan(10 * r.metadata("malloc.stacksSent"));
            assertThat(r.metadata("malloc.unknownIds")).as(java).isZero();
        }
    }
}
