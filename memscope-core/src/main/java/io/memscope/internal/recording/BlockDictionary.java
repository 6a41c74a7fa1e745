package io.memscope.internal.recording;

import java.util.Arrays;

/**
 * Maps a key of two longs to a dense index 0, 1, 2 ... in order of first insertion, without allocating per
 * lookup: open addressing with linear probing over primitive arrays. One instance lives for the whole recording
 * and is {@link #clear() cleared} at every block boundary (EVENTS blocks keep per-block thread, stack and site
 * tables; SCOPE_EDGES blocks a thread table: {@link BlockThreads}). Not thread-safe.
 */
public final class BlockDictionary {
    private long[] keysA;
    private long[] keysB;
    private int[] slots;       // hash slot -> index + 1, 0 = empty
    private int size;

    BlockDictionary(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        slots = new int[cap];
        keysA = new long[cap / 2];
        keysB = new long[cap / 2];
    }

    int size() {
        return size;
    }

    void clear() {
        if (size > 0) {
            Arrays.fill(slots, 0);
            size = 0;
        }
    }

    long keyA(int index) {
        return keysA[index];
    }

    long keyB(int index) {
        return keysB[index];
    }

    /** @return the index of the key, or -1 */
    int find(long a, long b) {
        int mask = slots.length - 1;
        for (int h = hash(a, b) & mask; ; h = (h + 1) & mask) {
            int s = slots[h];
            if (s == 0) {
                return -1;
            }
            if (keysA[s - 1] == a && keysB[s - 1] == b) {
                return s - 1;
            }
        }
    }

    /**
     * Adds a key; @return its index (the previous {@link #size()}). A key already present gets a second index (a
     * decoder reading a table as written, duplicates included); {@link #find} keeps returning the first.
     */
    int add(long a, long b) {
        if ((size + 1) * 2 > slots.length) {
            grow();
        }
        if (size == keysA.length) {
            keysA = Arrays.copyOf(keysA, size * 2);
            keysB = Arrays.copyOf(keysB, size * 2);
        }
        int index = size++;
        keysA[index] = a;
        keysB[index] = b;
        insertSlot(index);
        return index;
    }

    private void insertSlot(int index) {
        int mask = slots.length - 1;
        int h = hash(keysA[index], keysB[index]) & mask;
        while (slots[h] != 0) {
            h = (h + 1) & mask;
        }
        slots[h] = index + 1;
    }

    private void grow() {
        slots = new int[slots.length * 2];
        for (int i = 0; i < size; i++) {
            insertSlot(i);
        }
    }

    private static int hash(long a, long b) {
        long h = a * 0x9E3779B97F4A7C15L + b * 0xC2B2AE3D27D4EB4FL;
        return (int) (h ^ (h >>> 32));
    }
}
