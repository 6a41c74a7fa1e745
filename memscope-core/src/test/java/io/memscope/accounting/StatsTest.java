package io.memscope.accounting;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLongArray;

import static io.memscope.accounting.Stats.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The seed's four count_alloc cases, their count_free mirrors, apply_*_delta and count_global_*. */
class StatsTest {
    private final long[] s = new long[WIDTH];
    private final long[] d = new long[2];

    private void caps(long allocCount, long allocSize, long freeCount, long freeSize) {
        s[ALLOC_COUNT_CAP] = allocCount;
        s[ALLOC_SIZE_CAP] = allocSize;
        s[FREE_COUNT_CAP] = freeCount;
        s[FREE_SIZE_CAP] = freeSize;
    }

    @Test
    void alloc_case1_underBothHighWatermarks_noDelta() {
        caps(2, 500, 0, 0);
        assertThat(countAlloc(s, 0, 1, 100, d)).isZero();
        assertThat(s[ALLOC_COUNT]).isEqualTo(1);
        assertThat(s[ALLOC_SIZE]).isEqualTo(100);
        assertThat(s[ALLOC_COUNT_CAP]).isEqualTo(1);
        assertThat(s[ALLOC_SIZE_CAP]).isEqualTo(400);
        assertThat(s[FREE_COUNT_CAP]).isEqualTo(1);
        assertThat(s[FREE_SIZE_CAP]).isEqualTo(100);
    }

    @Test
    void alloc_case2_countCapacityButNotBytes_byteWatermarkRises() {
        caps(1, 30, 0, 0);
        assertThat(countAlloc(s, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(0, 70);
        assertThat(s[ALLOC_COUNT_CAP]).isZero();
        assertThat(s[ALLOC_SIZE_CAP]).isZero();
    }

    @Test
    void alloc_case3_noCapacity_bothWatermarksRise() {
        caps(0, 10, 0, 0);
        assertThat(countAlloc(s, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(1, 90);
        assertThat(s[ALLOC_COUNT_CAP]).isZero();
        assertThat(s[ALLOC_SIZE_CAP]).isZero();
    }

    @Test
    void alloc_case4_byteCapacityButNoCount_countWatermarkRises() {
        caps(0, 500, 0, 0);
        assertThat(countAlloc(s, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(1, 0);
        assertThat(s[ALLOC_SIZE_CAP]).isEqualTo(400);
    }

    @Test
    void free_case1_aboveBothLowWatermarks_noDelta() {
        s[ALLOC_COUNT] = 3;
        s[ALLOC_SIZE] = 300;
        caps(0, 0, 2, 250);
        assertThat(countFree(s, 0, 1, 100, d)).isZero();
        assertThat(s[FREE_COUNT]).isEqualTo(1);
        assertThat(s[FREE_SIZE]).isEqualTo(100);
        assertThat(s[FREE_COUNT_CAP]).isEqualTo(1);
        assertThat(s[FREE_SIZE_CAP]).isEqualTo(150);
        assertThat(s[ALLOC_COUNT_CAP]).isEqualTo(1);
        assertThat(s[ALLOC_SIZE_CAP]).isEqualTo(100);
    }

    @Test
    void free_case2_countCapacityButNotBytes_byteLowWatermarkFalls() {
        caps(0, 0, 1, 30);
        assertThat(countFree(s, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(0, 70);
        assertThat(s[FREE_COUNT_CAP]).isZero();
        assertThat(s[FREE_SIZE_CAP]).isZero();
    }

    @Test
    void free_case3_noCapacity_bothLowWatermarksFall() {
        caps(0, 0, 0, 10);
        assertThat(countFree(s, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(1, 90);
    }

    @Test
    void free_case4_byteCapacityButNoCount_countLowWatermarkFalls() {
        caps(0, 0, 0, 500);
        assertThat(countFree(s, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(1, 0);
        assertThat(s[FREE_SIZE_CAP]).isEqualTo(400);
    }

    @Test
    void watermarksFollowCurrent_onASequence() {
        long cur = 0;
        long high = 0;
        long low = 0;
        long[] sizes = {100, 50, -120, 300, -30, -300, 10};
        for (long z : sizes) {
            if (z > 0) {
                countAlloc(s, 0, 1, z, d);
                cur += z;
            } else {
                countFree(s, 0, 1, -z, d);
                cur += z;
            }
            high = Math.max(high, cur);
            low = Math.min(low, cur);
            long current = s[ALLOC_SIZE] - s[FREE_SIZE];
            assertThat(current).isEqualTo(cur);
            assertThat(current + s[ALLOC_SIZE_CAP]).as("HIGH").isEqualTo(high);
            assertThat(current - s[FREE_SIZE_CAP]).as("LOW").isEqualTo(Math.min(low, 0));
        }
    }

    @Test
    void absorb_takesWhatItCanAndReturnsTheRest() {
        AtomicLongArray a = new AtomicLongArray(WIDTH);
        assertThat(absorb(a, ALLOC_SIZE_CAP, 50)).isEqualTo(50);
        a.set(ALLOC_SIZE_CAP, 30);
        assertThat(absorb(a, ALLOC_SIZE_CAP, 50)).isEqualTo(20);
        assertThat(a.get(ALLOC_SIZE_CAP)).isZero();
        a.set(ALLOC_SIZE_CAP, 80);
        assertThat(absorb(a, ALLOC_SIZE_CAP, 50)).isZero();
        assertThat(a.get(ALLOC_SIZE_CAP)).isEqualTo(30);
        assertThat(absorb(a, ALLOC_SIZE_CAP, 0)).isZero();
    }

    @Test
    void globalAllocAndFree_keepCapacitiesNonNegativeAndExact() {
        AtomicLongArray a = new AtomicLongArray(WIDTH);
        sharedAlloc(a, 0, 1, 100, d);                // HIGH 100
        assertThat(d).containsExactly(1, 100);
        sharedFree(a, 0, 1, 100, d);                 // cur 0, alloc cap 100
        assertThat(a.get(ALLOC_SIZE_CAP)).isEqualTo(100);
        assertThat(d).containsExactly(0, 0);
        sharedAlloc(a, 0, 1, 40, d);                 // within HIGH
        assertThat(d).containsExactly(0, 0);
        assertThat(a.get(ALLOC_SIZE_CAP)).isEqualTo(60);
        sharedAlloc(a, 0, 1, 100, d);                // cur 140 > HIGH 100
        assertThat(d).containsExactly(1, 40);
        assertThat(a.get(ALLOC_SIZE_CAP)).isZero();
        assertThat(a.get(ALLOC_SIZE) - a.get(FREE_SIZE)).isEqualTo(140);
    }

    @Test
    void rebase_keepsCurrentAndCollapsesWatermarks() {
        countAlloc(s, 0, 1, 100, d);
        countAlloc(s, 0, 1, 50, d);
        countFree(s, 0, 1, 100, d);
        rebase(s, 0);
        assertThat(s[ALLOC_COUNT]).isEqualTo(1);
        assertThat(s[FREE_COUNT]).isZero();
        assertThat(s[ALLOC_SIZE]).isEqualTo(50);
        assertThat(s[FREE_SIZE]).isZero();
        for (int i = ALLOC_COUNT_CAP; i <= FREE_SIZE_CAP; i++) {
            assertThat(s[i]).isZero();
        }
    }
}
