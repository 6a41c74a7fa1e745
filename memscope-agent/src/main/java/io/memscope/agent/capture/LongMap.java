package io.memscope.agent.capture;

import java.util.Arrays;

/**
 * A map from {@code long} keys to objects for one thread (the drain thread): open addressing with linear probing
 * over power-of-two arrays, no boxing, grown at half full. Keys may be any value, 0 included.
 *
 * @param <V> the value type
 */
final class LongMap<V> {
    private long[] keys;
    private Object[] values;
    private int size;

    LongMap(int initialCapacity) {
        int c = Integer.highestOneBit(Math.max(8, initialCapacity) - 1) << 1;
        keys = new long[c];
        values = new Object[c];
    }

    /** @return the value of {@code key}, or null */
    @SuppressWarnings("unchecked")
    V get(long key) {
        int mask = keys.length - 1;
        for (int i = spread(key) & mask; ; i = (i + 1) & mask) {
            Object v = values[i];
            if (v == null) {
                return null;
            }
            if (keys[i] == key) {
                return (V) v;
            }
        }
    }

    /** Puts {@code value} (not null) for {@code key}, replacing an earlier value. */
    void put(long key, V value) {
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = spread(key) & mask; ; i = (i + 1) & mask) {
            if (values[i] == null) {
                keys[i] = key;
                values[i] = value;
                size++;
                return;
            }
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
        }
    }

    /** @return the number of keys */
    int size() {
        return size;
    }

    void clear() {
        Arrays.fill(values, null);
        size = 0;
    }

    /**
     * Removes the keys whose value {@code drop} accepts (the map is rebuilt at its capacity).
     *
     * @return the keys removed
     */
    @SuppressWarnings("unchecked")
    int removeIf(java.util.function.Predicate<? super V> drop) {
        long[] k = keys;
        Object[] v = values;
        keys = new long[k.length];
        values = new Object[v.length];
        int before = size;
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (v[i] != null && !drop.test((V) v[i])) {
                put(k[i], (V) v[i]);
            }
        }
        return before - size;
    }

    @SuppressWarnings("unchecked")
    private void grow() {
        long[] k = keys;
        Object[] v = values;
        keys = new long[k.length * 2];
        values = new Object[v.length * 2];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (v[i] != null) {
                put(k[i], (V) v[i]);
            }
        }
    }

    private static int spread(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
