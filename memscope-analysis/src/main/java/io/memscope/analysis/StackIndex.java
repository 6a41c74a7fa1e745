package io.memscope.analysis;

/**
 * Dense indexes for (stack id, site id) pairs: the identity of a {@link StackProfile}. Open addressing with linear
 * probing in one {@code long[]}, two longs per slot, so that looking up the stack of each sampled event allocates
 * nothing and touches one cache line:
 * <pre>
 *   0                 8                  12                 16
 *   +-----------------+------------------+------------------+
 *   |    stack id     |     site id      | index + 1, 0: free|
 *   +-----------------+------------------+------------------+
 * </pre>
 */
final class StackIndex {
    private long[] slots = new long[2 * 1024];
    private int mask = 1023;
    private int size;

    private static int hash(long stack, int site) {
        long h = (stack ^ (site * 0xC2B2AE3D27D4EB4FL)) * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 29));
    }

    /** @return the index of the pair, {@code next} (at least 0) if it is new (then it is added with that index) */
    int indexOf(long stack, int site, int next) {
        long[] s = slots;
        int m = mask;
        int i = hash(stack, site) & m;
        long v;
        while ((v = s[2 * i + 1]) != 0) {
            if (s[2 * i] == stack && (int) (v >>> 32) == site) {
                return (int) v - 1;
            }
            i = (i + 1) & m;
        }
        s[2 * i] = stack;
        s[2 * i + 1] = ((long) site << 32) | (next + 1L);
        if (++size * 2 > m + 1) {
            grow();
        }
        return next;
    }

    private void grow() {
        long[] old = slots;
        slots = new long[old.length * 2];
        mask = (mask + 1) * 2 - 1;
        for (int o = 0; o < old.length; o += 2) {
            long v = old[o + 1];
            if (v != 0) {
                int i = hash(old[o], (int) (v >>> 32)) & mask;
                while (slots[2 * i + 1] != 0) {
                    i = (i + 1) & mask;
                }
                slots[2 * i] = old[o];
                slots[2 * i + 1] = v;
            }
        }
    }
}
