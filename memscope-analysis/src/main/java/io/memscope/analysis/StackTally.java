package io.memscope.analysis;

/**
 * One (stack, site)'s figures during a report's replay ({@link ReportReplay}): allocated weights, their spread over
 * the timeline's buckets (sparse: the buckets it allocated in), native bytes outstanding.
 */
final class StackTally {
    final int key;
    final long stackId;
    final SiteTally site;
    /** {@code site.key}, kept here: the replay reads it per event with the stack's figures. */
    final int siteKey;
    double allocBytes;
    double allocCount;
    int[] buckets = new int[4];
    double[] bucketBytes = new double[4];
    int bucketCount;
    /** The bucket being filled and its bytes, kept in fields: most allocations of a stack fall in it. */
    int openBucket = -1;
    double openBytes;
    /** The latest bucket in {@link #buckets}, -1 before the first. */
    private int maxBucket = -1;
    // native
    long nOutstanding;
    double nBlocks;
    int nEpoch = -1;
    long nAtPeakBytes;
    double nAtPeakBlocks;

    StackTally(int key, long stackId, SiteTally site) {
        this.key = key;
        this.stackId = stackId;
        this.site = site;
        this.siteKey = site.key;
    }

    void addToBucket(int b, double bytes) {
        if (b == openBucket) {
            openBytes += bytes;
            return;
        }
        closeBucket();
        openBucket = b;
        openBytes = bytes;
    }

    /** Moves the open bucket's bytes into the arrays. */
    void closeBucket() {
        if (openBucket < 0) {
            return;
        }
        int b = openBucket;
        double bytes = openBytes;
        openBucket = -1;
        openBytes = 0;
        if (b > maxBucket) {
            // later than every bucket kept (the events come in time order): a new one, and no need to read the arrays
            maxBucket = b;
            append(b, bytes);
            return;
        }
        for (int i = bucketCount - 1; i >= 0 && i >= bucketCount - 4; i--) {
            if (buckets[i] == b) {
                bucketBytes[i] += bytes;
                return;
            }
        }
        append(b, bytes);
    }

    private void append(int b, double bytes) {
        if (bucketCount == buckets.length) {
            buckets = java.util.Arrays.copyOf(buckets, bucketCount * 2);
            bucketBytes = java.util.Arrays.copyOf(bucketBytes, bucketCount * 2);
        }
        buckets[bucketCount] = b;
        bucketBytes[bucketCount++] = bytes;
    }
}
