package io.memscope.analysis;

import java.util.Arrays;

/**
 * Dense indexes for (stack id, site id) pairs: the identity of a {@link StackProfile}. Open addressing over
 * primitive arrays, so that looking up the stack of each sampled event allocates nothing.
 */
final class StackIndex {
    private long[] stacks = new long[1024];
    private int[] sites = new int[1024];
    private int[] index = new int[1024];
    private int size;

    StackIndex() {
        Arrays.fill(index, -1);
    }

    private static int hash(long stack, int site) {
        long h = (stack ^ (site * 0xC2B2AE3D27D4EB4FL)) * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 29));
    }

    /** @return the index of the pair, {@code next} if it is new (then it is added with that index) */
    int indexOf(long stack, int site, int next) {
        int mask = index.length - 1;
        int i = hash(stack, site) & mask;
        while (index[i] >= 0) {
            if (stacks[i] == stack && sites[i] == site) {
                return index[i];
            }
            i = (i + 1) & mask;
        }
        stacks[i] = stack;
        sites[i] = site;
        index[i] = next;
        if (++size * 2 > index.length) {
            grow();
        }
        return next;
    }

    private void grow() {
        long[] os = stacks;
        int[] oSites = sites;
        int[] oi = index;
        stacks = new long[os.length * 2];
        sites = new int[os.length * 2];
        index = new int[os.length * 2];
        Arrays.fill(index, -1);
        size = 0;
        for (int i = 0; i < oi.length; i++) {
            if (oi[i] >= 0) {
                indexOf(os[i], oSites[i], oi[i]);
            }
        }
    }
}
