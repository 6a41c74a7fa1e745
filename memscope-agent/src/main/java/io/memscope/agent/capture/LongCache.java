package io.memscope.agent.capture;

/**
 * A bounded {@link LongMap} for one thread, in two generations (a second-chance cache): new entries go into the
 * current generation; when it holds half the bound it becomes the previous one and the previous one's entries are
 * dropped (counted in {@link #evicted}); an entry of the previous generation that is looked up again moves into the
 * current one. So it never holds more than its bound, what is in use stays, and what it holds moves between half
 * the bound and the bound instead of falling to nothing at once (a table emptied when full makes every entry in use
 * be resolved again right after, and a heap that saws between nothing and the bound).
 *
 * @param <V> the value type
 */
final class LongCache<V> {
    private final int half;
    private LongMap<V> current = new LongMap<>(1024);
    private LongMap<V> previous = new LongMap<>(8);
    /** Entries of the previous generation looked up again since it became the previous one (held in both). */
    private int promoted;
    private long evicted;

    /** @param bound the most entries held (at least 2) */
    LongCache(int bound) {
        this.half = Math.max(1, bound / 2);
    }

    /** @return the value of {@code key}, or null (an entry of the previous generation moves into the current one) */
    V get(long key) {
        V v = current.get(key);
        if (v == null) {
            v = previous.get(key);
            if (v != null) {
                makeRoom(1);
                current.put(key, v);
                promoted++;
            }
        }
        return v;
    }

    /** Puts {@code value} (not null) for {@code key} into the current generation. */
    void put(long key, V value) {
        makeRoom(1);
        current.put(key, value);
    }

    /**
     * Makes room for {@code n} more entries in the current generation (a stack's methods, put one by one, then all
     * stay while the stack is resolved).
     */
    void makeRoom(int n) {
        if (current.size() > 0 && current.size() + n > half) {
            evicted += previous.size() - promoted;
            LongMap<V> emptied = previous;
            emptied.clear();
            previous = current;
            current = emptied;
            promoted = 0;
        }
    }

    /** @return entries held (those of the previous generation looked up again count once) */
    int size() {
        return current.size() + previous.size() - promoted;
    }

    /** @return entries dropped with their generation (looked up again: resolved anew) */
    long evicted() {
        return evicted;
    }
}
