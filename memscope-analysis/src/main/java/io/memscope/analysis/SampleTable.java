package io.memscope.analysis;

/**
 * The sampled heap objects not yet observed collected, by sample id: where each was allocated (site and stack keys),
 * what it weighs, and which collections had started before it was allocated. Open addressing with linear probing
 * and backward-shift deletion over primitive columns: no object per sample. Memory: about 80 bytes per live sample
 * (load factor at most 1/2); the live samples of a run are its heap size over the sampling interval, not its length.
 */
final class SampleTable {
    private long[] ids;
    private int[] site;
    private int[] stack;
    private double[] bytes;
    private double[] count;
    private int[] epoch;
    private boolean[] used;
    private int size;
    private int mask;

    SampleTable() {
        allocate(1024);
    }

    private void allocate(int capacity) {
        ids = new long[capacity];
        site = new int[capacity];
        stack = new int[capacity];
        bytes = new double[capacity];
        count = new double[capacity];
        epoch = new int[capacity];
        used = new boolean[capacity];
        mask = capacity - 1;
        size = 0;
    }

    private static int hash(long id) {
        long h = id * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    /** Adds (or replaces) a sample. */
    void put(long id, int siteKey, int stackKey, double weightBytes, double weightCount, int gcEpoch) {
        if ((size + 1) * 2 > ids.length) {
            grow();
        }
        int i = hash(id) & mask;
        while (used[i] && ids[i] != id) {
            i = (i + 1) & mask;
        }
        if (!used[i]) {
            used[i] = true;
            ids[i] = id;
            size++;
        }
        site[i] = siteKey;
        stack[i] = stackKey;
        bytes[i] = weightBytes;
        count[i] = weightCount;
        epoch[i] = gcEpoch;
    }

    /** @return the slot of {@code id}, or -1; valid until the next put or remove */
    int find(long id) {
        int i = hash(id) & mask;
        while (used[i]) {
            if (ids[i] == id) {
                return i;
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    int site(int slot) {
        return site[slot];
    }

    int stack(int slot) {
        return stack[slot];
    }

    double bytes(int slot) {
        return bytes[slot];
    }

    double count(int slot) {
        return count[slot];
    }

    int epoch(int slot) {
        return epoch[slot];
    }

    /** Removes the entry in {@code slot} (from {@link #find}), shifting back the entries of its probe run. */
    void remove(int slot) {
        int hole = slot;
        used[hole] = false;
        size--;
        int i = (hole + 1) & mask;
        while (used[i]) {
            int home = hash(ids[i]) & mask;
            // move i into the hole if its home is not in (hole, i] (cyclically)
            if (((i - home) & mask) >= ((i - hole) & mask)) {
                move(i, hole);
                used[i] = false;
                hole = i;
            }
            i = (i + 1) & mask;
        }
    }

    private void move(int from, int to) {
        used[to] = true;
        ids[to] = ids[from];
        site[to] = site[from];
        stack[to] = stack[from];
        bytes[to] = bytes[from];
        count[to] = count[from];
        epoch[to] = epoch[from];
    }

    int size() {
        return size;
    }

    private void grow() {
        long[] oIds = ids;
        int[] oSite = site;
        int[] oStack = stack;
        double[] oBytes = bytes;
        double[] oCount = count;
        int[] oEpoch = epoch;
        boolean[] oUsed = used;
        allocate(ids.length * 2);
        for (int i = 0; i < oIds.length; i++) {
            if (oUsed[i]) {
                put(oIds[i], oSite[i], oStack[i], oBytes[i], oCount[i], oEpoch[i]);
            }
        }
    }

    @Override
    public String toString() {
        return "SampleTable[" + size + " of " + ids.length + "]";
    }
}
