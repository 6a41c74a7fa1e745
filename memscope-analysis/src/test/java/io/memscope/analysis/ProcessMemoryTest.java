package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * report.json's process memory: a long window is cut to {@value ProcessMemory#MAX_SAMPLES} samples keeping each
 * bucket's largest RSS (so a short peak survives), in time order; a short one is listed whole.
 */
class ProcessMemoryTest {
    private static ProcessMemory.Sample sample(double t, long rss) {
        return new ProcessMemory.Sample(t, rss, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -1, 14);
    }

    @Test
    void aLongWindowKeepsEachBucketsLargestRss() {
        List<ProcessMemory.Sample> all = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            all.add(sample(i * 100.0, i == 7_777 ? 1L << 40 : 1000 + i % 5));
        }
        List<ProcessMemory.Sample> kept = ProcessMemory.downsample(all);
        assertThat(kept).hasSize(ProcessMemory.MAX_SAMPLES);
        assertThat(kept).extracting(ProcessMemory.Sample::rssBytes).contains(1L << 40)
                .allMatch(r -> r == 1004 || r == 1L << 40);
        for (int i = 1; i < kept.size(); i++) {
            assertThat(kept.get(i).timeMs()).isGreaterThan(kept.get(i - 1).timeMs());
        }
    }

    @Test
    void aShortWindowIsListedWhole() {
        List<ProcessMemory.Sample> all = List.of(sample(0, 5), sample(100, 6));
        assertThat(ProcessMemory.downsample(all)).isSameAs(all);
    }

    @Test
    void theNamedPartsLeaveUnknownOnesOut() {
        ProcessMemory.Sample s = new ProcessMemory.Sample(0, 100, 1, 40, 10, 5, -1, 20, -1, 25, -1, -1, -1, -1, -1, -1, -1);
        assertThat(s.namedBytes()).isEqualTo(75);
    }

    @Test
    void theHeapsResidentFigureReplacesItsCommittedOneAndFilesArePartOfTheSum() {
        // heap committed 40, resident 30 at the latest check; files 7 + 3
        ProcessMemory.Sample s = new ProcessMemory.Sample(0, 100, 1, 40, 10, 5, -1, 20, -1, 25, -1, 7, 3, -1, -1, 30, 10);
        assertThat(s.heapBytes()).isEqualTo(30);
        assertThat(s.namedBytes()).isEqualTo(30 + 10 + 5 + 20 + 10);
        // a check older than a shrink of the heap: never more than is committed now
        ProcessMemory.Sample shrunk = new ProcessMemory.Sample(0, 100, 1, 20, 10, 5, -1, 20, -1, 25, -1, -1, -1, -1, -1,
                30, -1);
        assertThat(shrunk.heapBytes()).isEqualTo(20);
    }
}
