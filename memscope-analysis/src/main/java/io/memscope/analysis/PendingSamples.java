package io.memscope.analysis;

import java.util.Arrays;

/**
 * The heap samples whose scope or whose collection is not known yet, by sample id: when each was allocated, its
 * weight in bytes, when it was collected ({@link Long#MIN_VALUE} while not seen), its stack key and where it was
 * placed ({@link #WAITING} until its scope is known, {@link #OUTSIDE} outside every scope, else the index of its
 * (scope path, stack) cell). A sample leaves when both its placement and its fate are known; what remains at the end
 * are the samples never collected.
 *
 * <p>Open addressing with linear probing and backward-shift deletion in one {@code long[]}, five longs a slot, so
 * that a sample costs no object and a lookup touches one cache line or two (lookups are random: objects die in any
 * order):
 * <pre>
 *   0        8           16      24          32                 36          40
 *   +--------+-----------+-------+-----------+------------------+-----------+
 *   |   id   | allocated | bytes | collected | key + 1, 0: free | placement |
 *   +--------+-----------+-------+-----------+------------------+-----------+
 * </pre>
 * Memory: at most 80 bytes per pending sample (load factor at most 1/2).
 */
final class PendingSamples {
    /** Placement of a sample whose scope is not known yet. */
    static final int WAITING = -2;
    /** Placement of a sample outside every scope. */
    static final int OUTSIDE = -1;

    private static final int STRIDE = 5;
    private static final int ALLOCATED = 1;
    private static final int BYTES = 2;
    private static final int COLLECTED = 3;
    private static final int KEY_PLACEMENT = 4;

    private long[] slots;
    private int mask;
    private int size;

    PendingSamples() {
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

    private static long keyAndPlacement(int stackKey, int placement) {
        return ((stackKey + 1L) << 32) | (placement & 0xFFFF_FFFFL);
    }

    /** Adds (or replaces) a sample, not collected and {@link #WAITING}; @return its slot, valid until the next change */
    int put(long id, long allocatedNanos, long weightBytes, int stackKey) {
        if ((size + 1) * 2 > mask + 1) {
            grow();
        }
        long[] s = slots;
        int i = hash(id) & mask;
        while (s[i * STRIDE + KEY_PLACEMENT] != 0 && s[i * STRIDE] != id) {
            i = (i + 1) & mask;
        }
        int o = i * STRIDE;
        if (s[o + KEY_PLACEMENT] == 0) {
            size++;
        }
        s[o] = id;
        s[o + ALLOCATED] = allocatedNanos;
        s[o + BYTES] = weightBytes;
        s[o + COLLECTED] = Long.MIN_VALUE;
        s[o + KEY_PLACEMENT] = keyAndPlacement(stackKey, WAITING);
        return i;
    }

    /** @return the slot of {@code id}, or -1; valid until the next put or remove */
    int find(long id) {
        long[] s = slots;
        int i = hash(id) & mask;
        while (s[i * STRIDE + KEY_PLACEMENT] != 0) {
            if (s[i * STRIDE] == id) {
                return i;
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    long allocated(int slot) {
        return slots[slot * STRIDE + ALLOCATED];
    }

    long bytes(int slot) {
        return slots[slot * STRIDE + BYTES];
    }

    long collected(int slot) {
        return slots[slot * STRIDE + COLLECTED];
    }

    void collected(int slot, long nanos) {
        slots[slot * STRIDE + COLLECTED] = nanos;
    }

    int stackKey(int slot) {
        return (int) (slots[slot * STRIDE + KEY_PLACEMENT] >>> 32) - 1;
    }

    int placement(int slot) {
        return (int) slots[slot * STRIDE + KEY_PLACEMENT];
    }

    void place(int slot, int placement) {
        slots[slot * STRIDE + KEY_PLACEMENT] = keyAndPlacement(stackKey(slot), placement);
    }

    /** Removes the entry in {@code slot}, shifting back the entries of its probe run. */
    void remove(int slot) {
        long[] s = slots;
        int hole = slot;
        s[hole * STRIDE + KEY_PLACEMENT] = 0;
        size--;
        int i = (hole + 1) & mask;
        while (s[i * STRIDE + KEY_PLACEMENT] != 0) {
            int home = hash(s[i * STRIDE]) & mask;
            // move i into the hole unless its home lies cyclically in (hole, i]
            if (((i - home) & mask) >= ((i - hole) & mask)) {
                System.arraycopy(s, i * STRIDE, s, hole * STRIDE, STRIDE);
                s[i * STRIDE + KEY_PLACEMENT] = 0;
                hole = i;
            }
            i = (i + 1) & mask;
        }
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** @return the occupied slots, in table order (for a final sweep; the table must not change meanwhile) */
    int[] slots() {
        int[] out = new int[size];
        int n = 0;
        for (int i = 0; i <= mask; i++) {
            if (slots[i * STRIDE + KEY_PLACEMENT] != 0) {
                out[n++] = i;
            }
        }
        return Arrays.copyOf(out, n);
    }

    private void grow() {
        long[] old = slots;
        allocate((mask + 1) * 2);
        for (int o = 0; o < old.length; o += STRIDE) {
            if (old[o + KEY_PLACEMENT] != 0) {
                int i = put(old[o], old[o + ALLOCATED], old[o + BYTES], (int) (old[o + KEY_PLACEMENT] >>> 32) - 1);
                slots[i * STRIDE + COLLECTED] = old[o + COLLECTED];
                slots[i * STRIDE + KEY_PLACEMENT] = old[o + KEY_PLACEMENT];
            }
        }
    }

    @Override
    public String toString() {
        return "PendingSamples[" + size + " of " + (mask + 1) + "]";
    }
}
