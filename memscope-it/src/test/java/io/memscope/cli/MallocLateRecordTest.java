package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.MallocHandOffFixture;
import memscope.fixtures.MallocLateRecordFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A malloc sample's record claimed in the hooks' ring and published late (its thread held between the two by the
 * hooks' test stall, {@code MEMSCOPE_TEST_MALLOC_STALL}, until two thousand other records have found the ring full),
 * while eight threads malloc and free at a 2 KiB interval: no free is lost, so no block is left outstanding that was
 * freed, and the samples that found the ring full are counted. Linux x86_64; JDK 25 and 17.
 */
class MallocLateRecordTest {
    private static final String SRC = "memscope/fixtures/MallocLateRecordFixture.java";
    private static final String FIXTURE = MallocLateRecordFixture.class.getName();
    private static final String WORKERS_SRC = "memscope/fixtures/MallocHandOffFixture.java";
    private static final String WORKERS = MallocHandOffFixture.class.getName();

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aRecordPublishedLateCostsNoFree(@TempDir Path out) throws Exception {
        assumeThat(System.getProperty("os.arch")).as("the malloc sampler is Linux x86_64").isIn("amd64", "x86_64");
        // the workers are the hand-off fixture's
        int deflaters = Jvms.lineOf(WORKERS_SRC, "// HANDOFF-D");
        int inflaters = Jvms.lineOf(WORKERS_SRC, "// HANDOFF-I");
        int stalled = Jvms.lineOf(SRC, "// LATE-S");
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            int code = Jvms.memscopeRun(dir, List.of("--malloc", "--malloc-interval", "2k"),
                    List.of("/usr/bin/env", "MEMSCOPE_TEST_MALLOC_STALL=malloc-stall", java, "-cp",
                            Jvms.classPath(MallocLateRecordFixture.class), FIXTURE, "8", "3000"));
            assertThat(code).as(java).isZero();
            MallocRecording r = MallocRecording.read(dir);
            assertThat(r.metadataText("malloc.selfTest")).as(java).isEqualTo("passed");
            // the stall happened, and held its record until the ring had refused two thousand others
            assertThat(r.metadata("malloc.testStalls")).as(java + ": stalled").isEqualTo(1);
            assertThat(r.metadata("malloc.ringFull")).as(java + ": records that found the ring full")
                    .isGreaterThanOrEqualTo(2000);
            assertThat(r.allocationsAt(WORKERS, deflaters)).as(java + ": deflaters sampled").hasSizeGreaterThan(1000);
            assertThat(r.allocationsAt(FIXTURE, stalled)).as(java + ": the late sample arrived").isNotEmpty();
            // every block was ended: a free lost to the full ring would leave its block outstanding
            assertThat(r.outstandingAt(WORKERS, deflaters)).as(java + ": outstanding deflater blocks").isEmpty();
            assertThat(r.outstandingAt(WORKERS, inflaters)).as(java + ": outstanding inflater blocks").isEmpty();
            assertThat(r.outstandingAt(FIXTURE, stalled)).as(java + ": the late sample's block").isEmpty();
            // the records that found the ring full waited in their blocks' slots and were all sent
            assertThat(r.metadata("malloc.freesDeferred")).as(java + ": frees deferred").isPositive();
            assertThat(r.metadata("malloc.deferredUnsent")).as(java).isZero();
            // and were sent once the drain passed their position, not at the end: their slots were free again for
            // the next samples, so no sample found the table full
            assertThat(r.metadata("malloc.untracked")).as(java + ": samples not taken (table full)").isZero();
            assertThat(r.metadata("malloc.ringUnreadBytes")).as(java).isZero();
            assertThat(r.metadata("malloc.staleFrees")).as(java).isZero();
            assertThat(r.metadata("malloc.unknownIds")).as(java).isZero();
        }
    }
}
