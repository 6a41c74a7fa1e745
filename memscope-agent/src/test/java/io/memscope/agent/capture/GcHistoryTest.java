package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.GcRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The MXBean's GC history: sized by the heap, the latest kept, and one copy of each collector text. */
class GcHistoryTest {

    private static GcRecord record(long i) {
        return new GcRecord(i, 1, "Copy", "Allocation Failure", 0, 0, 0, "end of minor GC",
                GcRecord.Examined.YOUNG, i, i);
    }

    @Test
    void keepsFewerRecordsInASmallHeap() {
        assertThat(new GcHistory(8L << 20).kept()).isEqualTo(1024);
        assertThat(new GcHistory(1L << 20).kept()).isEqualTo(GcHistory.FEWEST);
        assertThat(new GcHistory(1L << 30).kept()).isEqualTo(GcHistory.MOST);
        assertThat(new GcHistory(Long.MAX_VALUE).kept()).isEqualTo(GcHistory.MOST);
    }

    @Test
    void aReaderBehindGetsTheOldestKeptThenTheRestInOrder() {
        GcHistory h = new GcHistory(1L << 20);
        for (long i = 0; i < 1000; i++) {
            h.add(record(i));
        }
        assertThat(h.count()).isEqualTo(1000);
        List<GcRecord> all = h.since(0, Integer.MAX_VALUE);
        assertThat(all).hasSize(GcHistory.FEWEST);
        assertThat(all.get(0).startNanos()).isEqualTo(1000 - GcHistory.FEWEST);
        assertThat(all.get(all.size() - 1).startNanos()).isEqualTo(999);
        assertThat(h.since(990, 5)).extracting(GcRecord::startNanos).containsExactly(990L, 991L, 992L, 993L, 994L);
        assertThat(h.since(1000, 5)).isEmpty();
    }

    @Test
    void collectorTextsAreSharedNotCopied() {
        String a = new String("G1 Evacuation Pause".toCharArray());
        String b = new String("G1 Evacuation Pause".toCharArray());
        assertThat(a).isNotSameAs(b);
        assertThat(GcDetails.canonical(a)).isSameAs(GcDetails.canonical(b));
        assertThat(GcDetails.canonical(null)).isNull();
        GcDetails d = new GcDetails(new String("Copy".toCharArray()), null, new String("x".toCharArray()), 0, 0, 0, 0,
                0, 0, 0, true);
        assertThat(d.name).isSameAs("Copy");
    }
}
