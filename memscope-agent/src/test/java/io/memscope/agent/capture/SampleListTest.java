package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SampleListTest {
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    private final List<Object> keep = new ArrayList<>();

    private SampleRef ref(long id) {
        Object o = new Object();
        keep.add(o);
        return new SampleRef(o, queue, id, 1, 16, 1.0, 0, 1, 0);
    }

    private static Set<Long> ids(SampleList l) {
        Set<Long> s = new HashSet<>();
        l.forEach(r -> s.add(r.id));
        return s;
    }

    @Test
    void keepsEveryUnsettledReference() {
        SampleList l = new SampleList(0);
        Set<Long> expected = new HashSet<>();
        for (long i = 1; i <= 1000; i++) {
            l.add(ref(i));
            expected.add(i);
        }
        assertThat(ids(l)).isEqualTo(expected);
        assertThat(l.capacity()).isGreaterThanOrEqualTo(1000).isLessThanOrEqualTo(2048);
    }

    @Test
    void settledReferencesAreDroppedAndMemoryStaysBounded() {
        SampleList l = new SampleList(0);
        List<SampleRef> open = new ArrayList<>();
        Set<Long> expected = new HashSet<>();
        // A steady state: each new sample settles one older one, 20 stay unsettled at any time.
        for (long i = 1; i <= 100_000; i++) {
            SampleRef r = ref(i);
            l.add(r);
            open.add(r);
            expected.add(i);
            if (open.size() > 20) {
                SampleRef old = open.remove(0);
                assertThat(old.settle()).isTrue();
                expected.remove(old.id);
            }
            if (i % 10_000 == 0) {
                keep.clear(); // referents may go: forEach still lists what is not settled
            }
        }
        assertThat(ids(l)).isEqualTo(expected);
        assertThat(l.capacity()).isEqualTo(SampleList.MIN_CAPACITY);
        assertThat(l.size()).isLessThanOrEqualTo(SampleList.MIN_CAPACITY);
    }

    @Test
    void growsWhenMostReferencesAreUnsettledAndShrinksNever() {
        SampleList l = new SampleList(0);
        List<SampleRef> all = new ArrayList<>();
        for (long i = 1; i <= 5000; i++) {
            SampleRef r = ref(i);
            l.add(r);
            all.add(r);
        }
        int grown = l.capacity();
        assertThat(grown).isBetween(5000, 2 * 8192);
        for (SampleRef r : all) {
            r.settle();
        }
        assertThat(ids(l)).isEmpty();
        for (long i = 5001; i <= 5000 + grown; i++) {
            l.add(ref(i));
        }
        // The settled ones were compacted away: the room was reused, not doubled again.
        assertThat(l.capacity()).isEqualTo(grown);
        assertThat(ids(l)).hasSize(grown);
    }

    @Test
    void settleSucceedsOnce() {
        SampleRef r = ref(7);
        assertThat(r.settled()).isFalse();
        assertThat(r.settle()).isTrue();
        assertThat(r.settle()).isFalse();
        assertThat(r.settled()).isTrue();
    }
}
