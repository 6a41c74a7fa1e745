package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * {@link LifetimeMedian}'s compact histogram (the rows in use, int counts) gives the medians of the full table of
 * long counts it replaced, kept here as the reference: after every value, on random and adversarial inputs.
 */
class LifetimeMedianTest {

    /** The full histogram: 64 rows of 32 long counts per site, the layout the compact one must agree with. */
    private static final class FullTable {
        private final long[] values = new long[LifetimeMedian.EXACT];
        private int size;
        private long[] histogram;
        private long count;

        void add(long lifetime) {
            long v = Math.max(0, lifetime);
            count++;
            if (histogram == null && size < LifetimeMedian.EXACT) {
                values[size++] = v;
                return;
            }
            if (histogram == null) {
                histogram = new long[64 * LifetimeMedian.SUB_BUCKETS];
                for (int i = 0; i < size; i++) {
                    histogram[LifetimeMedian.bucket(values[i])]++;
                }
            }
            histogram[LifetimeMedian.bucket(v)]++;
        }

        long median() {
            if (count == 0) {
                return -1;
            }
            if (histogram == null) {
                long[] v = Arrays.copyOf(values, size);
                Arrays.sort(v);
                return v[size / 2];
            }
            long seen = 0;
            for (int b = 0; b < histogram.length; b++) {
                seen += histogram[b];
                if (seen > count / 2) {
                    return LifetimeMedian.middle(b);
                }
            }
            throw new AssertionError();
        }
    }

    private static void sameMedians(LifetimeMedian m, int n, LongSupplier values) {
        FullTable full = new FullTable();
        assertThat(m.medianNanos()).isEqualTo(-1);
        for (int i = 0; i < n; i++) {
            long v = values.getAsLong();
            m.add(v);
            full.add(v);
            if (i < 64 || Math.abs(i - LifetimeMedian.EXACT) < 64 || i % 97 == 0 || i == n - 1) {
                assertThat(m.medianNanos()).as("after %d values", i + 1).isEqualTo(full.median());
            }
        }
        assertThat(m.count()).isEqualTo(n);
    }

    @Test
    void randomLifetimesGiveTheFullTablesMedians() {
        SplittableRandom r = new SplittableRandom(24);
        for (int run = 0; run < 20; run++) {
            int bits = 1 + r.nextInt(62);
            long scale = 1L << r.nextInt(40);
            // log-uniform over a random range, exponential around a collection period, and a mix of the two
            sameMedians(new LifetimeMedian(), 20_000, () -> r.nextLong() >>> (63 - r.nextInt(bits + 1)));
            sameMedians(new LifetimeMedian(), 20_000, () -> (long) (-Math.log(1 - r.nextDouble()) * scale));
            sameMedians(new LifetimeMedian(), 20_000, () -> r.nextInt(10) == 0 ? r.nextLong(1L << 45)
                    : 3_000_000_000L + r.nextLong(-1_000_000_000L, 1_000_000_000L));
        }
    }

    @Test
    void adversarialLifetimesGiveTheFullTablesMedians() {
        // the extremes alternate: the rows kept grow at both ends to the whole table
        long[] extremes = {0, Long.MAX_VALUE, 31, 32, -5, Long.MIN_VALUE, 1L << 62, (1L << 62) - 1};
        int[] i = {0};
        sameMedians(new LifetimeMedian(), 10_000, () -> extremes[i[0]++ % extremes.length]);
        // one new lower row after another, then one new higher row after another
        long[] v = {1L << 62};
        sameMedians(new LifetimeMedian(), 10_000, () -> v[0] = Math.max(1, v[0] >>> 1 | (v[0] & 1)));
        long[] w = {1};
        sameMedians(new LifetimeMedian(), 10_000, () -> w[0] = w[0] < (1L << 61) ? w[0] * 2 + 1 : 5);
        // every value in one bucket; the exact part alone; values all equal to the histogram's first row's
        sameMedians(new LifetimeMedian(), 10_000, () -> 1_000_000);
        SplittableRandom r = new SplittableRandom(7);
        sameMedians(new LifetimeMedian(), LifetimeMedian.EXACT, () -> r.nextLong());
        sameMedians(new LifetimeMedian(), LifetimeMedian.EXACT + 1, () -> r.nextInt(32));
    }

    @Test
    void countsWidenedToLongsKeepTheMedians() {
        // counts widen once more values were added than an int bucket could be proven to hold (lowered here)
        SplittableRandom r = new SplittableRandom(11);
        sameMedians(new LifetimeMedian(LifetimeMedian.EXACT + 100), 30_000,
                () -> r.nextInt(4) == 0 ? r.nextLong(1L << 20) : r.nextLong(1L << 40, 1L << 42));
        long[] v = {3};
        sameMedians(new LifetimeMedian(LifetimeMedian.EXACT + 1), 10_000, () -> v[0] = v[0] * 3 % 1_000_003 << 20);
    }
}
