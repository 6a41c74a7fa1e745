package io.memscope.junit.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.junit.Fixtures;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import memscope.fixtures.ConcurrentRepetitionFixture;
import memscope.fixtures.RealUseFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The extension the way real suites use it (Surefire execution {@code with-agent}): repetitions that run at the same
 * time, the JDK's and libraries' soft-reference caches, and the allocation sites of a failing {@code @MaxAllocation}
 * read right after the test.
 */
class RealUseTest {
    private static Map<String, Fixtures.Outcome> outcomes;
    private static Map<String, Fixtures.Outcome> concurrent;

    @BeforeAll
    static void runTheFixtures() {
        AgentRequired.check();
        outcomes = Fixtures.run(RealUseFixture.class, Map.of());
        concurrent = Fixtures.run(ConcurrentRepetitionFixture.class, Map.of(
                "junit.jupiter.execution.parallel.enabled", "true",
                "junit.jupiter.execution.parallel.config.strategy", "fixed",
                "junit.jupiter.execution.parallel.config.fixed.parallelism", "4"));
    }

    @Test
    void concurrentRepetitionsWaitForTheWarmUpAndAreJudgedRight() {
        for (int i = 1; i <= 4; i++) {
            Fixtures.Outcome o = concurrent.get("memoizesOnFirstUseConcurrently[" + i + "]");
            assertThat(o.passed()).as("repetition %d: %s", i, o.message()).isTrue();
        }
        long failed = 0;
        for (int i = 1; i <= 4; i++) {
            Fixtures.Outcome o = concurrent.get("leaksOnEveryInvocationConcurrently[" + i + "]");
            if (!o.passed()) {
                assertThat(o.message()).startsWith("@NoLeaks: ").contains("RealUseFixture.eightMiB");
                failed++;
            }
        }
        assertThat(failed).as("every repetition but the warm-up leaks").isEqualTo(3);
    }

    @Test
    void softlyReachableCachesAreNotLeaksUnlessAskedFor() {
        Fixtures.Outcome soft = outcomes.get("fillsASoftReferenceCache");
        assertThat(soft.passed()).as(soft.message()).isTrue();
        Fixtures.Outcome counted = outcomes.get("fillsASoftReferenceCacheCounted");
        assertThat(counted.passed()).isFalse();
        assertThat(counted.message()).startsWith("@NoLeaks: ").contains("RealUseFixture.eightMiB");
    }

    @Test
    void maxAllocationNamesItsSiteWithAllItsBytes() {
        Fixtures.Outcome o = outcomes.get("allocatesFortyMiB");
        assertThat(o.passed()).isFalse();
        Matcher total = Pattern.compile("the test allocated ([\\d.]+) MiB").matcher(o.message());
        assertThat(total.find()).as(o.message()).isTrue();
        Matcher site = Pattern.compile("\\n +([\\d.]+) MiB +byte\\[\\] +memscope\\.fixtures\\.RealUseFixture\\."
                + "allocatesFortyMiB\\(RealUseFixture\\.java:\\d+\\)").matcher(o.message());
        assertThat(site.find()).as(o.message()).isTrue();
        double exact = Double.parseDouble(total.group(1));
        double estimated = Double.parseDouble(site.group(1));
        // 640 arrays of 64 KiB at a 64 KiB interval: about 640 samples, a few per cent; without catching up with
        // the agent's queue first, the samples of the test's last moments are missing
        assertThat(estimated).as("the site's estimate against the exact %s MiB", exact)
                .isBetween(exact * 0.85, exact * 1.15);
    }
}
