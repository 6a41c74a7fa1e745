package io.memscope.analysis;

import io.memscope.launch.MetadataKeys;

/**
 * How a run's malloc events were sampled, and so what one stands for.
 *
 * <ul>
 * <li>{@link #POISSON} (memscope's malloc hooks): bytes sampled as a Poisson process with mean {@code m}; a block of
 *     {@code s} bytes was sampled with probability {@code p = 1 - exp(-s/m)}.</li>
 * <li>{@link #COUNTER} (async-profiler's {@code nativemem=m}): a counter of bytes malloc'd; the call that takes it
 *     past {@code m} is recorded and the counter keeps the remainder. A block of {@code s} bytes is recorded with
 *     probability {@code p = min(1, s/m)}; with {@code m = 0} (bare {@code nativemem}) every call is,
 *     {@code p = 1}.</li>
 * </ul>
 * A recorded block stands for {@code s/p} bytes and {@code 1/p} blocks; its free takes away the same weight. The
 * standard error of a site's estimate {@code B} is at most {@code sqrt(m·B)} under either law ({@link SamplingNoise}),
 * 0 when every call is recorded.
 *
 * @param intervalBytes the interval {@code m}, bytes; 0: every malloc recorded (exact figures)
 * @param law           {@link #POISSON} or {@link #COUNTER} (metadata {@code malloc.sampling})
 */
record MallocSampling(long intervalBytes, String law) {
    static final String POISSON = "poisson";
    static final String COUNTER = "counter";
    /** The agent's default malloc interval: the recordings of agents that did not write theirs. */
    private static final long DEFAULT_INTERVAL = 512 * 1024;

    MallocSampling {
        intervalBytes = Math.max(0, intervalBytes);
        if (law.equals(POISSON)) {
            intervalBytes = Math.max(1, intervalBytes);
        }
    }

    /** @return the sampling a run's metadata states (memscope's Poisson sampling at 512 KiB when it says nothing) */
    static MallocSampling of(RecordedRun run) {
        String law = run.metadata().get(MetadataKeys.MALLOC_SAMPLING);
        return new MallocSampling(run.metadataLong(MetadataKeys.MALLOC_INTERVAL_BYTES, DEFAULT_INTERVAL),
                COUNTER.equals(law) ? COUNTER : POISSON);
    }

    /** @return whether every malloc call was recorded: the figures are exact */
    boolean everyCall() {
        return law.equals(COUNTER) && intervalBytes <= 1;
    }

    /** @return the probability that a block of {@code size} bytes was recorded, in (0, 1] */
    double probability(long size) {
        if (everyCall()) {
            return 1;
        }
        if (law.equals(COUNTER)) {
            return Math.min(1, Math.max(size, 1) / (double) intervalBytes);
        }
        return ReportBuilder.probability(size, intervalBytes);
    }
}
