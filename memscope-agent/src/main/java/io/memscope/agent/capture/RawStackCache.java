package io.memscope.agent.capture;

/**
 * A bounded cache from a 64-bit key to a value, read without locks, atomics or boxing: open addressing over a
 * power-of-two array of immutable entries, linear probing over at most {@value #PROBES} slots. When those slots are
 * all taken by other keys, the new entry replaces the one in the key's home slot (a cache: an evicted key is simply
 * computed again). Used for the resolved stacks of the JVMTI sampler, keyed by a hash of their raw frames.
 *
 * <p>Concurrency: any thread may read and put. Entries are immutable (final fields), so a reader that sees an
 * entry sees it complete; racing puts may lose one of the entries (computed again on its next miss), never mix
 * them. Memory: the array ({@code capacity} references) plus at most {@code capacity} entries.
 *
 * @param <V> the value type
 */
final class RawStackCache<V> {
    /** Slots looked at per key. */
    static final int PROBES = 8;

    private static final class Entry<V> {
        final long key;
        final V value;

        Entry(long key, V value) {
            this.key = key;
            this.value = value;
        }
    }

    private final Entry<V>[] slots;
    private final int mask;

    /** @param capacity number of slots, a power of two of at least {@value #PROBES} */
    @SuppressWarnings("unchecked")
    RawStackCache(int capacity) {
        if (capacity < PROBES || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two >= " + PROBES + ": " + capacity);
        }
        slots = (Entry<V>[]) new Entry<?>[capacity];
        mask = capacity - 1;
    }

    /** @return the value put for {@code key}, or null when absent (never put, or evicted) */
    V get(long key) {
        Entry<V>[] s = slots;
        int i = spread(key);
        for (int p = 0; p < PROBES; p++) {
            Entry<V> e = s[(i + p) & mask];
            if (e == null) {
                return null;
            }
            if (e.key == key) {
                return e.value;
            }
        }
        return null;
    }

    /** Stores {@code value} (not null) for {@code key}, replacing its earlier value, or evicting another key. */
    void put(long key, V value) {
        Entry<V>[] s = slots;
        int i = spread(key);
        Entry<V> e = new Entry<>(key, value);
        for (int p = 0; p < PROBES; p++) {
            int j = (i + p) & mask;
            Entry<V> old = s[j];
            if (old == null || old.key == key) {
                s[j] = e;
                return;
            }
        }
        s[i & mask] = e;
    }

    /** Empties the cache. */
    void clear() {
        java.util.Arrays.fill(slots, null);
    }

    /** @return the number of slots */
    int capacity() {
        return slots.length;
    }

    private static int spread(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
