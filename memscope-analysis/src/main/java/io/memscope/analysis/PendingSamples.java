package io.memscope.analysis;

/**
 * The heap samples whose scope or whose collection is not known yet, by sample id: when each was allocated, its
 * weight in bytes, when it was collected ({@link Long#MIN_VALUE} while not seen), its stack key and where it was
 * placed ({@link #WAITING} until its scope is known, {@link #OUTSIDE} outside every scope, else the index of its
 * (scope path, stack) cell). A sample leaves when both its placement and its fate are known; what remains at the end
 * are the samples never collected.
 *
 * <p>A {@link LongSlotTable} of five longs a slot, so that a sample costs no object and a lookup touches one cache
 * line or two (lookups are random: objects die in any order):
 * <pre>
 *   0        8           16      24          32                 36          40
 *   +--------+-----------+-------+-----------+------------------+-----------+
 *   |   id   | allocated | bytes | collected | key + 1, 0: free | placement |
 *   +--------+-----------+-------+-----------+------------------+-----------+
 * </pre>
 * Memory: at most 80 bytes per pending sample (load factor at most 1/2).
 */
final class PendingSamples extends LongSlotTable {
    /** Placement of a sample whose scope is not known yet. */
    static final int WAITING = -2;
    /** Placement of a sample outside every scope. */
    static final int OUTSIDE = -1;

    private static final int STRIDE = 5;
    private static final int ALLOCATED = 1;
    private static final int BYTES = 2;
    private static final int COLLECTED = 3;
    private static final int KEY_PLACEMENT = 4; // the used word

    PendingSamples() {
        super(STRIDE);
    }

    private static long keyAndPlacement(int stackKey, int placement) {
        return ((stackKey + 1L) << 32) | (placement & 0xFFFF_FFFFL);
    }

    /** Adds (or replaces) a sample, not collected and {@link #WAITING}; @return its slot, valid until the next change */
    int put(long id, long allocatedNanos, long weightBytes, int stackKey) {
        int slot = claim(id, STRIDE);
        int o = slot * STRIDE;
        long[] s = slots;
        s[o + ALLOCATED] = allocatedNanos;
        s[o + BYTES] = weightBytes;
        s[o + COLLECTED] = Long.MIN_VALUE;
        s[o + KEY_PLACEMENT] = keyAndPlacement(stackKey, WAITING);
        return slot;
    }

    /** @return the slot of {@code id}, or -1; valid until the next put or remove */
    int find(long id) {
        return find(id, STRIDE);
    }

    /** Removes the sample in {@code slot} (from {@link #find} or {@link #put}). */
    void remove(int slot) {
        remove(slot, STRIDE);
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
}
