package io.memscope.analysis;

/**
 * The sampled heap objects not yet observed collected, by sample id: where each was allocated (its stack key, which
 * names its site too) and which collections had started before it was allocated. (Its weight is not kept: a
 * DEALLOCATE carries the object's size, from which the weight is computed again.) A {@link LongSlotTable} of two
 * longs per slot, so that a lookup touches one cache line: the replay's lookups are random (objects die in any
 * order).
 * <pre>
 *   0                 8                  12                 16
 *   +-----------------+------------------+------------------+
 *   |    sample id    |    stack key     | epoch + 1, 0: free|
 *   +-----------------+------------------+------------------+
 * </pre>
 * Memory: at most 32 bytes per live sample (load factor at most 1/2); the live samples of a run are its heap size
 * over the sampling interval, not its length.
 */
final class SampleTable extends LongSlotTable {
    private static final int STRIDE = 2;
    private static final int VALUE = 1; // the used word

    SampleTable() {
        super(STRIDE);
    }

    /** Adds (or replaces) a sample; {@code gcEpoch} is at least 0. */
    void put(long id, int stackKey, int gcEpoch) {
        int slot = claim(id, STRIDE);
        slots[slot * STRIDE + VALUE] = ((long) stackKey << 32) | (gcEpoch + 1L);
    }

    /** @return the slot of {@code id}, or -1; valid until the next put or remove */
    int find(long id) {
        return find(id, STRIDE);
    }

    /** Removes the sample in {@code slot} (from {@link #find}). */
    void remove(int slot) {
        remove(slot, STRIDE);
    }

    int stack(int slot) {
        return (int) (slots[slot * STRIDE + VALUE] >>> 32);
    }

    int epoch(int slot) {
        return (int) (slots[slot * STRIDE + VALUE] & 0xFFFF_FFFFL) - 1;
    }
}
