package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.GcRecord.Examined;
import org.junit.jupiter.api.Test;

/** What a pause examined, from the beans placed in it: G1's marking ends (JDK 20 and later) and young pauses. */
class CollectionKindsTest {
    private static final String YOUNG = "G1 Young Generation";
    private static final String MARKING_END = "G1 Concurrent GC";

    @Test
    void aMarkingEndThatFreedSampledObjectsExaminedTheWholeHeap() {
        CollectionKinds kinds = new CollectionKinds(false, true, 0);
        assertThat(Examined.ofCode((int) kinds.pause(100, 110, new String[] {YOUNG}, 3, 50)[0]))
                .isEqualTo(Examined.YOUNG);
        long[] remark = kinds.pause(200, 210, new String[] {MARKING_END}, 5, 150);
        assertThat(Examined.ofCode((int) remark[0])).isEqualTo(Examined.WHOLE_HEAP);
        assertThat(remark[1]).as("its snapshot: at most its start").isLessThanOrEqualTo(200);
    }

    @Test
    void aPauseBothAMarkingEndAndAYoungBeanWerePlacedInIsNotKnown() {
        CollectionKinds kinds = new CollectionKinds(false, true, 0);
        kinds.pause(100, 110, new String[] {YOUNG}, 3, 50);
        // one pause cannot be both: the cut's matching could not tell them apart; what it freed may be young garbage
        long[] both = kinds.pause(200, 210, new String[] {MARKING_END, YOUNG}, 5, 150);
        assertThat(Examined.ofCode((int) both[0])).isEqualTo(Examined.UNKNOWN);
        assertThat(both[1]).isEqualTo(200);
        long[] other = kinds.pause(300, 310, new String[] {YOUNG, MARKING_END}, 0, Long.MIN_VALUE);
        assertThat(Examined.ofCode((int) other[0])).isEqualTo(Examined.UNKNOWN);
    }
}
