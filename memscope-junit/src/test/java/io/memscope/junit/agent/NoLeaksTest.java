package io.memscope.junit.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.jmx.AgentClient;
import io.memscope.junit.Fixtures;
import java.util.Map;
import memscope.fixtures.LeakFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code @NoLeaks} and {@code @MaxNativeMemory} with the agent in this JVM (Surefire execution {@code with-agent},
 * sampling interval 64 KiB): real leaks fail naming their line, what a correct test leaves behind does not.
 */
class NoLeaksTest {
    private static Map<String, Fixtures.Outcome> outcomes;

    @BeforeAll
    static void runTheFixture() {
        AgentRequired.check();
        outcomes = Fixtures.run(LeakFixture.class, Map.of());
    }

    private static Fixtures.Outcome outcome(String test) {
        return outcomes.get(test);
    }

    private static String leakLine() throws Exception {
        return "memscope.fixtures.LeakFixture.keep(LeakFixture.java:" + FixtureSource.lineOf("LeakFixture", "// the leak")
                + ")";
    }

    @Test
    void aLeakFailsWithItsSiteItsStackAndTheExcess() throws Exception {
        Fixtures.Outcome o = outcome("leaks");
        assertThat(o.passed()).isFalse();
        // 128 arrays of 64 KiB: 8 MiB held, estimated from about 128 samples at a 64 KiB interval
        assertThat(o.message()).matches("(?s)@NoLeaks: [6-9]\\.\\d+ MiB allocated by the test is still held after it "
                + "\\(estimated from \\d+ sampled objects still reachable after @AfterEach and a full GC\\), "
                + "[5-8]\\.\\d+ MiB over the limit of 1\\.00 MiB\\. Held by:\\n +[6-9]\\.\\d+ MiB +\\d+ objects  byte\\[\\] +"
                + java.util.regex.Pattern.quote(leakLine()) + "\\n        at .*")
                .contains("at memscope.fixtures.LeakFixture.leaks(LeakFixture.java:");
    }

    @Test
    void whatACorrectTestLeavesBehindIsNotALeak() {
        for (String ok : new String[] {"churnsButKeepsNothing", "readsACacheFilledBeforeTheTest", "releasesInAfterEach",
            "leaksBelowItsLimit", "leaksOutsideItsIncludes"}) {
            assertThat(outcome(ok).passed()).as(ok + ": " + outcome(ok).message()).isTrue();
        }
    }

    @Test
    void threadsTheTestStartsAreJudgedToo() throws Exception {
        assertThat(outcome("leaksFromAThreadItStarts").message()).startsWith("@NoLeaks: ").contains(leakLine());
    }

    @Test
    void aTemplatesFirstInvocationIsItsWarmUp() throws Exception {
        for (int i = 1; i <= 3; i++) {
            Fixtures.Outcome o = outcome("memoizesOnFirstUse[" + i + "]");
            assertThat(o.passed()).as("invocation " + i + ": " + o.message()).isTrue();
        }
        assertThat(outcome("leaksOnEveryInvocation[1]").passed()).isTrue();
        assertThat(outcome("leaksOnEveryInvocation[2]").message()).contains(leakLine());
        assertThat(outcome("leaksOnEveryInvocation[3]").message()).contains(leakLine());
    }

    @Test
    void outstandingNativeMemoryFailsWithItsSite() throws Exception {
        Fixtures.Outcome o = outcome("keepsDirectBuffers");
        assertThat(o.message()).startsWith("@MaxNativeMemory: 8.00 MiB of native memory allocated by the test (8 direct "
                + "buffers or Unsafe blocks; exact) is still allocated after @AfterEach, a full GC and the Cleaners it "
                + "made due, 7.00 MiB over the limit of 1.00 MiB. Allocated at:")
                .contains("8.00 MiB         8 blocks  native:direct-buffer memscope.fixtures.LeakFixture.keepsDirectBuffers("
                        + "LeakFixture.java:" + FixtureSource.lineOf("LeakFixture", "// the native leak") + ")");
        Fixtures.Outcome freed = outcome("dropsItsDirectBuffers");
        assertThat(freed.passed()).as(freed.message()).isTrue();
    }
}
