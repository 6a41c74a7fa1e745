package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The summary's line about a heap walk that did not cover the heap says how to let the next one reach more: an
 * HSQLDB of 200,000 rows made the end walk stop at its 2 s budget with 65 of 144 samples reached, and the line named
 * no option.
 */
class RetentionSummaryTest {
    private static String note(String outcome, String detail) {
        StringBuilder sb = new StringBuilder();
        RetentionSummary.note(sb, new Retention(new Retention.Walk("end", 10_752, outcome, 2_000, 2_400, 576_808,
                2_045_952, 40 << 20, 144, 65, detail), Map.of()));
        return sb.toString();
    }

    @Test
    void aWalkStoppedByItsTimeBudgetNamesTheOptionsThatRaiseIt() {
        assertThat(note("time budget", "stopped at its time budget of 2000 ms after visiting 576808 objects "
                + "(2045952 references)")).isEqualTo("  ! paths from GC roots: the heap walk stopped at its time budget:"
                + " 65 of 144 tracked samples reached (stopped at its time budget of 2000 ms after visiting 576808 "
                + "objects (2045952 references)); a larger budget reaches more: `memscope run` or `attach` with "
                + "--agent-option pathsTime=MILLIS, `memscope paths` with --time-budget=MS" + System.lineSeparator());
    }

    @Test
    void aWalkStoppedByItsMemoryBudgetNamesItsOwnOptions() {
        assertThat(note("memory budget", "stopped at its memory budget of 1 MiB")).endsWith("--agent-option "
                + "pathsMemory=BYTES, `memscope paths` with --memory-budget=BYTES" + System.lineSeparator());
    }

    @Test
    void aFailedWalkHasNoBudgetToRaiseAndACompleteOneNoLine() {
        assertThat(note("failed", "the heap walk failed: out of memory")).doesNotContain("larger budget");
        assertThat(note("complete", null)).isEmpty();
    }
}
