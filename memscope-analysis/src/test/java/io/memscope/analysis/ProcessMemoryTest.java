package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * report.json's process memory: a long window is cut to {@value ProcessMemory#MAX_SAMPLES} samples keeping each
 * bucket's largest RSS (so a short peak survives), in time order; a short one is listed whole. The peak takes the
 * resident figures of the resident check's pass nearest to it, which a later sample carries.
 */
class ProcessMemoryTest {
    private static ProcessMemory.Sample sample(double t, long rss) {
        return new ProcessMemory.Sample(t, rss, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -1, 14, Double.NaN);
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
        ProcessMemory.Sample s = new ProcessMemory.Sample(0, 100, 1, 40, 10, 5, -1, 20, -1, 25, -1, -1, -1, -1, -1, -1, -1,
                Double.NaN);
        assertThat(s.namedBytes()).isEqualTo(75);
    }

    @Test
    void theHeapsResidentFigureReplacesItsCommittedOneAndFilesArePartOfTheSum() {
        // heap committed 40, resident 30 at the latest check; files 7 + 3
        ProcessMemory.Sample s = new ProcessMemory.Sample(0, 100, 1, 40, 10, 5, -1, 20, -1, 25, -1, 7, 3, -1, -1, 30, 10,
                Double.NaN);
        assertThat(s.heapBytes()).isEqualTo(30);
        assertThat(s.namedBytes()).isEqualTo(30 + 10 + 5 + 20 + 10);
        // a check older than a shrink of the heap: never more than is committed now
        ProcessMemory.Sample shrunk = new ProcessMemory.Sample(0, 100, 1, 20, 10, 5, -1, 20, -1, 25, -1, -1, -1, -1, -1,
                30, -1, Double.NaN);
        assertThat(shrunk.heapBytes()).isEqualTo(20);
    }

    /** RSS 200 at 1000 ms; heap committed 150; the resident figures (heap, code, stacks) of a pass at {@code at}. */
    private static ProcessMemory.Sample withPass(double t, long rss, long heapResident, double at) {
        return new ProcessMemory.Sample(t, rss, 1, 150, 10, 2, 3, 0, 5, -1, -1, 20, 0, 0, 4, heapResident, 20, at)
                .withOther();
    }

    @Test
    void thePeakTakesTheResidentFiguresOfThePassNearestToIt() {
        // a pass at 0 ms saw 16 of heap; RSS grew to 200 at 1000 ms; a pass asked for then ran at 1040 ms (140 of
        // heap), carried from the sample at 1100 ms; another at 5000 ms
        List<ProcessMemory.Sample> all = List.of(withPass(0, 60, 16, 0), withPass(900, 150, 16, 0),
                withPass(1000, 200, 16, 0), withPass(1100, 199, 140, 1040), withPass(5000, 100, 60, 4990));
        ProcessMemory.Sample nearest = ProcessMemory.nearestPass(all, 1000, 200);
        assertThat(nearest.residentAtMs()).isEqualTo(1040);
        ProcessMemory.Sample peak = all.get(2).withResidentOf(nearest);
        assertThat(peak.rssBytes()).isEqualTo(200);
        assertThat(peak.heapBytes()).isEqualTo(140);
        assertThat(peak.residentAgeMs()).isEqualTo(40);
        // 200 - (140 + 10 + 2 + 3 + 5 + 20)
        assertThat(peak.otherBytes()).isEqualTo(20);
        assertThat(all.get(2).otherBytes()).isEqualTo(200 - (16 + 10 + 2 + 3 + 5 + 20));
        assertThat(ProcessMemorySummary.residentAge(peak))
                .isEqualTo("; resident figures measured 40 ms after the peak");
    }

    @Test
    void withoutResidentFiguresThePeakIsItsOwnSample() {
        List<ProcessMemory.Sample> all = List.of(sample(0, 5), sample(100, 6));
        ProcessMemory.Sample peak = all.get(1).withResidentOf(ProcessMemory.nearestPass(all, 100, 6));
        assertThat(peak).isEqualTo(all.get(1));
        assertThat(ProcessMemorySummary.residentAge(peak)).isEmpty();
    }

    @Test
    void aPassBeforeThePeakIsTakenWhenItIsTheNearest() {
        List<ProcessMemory.Sample> all = List.of(withPass(0, 60, 16, 0), withPass(950, 190, 120, 930),
                withPass(1000, 200, 120, 930), withPass(3000, 100, 60, 2990));
        ProcessMemory.Sample peak = all.get(2).withResidentOf(ProcessMemory.nearestPass(all, 1000, 200));
        assertThat(peak.residentAgeMs()).isEqualTo(-70);
        assertThat(ProcessMemorySummary.residentAge(peak))
                .isEqualTo("; resident figures measured 70 ms before the peak");
    }

    /**
     * A full collection right after the peak returned most of the heap to the OS: the pass nearest in time (after it)
     * saw a resident set of 90 where the peak had 200; the one before saw 195, about the peak's memory, and stands
     * for it.
     */
    @Test
    void aPassAfterACollectionThatShrankTheProcessDoesNotStandForThePeak() {
        List<ProcessMemory.Sample> all = List.of(withPass(0, 60, 16, 0), withPass(700, 195, 130, 690),
                withPass(1000, 200, 130, 690), withPass(1100, 90, 30, 1050), withPass(3000, 95, 30, 1050));
        ProcessMemory.Sample peak = all.get(2).withResidentOf(ProcessMemory.nearestPass(all, 1000, 200));
        assertThat(peak.residentAgeMs()).isEqualTo(-310);
        assertThat(peak.heapBytes()).isEqualTo(130);
        assertThat(ProcessMemory.nearestPass(all, 1000, -1).residentAtMs()).as("by time alone").isEqualTo(1050);
    }
}
