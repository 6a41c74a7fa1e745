package io.memscope.agent.capture;

import java.util.Arrays;

/**
 * The weights ({@link LiveSites#weight}) of one mean sampling interval, remembered by sample size: the drain thread
 * weighs every sample when it is taken and again when it is collected, and most samples share a few sizes (one
 * class's instances, the same buffer sizes), while each fresh weight costs an {@code expm1} (a native call on JDK
 * 17). Direct-mapped by size: a size whose slot holds another size is computed again and replaces it. The values
 * are the ones {@link LiveSites#weight} returns, bit for bit. One thread (not thread-safe).
 *
 * <p>Memory: {@value #SLOTS} sizes and weights (24 KiB).
 */
final class SampleWeights {
    /** Slots (a power of two). Object sizes are multiples of 8 bytes: the slot is the size in words. */
    private static final int SLOTS = 2048;

    private final double mean;
    private final long[] sizes = new long[SLOTS];
    private final double[] weights = new double[SLOTS];

    SampleWeights(double mean) {
        this.mean = mean;
        Arrays.fill(sizes, -1);
    }

    /** @return {@link LiveSites#weight LiveSites.weight(size, mean)} */
    double weight(long size) {
        int slot = (int) (size >>> 3) & (SLOTS - 1);
        if (sizes[slot] == size) {
            return weights[slot];
        }
        double w = LiveSites.weight(size, mean);
        sizes[slot] = size;
        weights[slot] = w;
        return w;
    }
}
