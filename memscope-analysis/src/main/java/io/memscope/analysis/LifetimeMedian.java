package io.memscope.analysis;

import java.util.Arrays;

/**
 * The median of a site's sample lifetimes in bounded memory: exact while the site has at most {@value #EXACT}
 * collected samples (the values are kept), then estimated from a log-linear histogram with {@value #SUB_BUCKETS}
 * sub-buckets per power of two, whose relative error is at most 1/{@value #SUB_BUCKETS} (about 3%) — well inside
 * the lifetimes' own precision (the agent observes collections about every 100 ms).
 */
final class LifetimeMedian {
    static final int EXACT = 4096;
    static final int SUB_BUCKETS = 32;
    private static final int SUB_BITS = 5;

    private long[] values = new long[16];
    private int size;
    private long[] histogram;
    private long count;

    void add(long lifetimeNanos) {
        long v = Math.max(0, lifetimeNanos);
        count++;
        if (histogram == null) {
            if (size == values.length) {
                if (size == EXACT) {
                    histogram = new long[64 * SUB_BUCKETS];
                    for (int i = 0; i < size; i++) {
                        histogram[bucket(values[i])]++;
                    }
                    values = null;
                    histogram[bucket(v)]++;
                    return;
                }
                values = Arrays.copyOf(values, Math.min(EXACT, size * 2));
            }
            values[size++] = v;
        } else {
            histogram[bucket(v)]++;
        }
    }

    /** @return values added */
    long count() {
        return count;
    }

    /** @return the median lifetime in nanoseconds (the upper median of an even count), or -1 if there is none */
    long medianNanos() {
        if (count == 0) {
            return -1;
        }
        if (histogram == null) {
            long[] v = Arrays.copyOf(values, size);
            Arrays.sort(v);
            return v[size / 2];
        }
        long rank = count / 2; // the same element the exact branch picks
        long seen = 0;
        for (int b = 0; b < histogram.length; b++) {
            seen += histogram[b];
            if (seen > rank) {
                return middle(b);
            }
        }
        return middle(histogram.length - 1);
    }

    /** Values below 2^SUB_BITS have a bucket each; above, each power of two splits into SUB_BUCKETS buckets. */
    static int bucket(long v) {
        if (v < SUB_BUCKETS) {
            return (int) v;
        }
        int exp = 63 - Long.numberOfLeadingZeros(v); // >= SUB_BITS
        int sub = (int) ((v >>> (exp - SUB_BITS)) & (SUB_BUCKETS - 1));
        return (exp - SUB_BITS + 1) * SUB_BUCKETS + sub;
    }

    /** @return the middle of bucket {@code b}'s value range */
    static long middle(int b) {
        if (b < SUB_BUCKETS) {
            return b;
        }
        int exp = b / SUB_BUCKETS + SUB_BITS - 1;
        long sub = b % SUB_BUCKETS;
        long low = (1L << exp) + (sub << (exp - SUB_BITS));
        long width = 1L << (exp - SUB_BITS);
        return low + width / 2;
    }
}
