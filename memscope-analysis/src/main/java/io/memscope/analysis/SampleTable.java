package io.memscope.analysis;

/**
 * The sampled heap objects not yet observed collected, by sample id: where each was allocated (site and stack keys)
 * and which collections had started before it was allocated. (Its weight is not kept: a DEALLOCATE carries the
 * object's size, from which the weight is computed again.) Open addressing with linear probing and backward-shift
 * deletion in one {@code long[]}, three longs per slot (id, site and stack keys, epoch + 1; 0 marks a free slot), so
 * that a lookup touches one cache line: the replay's lookups are random (objects die in any order). Memory: at most
 * 48 bytes per live sample (load factor at most 1/2); the live samples of a run are its heap size over the sampling
 * interval, not its length.
 */
final class SampleTable {
    private static final int STRIDE = 3;
    private long[] slots;
    private int mask;
    private int size;

    SampleTable() {
        allocate(1024);
    }

    private void allocate(int capacity) {
        slots = new long[capacity * STRIDE];
        mask = capacity - 1;
        size = 0;
    }

    private static int hash(long id) {
        long h = id * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    /** Adds (or replaces) a sample. */
    void put(long id, int siteKey, int stackKey, int gcEpoch) {
        if ((size + 1) * 2 > mask + 1) {
            grow();
        }
        long[] s = slots;
        int i = hash(id) & mask;
        while (s[i * STRIDE + 2] != 0 && s[i * STRIDE] != id) {
            i = (i + 1) & mask;
        }
        int o = i * STRIDE;
        if (s[o + 2] == 0) {
            size++;
        }
        s[o] = id;
        s[o + 1] = ((long) siteKey << 32) | (stackKey & 0xFFFF_FFFFL);
        s[o + 2] = gcEpoch + 1L;
    }

    /** @return the slot of {@code id}, or -1; valid until the next put or remove */
    int find(long id) {
        long[] s = slots;
        int i = hash(id) & mask;
        while (s[i * STRIDE + 2] != 0) {
            if (s[i * STRIDE] == id) {
                return i;
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    int site(int slot) {
        return (int) (slots[slot * STRIDE + 1] >>> 32);
    }

    int stack(int slot) {
        return (int) slots[slot * STRIDE + 1];
    }

    int epoch(int slot) {
        return (int) (slots[slot * STRIDE + 2] - 1);
    }

    /** Removes the entry in {@code slot} (from {@link #find}), shifting back the entries of its probe run. */
    void remove(int slot) {
        long[] s = slots;
        int hole = slot;
        s[hole * STRIDE + 2] = 0;
        size--;
        int i = (hole + 1) & mask;
        while (s[i * STRIDE + 2] != 0) {
            int home = hash(s[i * STRIDE]) & mask;
            // move i into the hole unless its home lies cyclically in (hole, i]
            if (((i - home) & mask) >= ((i - hole) & mask)) {
                System.arraycopy(s, i * STRIDE, s, hole * STRIDE, STRIDE);
                s[i * STRIDE + 2] = 0;
                hole = i;
            }
            i = (i + 1) & mask;
        }
    }

    int size() {
        return size;
    }

    /** Removes every sample and gives the table's memory back. */
    void clear() {
        allocate(1024);
    }

    private void grow() {
        long[] old = slots;
        allocate((mask + 1) * 2);
        for (int o = 0; o < old.length; o += STRIDE) {
            if (old[o + 2] != 0) {
                put(old[o], (int) (old[o + 1] >>> 32), (int) old[o + 1], (int) (old[o + 2] - 1));
            }
        }
    }

    @Override
    public String toString() {
        return "SampleTable[" + size + " of " + (mask + 1) + "]";
    }
}
