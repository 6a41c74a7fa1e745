package io.memscope.junit;

import static org.assertj.core.api.Assertions.assertThat;

import memscope.fixtures.AllocationFixture;
import memscope.fixtures.ParallelFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link MaxAllocation} without the agent: exact per-thread bytes from ThreadMXBean. */
class MaxAllocationTest {

    @Test
    void overTheLimitFailsSayingByHowMuch() {
        Fixtures.Outcome o = Fixtures.runOne(AllocationFixture.class, "allocatesTooMuch");
        assertThat(o.passed()).isFalse();
        // 8 MiB of arrays plus their headers: exact up to the invocation's own small allocations (and, with the agent,
        // the sample records the agent makes on the allocating thread)
        assertThat(o.message()).matches("(?s)@MaxAllocation: the test allocated 8\\.[01]\\d MiB, 4\\.[01]\\d MiB over the "
                + "limit of 4\\.00 MiB \\(10\\d% over\\): its thread 8\\.[01]\\d MiB.*");
        if (io.memscope.jmx.AgentClient.platform().isPresent()) {
            // an estimate from about 80 samples of 64 KiB arrays at a 64 KiB interval: 8 MiB within a few standard deviations
            assertThat(o.message()).containsPattern("Top allocation sites during the test .*\\n +([5-9]|1[01])\\.\\d+ MiB  byte\\[\\] +"
                    + "memscope\\.fixtures\\.AllocationFixture\\.allocate\\(AllocationFixture\\.java:\\d+\\)");
        } else {
            assertThat(o.message()).contains("Run the test JVM with the memscope agent to see the sites that "
                    + "allocated it: with Maven, copy the agent jar into target/");
        }
    }

    @Test
    void withinTheLimitPassesAndPrintsNothing() {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Fixtures.Outcome o;
        try {
            System.setOut(new PrintStream(printed, true));
            System.setErr(new PrintStream(printed, true));
            o = Fixtures.runOne(AllocationFixture.class, "allocatesLittle");
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        assertThat(o.passed()).as(o.message()).isTrue();
        assertThat(printed.toString()).isEmpty();
    }

    @Test
    void theClassLimitAppliesAndAMetaAnnotationToo() {
        Fixtures.Outcome cls = Fixtures.runOne(AllocationFixture.class, "classLimitApplies");
        assertThat(cls.message()).contains("over the limit of 16.0 MiB");
        Fixtures.Outcome meta = Fixtures.runOne(AllocationFixture.class, "metaAnnotationApplies");
        assertThat(meta.message()).contains("over the limit of 1.00 MiB");
    }

    @Test
    void threadsTheTestStartsAreCharged() {
        Fixtures.Outcome joined = Fixtures.runOne(AllocationFixture.class, "aThreadItStartsAndJoinsCounts");
        assertThat(joined.passed()).isFalse();
        if (Runtime.version().feature() >= 21) {
            assertThat(joined.message()).containsPattern("threads it started 8\\.0\\d MiB");
        } else {
            assertThat(joined.message()).contains("threads that already ended are not seen before JDK 21");
        }
        Fixtures.Outcome running = Fixtures.runOne(AllocationFixture.class, "aThreadStillRunningCounts");
        assertThat(running.message()).containsPattern("threads it started 8\\.0\\d MiB");
    }

    @Test
    void aBadSizeIsNamed() {
        Fixtures.Outcome o = Fixtures.runOne(AllocationFixture.class, "badSizeIsNamed");
        assertThat(o.message()).contains("@MaxAllocation: 'twelve' is not a size");
    }

    @Test
    void inParallelEachTestIsChargedWithItsOwnThread() {
        Map<String, Fixtures.Outcome> r = Fixtures.run(ParallelFixture.class, Map.of(
                "junit.jupiter.execution.parallel.enabled", "true",
                "junit.jupiter.execution.parallel.config.strategy", "fixed",
                "junit.jupiter.execution.parallel.config.fixed.parallelism", "2"));
        // light ran while heavy's worker thread allocated 16 MiB: none of it is charged to light
        assertThat(r.get("light").passed()).as(r.get("light").message()).isTrue();
        assertThat(r.get("heavy").message()).containsPattern("the test allocated 16\\.\\d MiB")
                .contains("threads it started are not counted while other tests run in parallel");
    }
}
