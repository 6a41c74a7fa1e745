package io.memscope.analysis;

import java.util.Arrays;

/**
 * The median of a site's sample lifetimes in bounded memory: exact while the site has at most {@value #EXACT}
 * collected samples (the values are kept), then estimated from a log-linear histogram with {@value #SUB_BUCKETS}
 * sub-buckets per power of two, whose relative error is at most 1/{@value #SUB_BUCKETS} (about 3%) — well inside
 * the lifetimes' own precision (the agent observes collections about every 100 ms).
 *
 * <p><b>The histogram</b> has {@value #ROWS} rows of {@value #SUB_BUCKETS} buckets: row 0 holds the values below
 * {@value #SUB_BUCKETS} one per bucket, row {@code r >= 1} the values of {@code [2^(r+4), 2^(r+5))} in equal
 * sub-ranges. Only the rows from the lowest to the highest in use are kept, as {@code int} counts:
 * <pre>
 *   counts[0 .. 31]    row lowRow      (bucket lowRow * 32 + 0 .. 31)
 *   counts[32 .. 63]   row lowRow + 1
 *   ...                                 grown at either end when a value falls outside
 * </pre>
 * A site's lifetimes span a few powers of two (a young collection's period, a whole-heap collection's): a few hundred
 * bytes, not a 16 KiB table per site, so that the tables of thousands of sites stay in the cache while the replay
 * adds to them in any order. Counts are widened to {@code long} before any could pass {@link Integer#MAX_VALUE}.
 * The medians are those of the full table: the same buckets, summed in the same order.
 */
final class LifetimeMedian {
    static final int EXACT = 4096;
    static final int SUB_BUCKETS = 32;
    private static final int SUB_BITS = 5;
    /** Rows of the whole histogram: row 0, and one per power of two from {@code 2^SUB_BITS} to {@code 2^63}. */
    static final int ROWS = 64 - SUB_BITS + 1;

    /** Values added up to which counts are ints (a bucket holds at most every value added). */
    private final long narrowLimit;
    private long[] values = new long[16];
    private int size;
    /** Histogram mode: the counts of rows {@code lowRow ..} in order, as ints, or {@link #wide} once widened. */
    private int[] counts;
    private long[] wide;
    private int lowRow;
    /** Buckets held: {@code counts.length} or {@code wide.length}. */
    private int span;
    private long count;

    LifetimeMedian() {
        this(Integer.MAX_VALUE);
    }

    /** @param narrowLimit values added up to which counts are kept as ints (tests lower it) */
    LifetimeMedian(long narrowLimit) {
        this.narrowLimit = Math.min(narrowLimit, Integer.MAX_VALUE);
    }

    void add(long lifetimeNanos) {
        long v = Math.max(0, lifetimeNanos);
        count++;
        if (span == 0) {
            if (size == values.length) {
                if (size == EXACT) {
                    toHistogram(v);
                    return;
                }
                values = Arrays.copyOf(values, Math.min(EXACT, size * 2));
            }
            values[size++] = v;
        } else {
            count(bucket(v));
        }
    }

    private void toHistogram(long v) {
        int b = bucket(values[0]);
        lowRow = b >>> SUB_BITS;
        counts = new int[SUB_BUCKETS];
        span = SUB_BUCKETS;
        for (int i = 0; i < size; i++) {
            count(bucket(values[i]));
        }
        values = null;
        count(bucket(v));
    }

    private void count(int b) {
        int i = b - (lowRow << SUB_BITS);
        if (i < 0 || i >= span) {
            cover(b >>> SUB_BITS);
            i = b - (lowRow << SUB_BITS);
        }
        if (wide != null) {
            wide[i]++;
        } else if (count <= narrowLimit) {
            counts[i]++;
        } else {
            wide = new long[span];
            for (int j = 0; j < span; j++) {
                wide[j] = counts[j];
            }
            counts = null;
            wide[i]++;
        }
    }

    /** Extends the rows kept to {@code row}. */
    private void cover(int row) {
        int low = Math.min(lowRow, row);
        int high = Math.max(lowRow + (span >>> SUB_BITS) - 1, row);
        int n = (high - low + 1) << SUB_BITS;
        int shift = (lowRow - low) << SUB_BITS;
        if (wide != null) {
            long[] w = new long[n];
            System.arraycopy(wide, 0, w, shift, span);
            wide = w;
        } else {
            int[] c = new int[n];
            System.arraycopy(counts, 0, c, shift, span);
            counts = c;
        }
        lowRow = low;
        span = n;
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
        if (span == 0) {
            long[] v = Arrays.copyOf(values, size);
            Arrays.sort(v);
            return v[size / 2];
        }
        long rank = count / 2; // the same element the exact branch picks
        long seen = 0;
        for (int i = 0; i < span; i++) {
            seen += wide != null ? wide[i] : counts[i];
            if (seen > rank) {
                return middle((lowRow << SUB_BITS) + i);
            }
        }
        return middle(64 * SUB_BUCKETS - 1); // not reached: the counts sum to count
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
