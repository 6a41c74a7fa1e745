package io.memscope.analysis;

/**
 * The scaffolding shared by the replay's open-addressing tables ({@link SampleTable}, {@link PendingSamples},
 * {@link StackIndex}): slots of {@code stride} longs in one {@code long[]}, each subclass with its own layout inside
 * the slot. What this class guarantees to every layout:
 * <ul>
 *   <li>word 0 of a slot holds the slot's <em>hash key</em>, from which {@link #hash} computes its home slot; the
 *       slot's last word, the <em>used word</em>, is not 0 exactly when the slot is occupied: a subclass writes it
 *       non-zero right after it {@link #claim claims} or is given a {@link #freeSlot free slot}, and never stores 0
 *       in it while the entry lives;</li>
 *   <li>linear probing from the home slot; the capacity is a power of two, 1024 slots at first, doubled before an
 *       entry would take the load factor past 1/2, so that a probe run stays short and a lookup touches one cache
 *       line or two;</li>
 *   <li>deletion shifts the entries of the probe run back (no tombstones), so lookups never slow down with churn;
 *       slot positions depend only on the hash, the capacity and the order of insertions and removals, so a table
 *       fed the same operations lists its slots in the same order;</li>
 *   <li>no object per entry, no boxing, no virtual call: every method is final and reads the slots directly.</li>
 * </ul>
 * The methods on the per-event path ({@link #find}, {@link #claim}, {@link #freeSlot}, {@link #remove}) take the
 * subclass's stride as an argument, a constant at every call, so that once the call is inlined the JIT folds it into
 * the address arithmetic (read from a field, it costs a multiply per probe: about 5% more time on a churning table
 * of a million samples); the rest reads it from the field set at construction. A slot index is valid until the next
 * insertion or removal (growing and shifting move entries). Not thread-safe.
 */
abstract class LongSlotTable {
    /** Slots of a new or cleared table. */
    static final int INITIAL_CAPACITY = 1024;

    private final int stride;
    /**
     * The slots: {@code stride} longs each; slot {@code i} starts at {@code i * stride}. Subclasses read and write
     * their words in place; only this class replaces the array.
     */
    long[] slots;
    /** Capacity minus one: the capacity is a power of two. */
    int mask;
    private int size;

    /** @param stride longs per slot, at least 2 (the hash key, ..., the used word) */
    LongSlotTable(int stride) {
        this.stride = stride;
        allocate(INITIAL_CAPACITY);
    }

    /** The home slot's hash of a key: the 64-bit golden-ratio multiply, high half folded into the low. */
    static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    /** @return the slot holding {@code key} in word 0, or -1 */
    final int find(long key, int stride) {
        assert stride == this.stride;
        int i = probe(key, stride);
        return slots[i * stride + stride - 1] != 0 ? i : -1;
    }

    /**
     * @return the slot holding {@code key} in word 0, or, if none does, a free slot with {@code key} written in word
     *         0 and counted as an entry (the caller writes the used word); grows first if one more entry would pass
     *         the load factor
     */
    final int claim(long key, int stride) {
        assert stride == this.stride;
        growForOneMore();
        int i = probe(key, stride);
        if (slots[i * stride + stride - 1] == 0) {
            slots[i * stride] = key;
            size++;
        }
        return i;
    }

    /**
     * For an entry its caller knows is absent (a key of several words): @return the first free slot of the probe run
     * of {@code key}, with {@code key} written in word 0 and counted as an entry (the caller writes the rest, used
     * word included); grows first if one more entry would pass the load factor
     */
    final int freeSlot(long key, int stride) {
        assert stride == this.stride;
        growForOneMore();
        int i = firstFree(slots, mask, stride, hash(key));
        slots[i * stride] = key;
        size++;
        return i;
    }

    /** Removes the entry in {@code slot}, shifting back the entries of its probe run. */
    final void remove(int slot, int stride) {
        assert stride == this.stride;
        long[] s = slots;
        int m = mask;
        int used = stride - 1;
        int hole = slot;
        s[hole * stride + used] = 0;
        size--;
        int i = (hole + 1) & m;
        while (s[i * stride + used] != 0) {
            int home = hash(s[i * stride]) & m;
            // move i into the hole unless its home lies cyclically in (hole, i]
            if (((i - home) & m) >= ((i - hole) & m)) {
                System.arraycopy(s, i * stride, s, hole * stride, stride);
                s[i * stride + used] = 0;
                hole = i;
            }
            i = (i + 1) & m;
        }
    }

    final int size() {
        return size;
    }

    final boolean isEmpty() {
        return size == 0;
    }

    /** @return the occupied slots in table order (the table must not change while they are used) */
    final int[] occupied() {
        int[] out = new int[size];
        int n = 0;
        for (int i = 0; i <= mask && n < out.length; i++) {
            if (slots[i * stride + stride - 1] != 0) {
                out[n++] = i;
            }
        }
        return out;
    }

    /** Removes every entry and gives the table's memory back. */
    final void clear() {
        allocate(INITIAL_CAPACITY);
    }

    /** @return the slot holding {@code key} in word 0, or the free slot that ends its probe run */
    private int probe(long key, int stride) {
        long[] s = slots;
        int m = mask;
        int i = hash(key) & m;
        while (s[i * stride + stride - 1] != 0 && s[i * stride] != key) {
            i = (i + 1) & m;
        }
        return i;
    }

    /** @return the first free slot of {@code s} from {@code hash}'s home slot on */
    private static int firstFree(long[] s, int m, int stride, int hash) {
        int i = hash & m;
        while (s[i * stride + stride - 1] != 0) {
            i = (i + 1) & m;
        }
        return i;
    }

    private void growForOneMore() {
        if ((size + 1) * 2 > mask + 1) {
            grow();
        }
    }

    private void allocate(int capacity) {
        slots = new long[capacity * stride];
        mask = capacity - 1;
        size = 0;
    }

    /** Doubles the capacity, moving every entry (all its words) to its probe run in the larger table. */
    private void grow() {
        long[] old = slots;
        int n = stride;
        long[] s = slots = new long[old.length * 2];
        int m = mask = (mask + 1) * 2 - 1;
        for (int o = 0; o < old.length; o += n) {
            if (old[o + n - 1] != 0) {
                System.arraycopy(old, o, s, firstFree(s, m, n, hash(old[o])) * n, n);
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + size + " of " + (mask + 1) + "]";
    }
}
