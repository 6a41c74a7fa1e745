package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.Site;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A stack's spread over the timeline's buckets: the same buckets and sums, in the same order, as the plain rule. */
class StackTallyTest {
    /** The rule without the shortcut for a bucket later than all kept: scan the last four, else append. */
    private static final class Plain {
        int[] buckets = new int[4];
        double[] bytes = new double[4];
        int count;
        int open = -1;
        double openBytes;

        void add(int b, double x) {
            if (b == open) {
                openBytes += x;
                return;
            }
            close();
            open = b;
            openBytes = x;
        }

        void close() {
            if (open < 0) {
                return;
            }
            for (int i = count - 1; i >= 0 && i >= count - 4; i--) {
                if (buckets[i] == open) {
                    bytes[i] += openBytes;
                    open = -1;
                    return;
                }
            }
            if (count == buckets.length) {
                buckets = Arrays.copyOf(buckets, count * 2);
                bytes = Arrays.copyOf(bytes, count * 2);
            }
            buckets[count] = open;
            bytes[count++] = openBytes;
            open = -1;
        }
    }

    @Test
    void spreadsAsThePlainRuleOnOrderedAndLateBuckets() {
        Random rnd = new Random(5);
        SiteTally site = new SiteTally(0, new Site(1, "a.A", "m", "A.java", 1, "byte[]"), "byte[]");
        for (int round = 0; round < 200; round++) {
            StackTally s = new StackTally(0, 1, site);
            Plain p = new Plain();
            int b = 0;
            for (int i = rnd.nextInt(2_000); i > 0; i--) {
                int k = rnd.nextInt(100);
                b = k < 60 ? b : k < 90 ? Math.min(199, b + 1 + rnd.nextInt(3)) : Math.max(0, b - rnd.nextInt(8));
                double x = rnd.nextDouble() * 1e6;
                s.addToBucket(b, x);
                p.add(b, x);
            }
            s.closeBucket();
            p.close();
            assertThat(s.bucketCount).isEqualTo(p.count);
            assertThat(Arrays.copyOf(s.buckets, s.bucketCount)).containsExactly(Arrays.copyOf(p.buckets, p.count));
            for (int i = 0; i < p.count; i++) {
                assertThat(Double.doubleToLongBits(s.bucketBytes[i])).isEqualTo(Double.doubleToLongBits(p.bytes[i]));
            }
        }
    }
}
