package io.memscope.analysis;

/**
 * Dense indexes for (stack id, site id) pairs: the identity of a {@link StackProfile}. A {@link LongSlotTable} of two
 * longs per slot, so that looking up the stack of each sampled event allocates nothing and touches one cache line.
 * Word 0 holds the pair's hash key, the stack id with the site mixed in ({@link #key}); with the site beside it, it
 * gives the stack id back, so equal keys and sites mean equal pairs:
 * <pre>
 *   0                   8                  12                   16
 *   +-------------------+------------------+--------------------+
 *   | stack ^ mix(site) |     site id      | index + 1, 0: free |
 *   +-------------------+------------------+--------------------+
 * </pre>
 */
final class StackIndex extends LongSlotTable {
    private static final int STRIDE = 2;
    private static final int VALUE = 1; // the used word

    StackIndex() {
        super(STRIDE);
    }

    /** The pair's hash key: the stack id with the site id mixed into all its bits (one pair per key and site). */
    private static long key(long stack, int site) {
        return stack ^ (site * 0xC2B2AE3D27D4EB4FL);
    }

    /** @return the index of the pair, {@code next} (at least 0) if it is new (then it is added with that index) */
    int indexOf(long stack, int site, int next) {
        long key = key(stack, site);
        long[] s = slots;
        int m = mask;
        int i = hash(key) & m;
        long v;
        while ((v = s[i * STRIDE + VALUE]) != 0) {
            if (s[i * STRIDE] == key && (int) (v >>> 32) == site) {
                return (int) v - 1;
            }
            i = (i + 1) & m;
        }
        int slot = freeSlot(key, STRIDE);
        slots[slot * STRIDE + VALUE] = ((long) site << 32) | (next + 1L);
        return next;
    }
}
