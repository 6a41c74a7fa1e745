package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A capture's exact counts start from zero without anyone but the owner writing a thread's counters: what a thread
 * counted before the capture started (an earlier capture) is not this capture's, what it counts after is, also at
 * site ids beyond the counters it had when the capture started.
 */
class ExactCountsTest {
    @Test
    void aCaptureCountsFromItsStartOnly() {
        ThreadState ts = ThreadState.current();
        assertThat(ts).isNotNull();
        for (int i = 0; i < 3; i++) {
            ts.count(5, 100); // an earlier capture's
        }
        long[] before = ts.counts;
        ExactCounts first = new ExactCounts();
        assertThat(ts.counts).as("never reset by another thread").isSameAs(before);
        assertThat(first.totals()).doesNotContainKey(5);

        ts.count(5, 100);
        ts.count(5, 28);
        ts.count(300, 8); // grows the array past the baseline's length
        Map<Integer, long[]> t = first.totals();
        assertThat(t.get(5)).containsExactly(2, 128);
        assertThat(t.get(300)).containsExactly(1, 8);

        ExactCounts second = new ExactCounts();
        assertThat(second.totals()).as("the next capture starts from zero").isEmpty();
        ts.count(300, 8);
        assertThat(second.totals().get(300)).containsExactly(1, 8);
        assertThat(second.totals()).doesNotContainKey(5);
        assertThat(first.totals().get(300)).as("the first capture still sees its thread").containsExactly(2, 16);
    }
}
