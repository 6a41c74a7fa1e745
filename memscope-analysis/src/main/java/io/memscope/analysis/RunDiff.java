package io.memscope.analysis;

import java.util.List;

/**
 * Two runs compared ({@code memscope diff BASE NEW}): per site and per stack, the figures of both runs, matched by
 * site frame and type (and frames, for stacks). Figures are divided by each run's {@link Normalization} divisor (1
 * for absolute figures), so runs of different lengths or amounts of work compare fairly. Each change of the metric
 * is tested against sampling noise ({@link SamplingNoise}, {@link Significance}).
 *
 * @param metric        the metric sorted and gated by
 * @param normalization how figures were divided
 * @param base          the base run's totals (divided)
 * @param newer         the new run's totals (divided)
 * @param significance  the test applied to every change of the metric, and the total's verdict
 * @param sites         every site present in either run: significant changes first, then within each group the
 *                      largest absolute change of the metric first
 * @param stacks        every stack present in either run, largest absolute change of the metric first
 */
public record RunDiff(DiffMetric metric, Normalization normalization, Figures base, Figures newer,
                      Significance significance, List<Entry> sites, List<Entry> stacks) {

    /** @return the relative change of the metric's total, in percent; infinite when it grew from 0, 0 when both are 0 */
    public double totalChangePercent() {
        double b = base.value(metric);
        double n = newer.value(metric);
        if (b == 0) {
            return n == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        return (n - b) * 100 / b;
    }

    /** @return whether the metric's total changed by more than sampling noise */
    public boolean totalSignificant() {
        return significance.totalSignificant();
    }

    /**
     * The significance test of one comparison ({@link SamplingNoise}): the standard error of a change of the metric
     * is {@code √(baseFactor·|base| + newFactor·|new|)} for figures as divided, and a change is significant beyond
     * {@code z} standard errors.
     *
     * @param z                the critical value of each test: family-wise false-alarm rate
     *                         {@value SamplingNoise#FAMILY_FALSE_ALARM_RATE} over {@code tests}
     * @param tests            tests in the family: every site compared, and the total
     * @param baseFactor       the base run's variance per unit of figure (its sampling interval divided by its
     *                         divisor); 0 when the base run's figures of the metric are exact
     * @param newFactor        the same for the new run
     * @param totalStdError    the standard error of the total's change
     * @param totalSignificant whether the total's change is significant
     * @param model            what the noise band assumes of a run read from a JFR recording (one sentence), or
     *                         null when both runs are memscope's
     */
    public record Significance(double z, int tests, double baseFactor, double newFactor, double totalStdError,
                               boolean totalSignificant, String model) {
        /** @return the standard error of the change from {@code base} to {@code newer} (figures as divided) */
        public double stdError(double base, double newer) {
            return Math.sqrt(baseFactor * Math.abs(base) + newFactor * Math.abs(newer));
        }
    }

    /**
     * How figures are divided: {@code none} (absolute), {@code duration} (per second of each run's window), or
     * {@code per-unit} (per unit of work, counts given by the user for each run).
     *
     * @param kind        {@code none}, {@code duration} or {@code per-unit}
     * @param baseDivisor what the base run's figures are divided by
     * @param newDivisor  what the new run's figures are divided by
     * @param unit        the unit of divided figures: {@code bytes}, {@code bytes/s} or {@code bytes/unit}
     */
    public record Normalization(String kind, double baseDivisor, double newDivisor, String unit) {
        /** Absolute figures. */
        public static final Normalization NONE = new Normalization("none", 1, 1, "bytes");
    }

    /**
     * A run's figures (totals, or one site's or stack's), divided by the run's divisor.
     *
     * @param allocatedBytes   heap bytes allocated
     * @param allocatedObjects heap objects allocated
     * @param liveBytes        heap bytes held at the end
     * @param liveObjects      heap objects held at the end
     * @param peakBytes        heap bytes held at the run's peak collection
     * @param peakObjects      heap objects held then
     * @param nativeBytes      native bytes outstanding at the end
     * @param nativeBlocks     native blocks outstanding at the end
     * @param allocatedSamples sampled objects behind {@code allocatedBytes} (not divided)
     * @param liveSamples      sampled objects behind {@code liveBytes} (not divided)
     * @param peakSamples      sampled objects behind {@code peakBytes} (not divided)
     */
    public record Figures(double allocatedBytes, double allocatedObjects, double liveBytes, double liveObjects,
                         double peakBytes, double peakObjects, double nativeBytes, double nativeBlocks,
                         long allocatedSamples, long liveSamples, long peakSamples) {
        /** No figures (a site absent from a run). */
        public static final Figures ZERO = new Figures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        /** @return these figures and {@code o}'s summed (two sites of a run that a diff takes as one) */
        public Figures plus(Figures o) {
            return new Figures(allocatedBytes + o.allocatedBytes, allocatedObjects + o.allocatedObjects,
                    liveBytes + o.liveBytes, liveObjects + o.liveObjects, peakBytes + o.peakBytes,
                    peakObjects + o.peakObjects, nativeBytes + o.nativeBytes, nativeBlocks + o.nativeBlocks,
                    allocatedSamples + o.allocatedSamples, liveSamples + o.liveSamples, peakSamples + o.peakSamples);
        }

        /** @return the sampled objects behind {@link #value}; 0 for native memory (exact, not sampled) */
        public long samples(DiffMetric m) {
            return switch (m) {
                case ALLOCATED -> allocatedSamples;
                case LIVE -> liveSamples;
                case PEAK -> peakSamples;
                case NATIVE -> 0;
            };
        }

        /** @return the bytes figure of {@code m} */
        public double value(DiffMetric m) {
            return switch (m) {
                case ALLOCATED -> allocatedBytes;
                case LIVE -> liveBytes;
                case PEAK -> peakBytes;
                case NATIVE -> nativeBytes;
            };
        }

        /** @return the object (native: block) count that goes with {@link #value} */
        public double count(DiffMetric m) {
            return switch (m) {
                case ALLOCATED -> allocatedObjects;
                case LIVE -> liveObjects;
                case PEAK -> peakObjects;
                case NATIVE -> nativeBlocks;
            };
        }
    }

    /**
     * One site or stack in both runs.
     *
     * @param site   the site as a frame
     * @param type   allocated type ({@code native:...} for native memory)
     * @param frames the stack's frames, innermost first (for a site entry: its one sampled stack from either run)
     * @param base   figures in the base run ({@link Figures#ZERO} when absent)
     * @param newer  figures in the new run ({@link Figures#ZERO} when absent)
     * @param stdError    the standard error of the metric's change from sampling ({@link Significance}); 0 for
     *                    exact figures
     * @param significant whether the metric's change is more than sampling noise
     */
    public record Entry(String site, String type, List<String> frames, Figures base, Figures newer, double stdError,
                        boolean significant) {
        /** @return new minus base of the metric */
        public double delta(DiffMetric m) {
            return newer.value(m) - base.value(m);
        }

        /**
         * @return what happened to the metric: {@code grew}, {@code shrank}, {@code new} (absent from the base run),
         *         {@code gone} (absent from the new run), {@code same}, or {@code noise} (a change within sampling
         *         noise)
         */
        public String verdict(DiffMetric m) {
            double d = delta(m);
            if (!significant) {
                return Math.abs(d) < 0.5 ? "same" : "noise";
            }
            if (base.value(m) == 0) {
                return "new";
            }
            if (newer.value(m) == 0) {
                return "gone";
            }
            return d > 0 ? "grew" : "shrank";
        }
    }
}
