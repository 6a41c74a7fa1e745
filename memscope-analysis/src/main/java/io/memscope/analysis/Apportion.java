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
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            java.util.Arrays.sort(order, (a, b) -> Double.compare(rest[b], rest[a]));
            for (int i = 0; left > 0; i = (i + 1) % n) {
                if (parts[order[i]] > 0) {
                    out[order[i]]++;
                    left--;
                }
            }
        }
        return out;
    }
}
