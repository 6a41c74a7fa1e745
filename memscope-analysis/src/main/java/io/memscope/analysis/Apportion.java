package io.memscope.analysis;

/**
 * Rounds non-negative real parts to whole numbers that add up exactly to a given whole total (the largest remainder
 * method): each part gets its floor, and the units left go to the largest fractional parts. Used wherever estimated
 * figures are split (timeline buckets, stacks) and must add up to a total the report shows.
 */
final class Apportion {
    private Apportion() {
    }

    /**
     * @param parts real parts (scaled so that they sum to {@code total}, or close to it)
     * @param total the whole total the result must add up to
     * @return whole parts adding up to {@code total} (all 0 when every part is 0)
     */
    static long[] round(double[] parts, long total) {
        int n = parts.length;
        long[] out = new long[n];
        double sum = 0;
        for (double p : parts) {
            sum += Math.max(0, p);
        }
        if (n == 0 || sum <= 0) {
            return out;
        }
        double scale = total / sum;
        long given = 0;
        double[] rest = new double[n];
        for (int i = 0; i < n; i++) {
            double v = Math.max(0, parts[i]) * scale;
            out[i] = (long) Math.floor(v);
            rest[i] = v - out[i];
            given += out[i];
        }
        long left = total - given;
        if (left > 0) {
            // the largest remainders first: sort (remainder, index) pairs packed in longs, no boxing
            long[] keys = new long[n];
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (parts[i] > 0) {
                    keys[k++] = ((long) (rest[i] * (1 << 30)) << 32) | (n - 1 - i);
                }
            }
            java.util.Arrays.sort(keys, 0, k);
            for (int j = k - 1; left > 0; j = j == 0 ? k - 1 : j - 1) {
                out[n - 1 - (int) (keys[j] & 0xFFFF_FFFFL)]++;
                left--;
            }
        }
        return out;
    }
}
