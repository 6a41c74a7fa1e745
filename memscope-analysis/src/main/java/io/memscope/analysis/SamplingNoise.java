package io.memscope.analysis;

/**
 * How precise a figure estimated from heap samples is, and whether a difference between two such figures is more
 * than sampling noise.
 *
 * <p><b>The bound.</b> An object of {@code s} bytes is sampled with probability {@code p = 1 - exp(-s/m)} ({@code m}:
 * the sampling interval) and stands for {@code w = s/p} bytes, so an estimate is {@code B = Σ w} over its samples.
 * Its variance (Horvitz-Thompson, objects sampled independently) is {@code Σ w²(1-p)}, and for every sample
 * {@code w(1-p) = m·x/(e^x - 1) ≤ m} with {@code x = s/m}: the variance is at most {@code m·B}. Small objects
 * ({@code s ≪ m}) reach the bound, each sample standing for about {@code m} bytes: then {@code B/m} is the sample
 * count and the bound is the Poisson variance of that count; large objects are sampled almost surely and do better.
 * So {@code m·B} is a variance that never under-states the noise, computed from the figure alone.
 *
 * <p><b>The test.</b> A change {@code N - B} of a figure between two runs is significant when
 * {@code |N - B| > z·√(m_B·B + m_N·N)} (each side's variance bound with its own interval, after dividing by the
 * runs' normalization). {@code z} makes the family of tests of one comparison (every site compared and the total)
 * keep a false-alarm rate of {@value #FAMILY_FALSE_ALARM_RATE}: each test is two-sided at level
 * {@code 0.05/k} for {@code k} tests (Bonferroni), so two runs of the same program, differing only by sampling, show
 * any significant change at most 5% of the time. Exact figures (exact mode's allocated counts, native memory) have no
 * sampling noise: any difference is significant. The test says nothing about the program's own run-to-run
 * variation (a different amount of work, timing): normalize by units of work ({@code --per}) for that.
 */
public final class SamplingNoise {
    /** The family-wise false-alarm rate of one comparison's tests. */
    public static final double FAMILY_FALSE_ALARM_RATE = 0.05;

    private SamplingNoise() {
    }

    /**
     * @param estimate the estimated figure (bytes), from samples taken at {@code interval}
     * @param interval the sampling interval, bytes
     * @return an upper bound of the estimate's variance, bytes²: {@code interval × |estimate|}
     */
    public static double variance(double estimate, double interval) {
        return interval * Math.abs(estimate);
    }

    /**
     * @param tests tests made in one comparison (at least 1)
     * @return the two-sided critical value of each test for a family-wise false-alarm rate of
     *         {@value #FAMILY_FALSE_ALARM_RATE} over {@code tests} tests
     */
    public static double criticalZ(int tests) {
        return upperQuantile(FAMILY_FALSE_ALARM_RATE / (2.0 * Math.max(1, tests)));
    }

    /** @return {@code z} with {@code P(Z > z) = q} for a standard normal {@code Z}, {@code 0 < q < 1} */
    static double upperQuantile(double q) {
        double lo = -40;
        double hi = 40;
        for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
            double mid = (lo + hi) / 2;
            if (upperTail(mid) > q) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    /** @return {@code P(Z > z)} for a standard normal {@code Z} */
    static double upperTail(double z) {
        return 0.5 * erfc(z / Math.sqrt(2));
    }

    /**
     * The complementary error function, fractional error below 1.2e-7 everywhere (a Chebyshev fit of
     * {@code erfc(x)·exp(x²)}, as in Numerical Recipes' {@code erfcc}).
     */
    static double erfc(double x) {
        double z = Math.abs(x);
        double t = 1 / (1 + 0.5 * z);
        double r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
                + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
                + t * (-0.82215223 + t * 0.17087277)))))))));
        return x >= 0 ? r : 2 - r;
    }

    /**
     * Whether a change is significant: more than {@code z} standard errors, or any change of exact figures.
     *
     * @param delta    new minus base
     * @param stdError the change's standard error (0 for exact figures)
     * @param z        the critical value ({@link #criticalZ})
     */
    public static boolean significant(double delta, double stdError, double z) {
        if (stdError <= 0) {
            return Math.abs(delta) >= 0.5; // exact figures: any difference (of at least half a byte, after rounding)
        }
        return Math.abs(delta) > z * stdError;
    }
}
