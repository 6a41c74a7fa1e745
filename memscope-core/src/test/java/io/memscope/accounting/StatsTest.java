package io.memscope.accounting;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLongArray;

import static io.memscope.accounting.Stats.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The performance schema's four count_alloc cases, their count_free mirrors, apply_*_delta and count_global_*. Thread
 * stats are kept in thread form (LOW and HIGH); {@link #caps} sets a state by the performance schema's capacities and
 * {@link #c} reads it back as capacities, so the expectations are the performance schema's own.
 */
class StatsTest {
    private final long[] t = new long[WIDTH];
    private final long[] d = new long[2];

    /** Sets the thread stat's watermarks so that its capacities are these (counters as they are). */
    private void caps(long allocCount, long allocSize, long freeCount, long freeSize) {
        long curCount = t[ALLOC_COUNT] - t[FREE_COUNT];
        long curBytes = t[ALLOC_SIZE] - t[FREE_SIZE];
        t[HIGH_COUNT] = curCount + allocCount;
        t[HIGH_SIZE] = curBytes + allocSize;
        t[LOW_COUNT] = curCount - freeCount;
        t[LOW_SIZE] = curBytes - freeSize;
    }

    /** @return the thread stat in the performance schema's capacity form */
    private long[] c() {
        long[] out = new long[WIDTH];
        toCapacities(t, 0, out, 0);
        return out;
    }

    @Test
    void alloc_case1_underBothHighWatermarks_noDelta() {
        caps(2, 500, 0, 0);
        assertThat(countAlloc(t, 0, 1, 100, d)).isZero();
        assertThat(t[ALLOC_COUNT]).isEqualTo(1);
        assertThat(t[ALLOC_SIZE]).isEqualTo(100);
        assertThat(c()[ALLOC_COUNT_CAP]).isEqualTo(1);
        assertThat(c()[ALLOC_SIZE_CAP]).isEqualTo(400);
        assertThat(c()[FREE_COUNT_CAP]).isEqualTo(1);
        assertThat(c()[FREE_SIZE_CAP]).isEqualTo(100);
    }

    @Test
    void alloc_case2_countCapacityButNotBytes_byteWatermarkRises() {
        caps(1, 30, 0, 0);
        assertThat(countAlloc(t, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(0, 70);
        assertThat(c()[ALLOC_COUNT_CAP]).isZero();
        assertThat(c()[ALLOC_SIZE_CAP]).isZero();
    }

    @Test
    void alloc_case3_noCapacity_bothWatermarksRise() {
        caps(0, 10, 0, 0);
        assertThat(countAlloc(t, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(1, 90);
        assertThat(c()[ALLOC_COUNT_CAP]).isZero();
        assertThat(c()[ALLOC_SIZE_CAP]).isZero();
    }

    @Test
    void alloc_case4_byteCapacityButNoCount_countWatermarkRises() {
        caps(0, 500, 0, 0);
        assertThat(countAlloc(t, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(1, 0);
        assertThat(c()[ALLOC_SIZE_CAP]).isEqualTo(400);
    }

    @Test
    void free_case1_aboveBothLowWatermarks_noDelta() {
        t[ALLOC_COUNT] = 3;
        t[ALLOC_SIZE] = 300;
        caps(0, 0, 2, 250);
        assertThat(countFree(t, 0, 1, 100, d)).isZero();
        assertThat(t[FREE_COUNT]).isEqualTo(1);
        assertThat(t[FREE_SIZE]).isEqualTo(100);
        assertThat(c()[FREE_COUNT_CAP]).isEqualTo(1);
        assertThat(c()[FREE_SIZE_CAP]).isEqualTo(150);
        assertThat(c()[ALLOC_COUNT_CAP]).isEqualTo(1);
        assertThat(c()[ALLOC_SIZE_CAP]).isEqualTo(100);
    }

    @Test
    void free_case2_countCapacityButNotBytes_byteLowWatermarkFalls() {
        caps(0, 0, 1, 30);
        assertThat(countFree(t, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(0, 70);
        assertThat(c()[FREE_COUNT_CAP]).isZero();
        assertThat(c()[FREE_SIZE_CAP]).isZero();
    }

    @Test
    void free_case3_noCapacity_bothLowWatermarksFall() {
        caps(0, 0, 0, 10);
        assertThat(countFree(t, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(1, 90);
    }

    @Test
    void free_case4_byteCapacityButNoCount_countLowWatermarkFalls() {
        caps(0, 0, 0, 500);
        assertThat(countFree(t, 0, 1, 100, d)).isNotZero();
        assertThat(d).containsExactly(1, 0);
        assertThat(c()[FREE_SIZE_CAP]).isEqualTo(400);
    }

    @Test
    void watermarksFollowCurrent_onASequence() {
        long cur = 0;
        long high = 0;
        long low = 0;
        long[] sizes = {100, 50, -120, 300, -30, -300, 10};
        for (long z : sizes) {
            if (z > 0) {
                countAlloc(t, 0, 1, z, d);
                cur += z;
            } else {
                countFree(t, 0, 1, -z, d);
                cur += z;
            }
            high = Math.max(high, cur);
            low = Math.min(low, cur);
            long current = t[ALLOC_SIZE] - t[FREE_SIZE];
            assertThat(current).isEqualTo(cur);
            assertThat(current + c()[ALLOC_SIZE_CAP]).as("HIGH").isEqualTo(high);
            assertThat(current - c()[FREE_SIZE_CAP]).as("LOW").isEqualTo(Math.min(low, 0));
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
        countAlloc(t, 0, 1, 100, d);
        countAlloc(t, 0, 1, 50, d);
        countFree(t, 0, 1, 100, d);
        rebase(t, 0);
        assertThat(t[ALLOC_COUNT]).isEqualTo(1);
        assertThat(t[FREE_COUNT]).isZero();
        assertThat(t[ALLOC_SIZE]).isEqualTo(50);
        assertThat(t[FREE_SIZE]).isZero();
        long[] caps = c();
        for (int i = ALLOC_COUNT_CAP; i <= FREE_SIZE_CAP; i++) {
            assertThat(caps[i]).isZero();
        }
        assertThat(t[HIGH_SIZE]).isEqualTo(50);
        assertThat(t[LOW_SIZE]).isEqualTo(50);
    }

    @Test
    void readThread_restoresLowCurrentHighOrderOfARacyCopy() {
        long[] torn = new long[WIDTH];
        torn[ALLOC_COUNT] = 3;      // the third alloc is stored, its HIGH not yet
        torn[ALLOC_SIZE] = 300;
        torn[HIGH_COUNT] = 2;
        torn[HIGH_SIZE] = 200;
        torn[LOW_COUNT] = 0;
        long[] v = new long[WIDTH];
        readThread(torn, 0, v, 0);
        assertThat(v[HIGH_COUNT]).isEqualTo(3);
        assertThat(v[HIGH_SIZE]).isEqualTo(300);
        long[] caps = new long[WIDTH];
        toCapacities(v, 0, caps, 0);
        for (int i = ALLOC_COUNT_CAP; i <= FREE_SIZE_CAP; i++) {
            assertThat(caps[i]).isNotNegative();
        }
    }
}
