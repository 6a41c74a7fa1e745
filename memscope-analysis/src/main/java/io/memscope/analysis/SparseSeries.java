package io.memscope.analysis;

import java.util.Arrays;

/**
 * A sparse series over the buckets of a {@link Timeline}: the buckets that have a value, in increasing order, and
 * their values. Immutable.
 */
public final class SparseSeries {
    private final int[] buckets;
    private final long[] values;

    SparseSeries(int[] buckets, long[] values) {
        this.buckets = buckets;
        this.values = values;
    }

    /** @return number of buckets with a value */
    public int size() {
        return buckets.length;
    }

    /** @return the bucket index of entry {@code i} (increasing with {@code i}) */
    public int bucket(int i) {
        return buckets[i];
    }

    /** @return the value of entry {@code i} */
    public long value(int i) {
        return values[i];
    }

    /** @return the value of bucket {@code bucket}, 0 when it has none */
    public long get(int bucket) {
        int i = Arrays.binarySearch(buckets, bucket);
        return i < 0 ? 0 : values[i];
    }

    /** @return the sum over buckets {@code from..to} inclusive: a time-range selection */
    public long sum(int from, int to) {
        long s = 0;
        for (int i = 0; i < buckets.length; i++) {
            if (buckets[i] >= from && buckets[i] <= to) {
                s += values[i];
            }
        }
        return s;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < buckets.length; i++) {
            b.append(i == 0 ? "" : ", ").append(buckets[i]).append('=').append(values[i]);
        }
        return b.append('}').toString();
    }
}
