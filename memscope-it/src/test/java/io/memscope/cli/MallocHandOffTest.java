package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.MallocHandOffFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Blocks malloc'd on one thread and freed on another, by eight threads at once, the same sizes again and again (so
 * a freed address is soon another thread's sampled block), at a small interval under {@code memscope run --malloc}:
 * every sampled block's free is matched, to its own site, in the recording's order; no address is taken over and no
 * stack id is unknown. Linux x86_64; JDK 25 and 17.
 */
class MallocHandOffTest {
    private static final String SRC = "memscope/fixtures/MallocHandOffFixture.java";
    private static final String FIXTURE = MallocHandOffFixture.class.getName();

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void blocksFreedByAnotherThreadAreAllMatched(@TempDir Path out) throws Exception {
        assumeThat(System.getProperty("os.arch")).as("the malloc sampler is Linux x86_64").isIn("amd64", "x86_64");
        int deflaters = Jvms.lineOf(SRC, "// HANDOFF-D");
        int inflaters = Jvms.lineOf(SRC, "// HANDOFF-I");
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            int code = Jvms.memscopeRun(dir, List.of("--malloc", "--malloc-interval", "2k"), List.of(java, "-cp",
                    Jvms.classPath(MallocHandOffFixture.class), FIXTURE, "8", "1500"));
            assertThat(code).as(java).isZero();
            MallocRecording r = MallocRecording.read(dir);
            assertThat(r.metadataText("malloc.selfTest")).as(java).isEqualTo("passed");
            assertThat(r.allocationsAt(FIXTURE, deflaters)).as(java + ": deflaters sampled").hasSizeGreaterThan(1000);
            assertThat(r.allocationsAt(FIXTURE, inflaters)).as(java + ": inflaters sampled").hasSizeGreaterThan(1000);
            // a free that finds the ring full waits in its block's slot and is recorded at its turn (a sample that
            // finds it full is dropped whole, its free with it): nothing freed is left outstanding
            assertThat((long) (r.outstandingAt(FIXTURE, deflaters).size() + r.outstandingAt(FIXTURE, inflaters).size()))
                    .as(java + ": outstanding at the end, with " + r.metadata("malloc.ringFull")
                            + " records that found the ring full").isZero();
            assertThat(r.metadata("malloc.staleFrees")).as(java).isZero();
            assertThat(r.metadata("malloc.unknownIds")).as(java).isZero();
        }
    }
}
