package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.memscope.launch.MetadataKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The diff's significance test ({@link SamplingNoise}, {@link DiffBuilder}) against the sampling it models: two runs
 * of the same program, each sampled the way the agent samples (each object with probability {@code 1 - exp(-s/m)},
 * weighted {@code s/p}), compared many times: the share of comparisons with any change called significant is the
 * false-alarm rate the docs state (at most 5%), and a real change is found.
 */
class DiffSignificanceTest {
    private static final long INTERVAL = 64 * 1024;

    /** A program: per site, object size and count; figures per run are what the sampler would estimate. */
    private record Program(long[] sizes, long[] counts) {
    }

    private static Program program(SplittableRandom r, int sites) {
        long[] sizes = new long[sites];
        long[] counts = new long[sites];
        for (int i = 0; i < sites; i++) {
            // mostly small objects (a sample stands for about one interval), some large (sampled almost surely)
            sizes[i] = i % 10 == 9 ? 64 * 1024 + r.nextLong(512 * 1024) : 16 + r.nextLong(4096);
            counts[i] = 1 + r.nextLong(i % 10 == 9 ? 40 : 4000);
        }
        return new Program(sizes, counts);
    }

    /** One run of {@code p}: every object sampled independently, estimates as the analysis makes them. */
    private static Report run(Program p, SplittableRandom r, double scaleOf) {
        List<SiteProfile> sites = new ArrayList<>();
        long bytes = 0;
        long objects = 0;
        long samples = 0;
        for (int i = 0; i < p.sizes().length; i++) {
            long s = p.sizes()[i];
            long n = Math.round(p.counts()[i] * (i == 0 ? scaleOf : 1));
            double prob = -Math.expm1(-(double) s / INTERVAL);
            long k = 0;
            for (long j = 0; j < n; j++) {
                if (r.nextDouble() < prob) {
                    k++;
                }
            }
            long b = Math.round(k * s / prob);
            long c = Math.round(k / prob);
            bytes += b;
            objects += c;
            samples += k;
            if (k > 0) {
                sites.add(new SiteProfile("app.Work.site" + i + "(Work.java:" + (10 + i) + ")", "byte[]", false, b,
                        c, k, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, false, false, List.of(), 0, 0, 0, null));
            }
        }
        return report(sites, new Report.Totals(bytes, objects, 0, 0, samples, 1000, false, Double.NaN, null, 0, 0, 0, Double.NaN));
    }

    static Report report(List<SiteProfile> sites, Report.Totals totals) {
        return new Report(Map.of(MetadataKeys.INTERVAL_BYTES, Long.toString(INTERVAL)),
                new Report.Source("test", "1.0", true, true, 0, 0, null, -1, 0),
                new Report.Window(0, 0, 1_000_000_000L, false), totals, null, sites, List.of(), List.of(), List.of(),
                List.of(), new Report.NativeMemory(0, 0, 0, 0, 0, 0, null, List.of(), List.of(), Map.of(), List.of(), null),
                new Report.Gc(0, 0, 0, 0, 0, 0, List.of()), new Timeline(0, 1, List.of()), List.of(), 0, List.of(),
                ApiReport.EMPTY, null, new Report.HeapCheck(0, 0, 0, Double.NaN, null, 0, 0, 0), Retention.NONE);
    }

    @Test
    void theCriticalValueIsTheNormalQuantileOfTheBonferroniLevel() {
        assertThat(SamplingNoise.criticalZ(1)).isCloseTo(1.95996, within(1e-4));
        assertThat(SamplingNoise.criticalZ(100)).isCloseTo(3.4808, within(1e-3));
        assertThat(SamplingNoise.upperTail(3)).isCloseTo(0.0013499, within(1e-6));
    }

    @Test
    void twoRunsOfTheSameProgramShowAnySignificantChangeInAtMostFivePercentOfComparisons() {
        SplittableRandom r = new SplittableRandom(20240611);
        int comparisons = 400;
        int withFalseAlarm = 0;
        int rawSwingsOver50Percent = 0;
        for (int t = 0; t < comparisons; t++) {
            Program p = program(r, 60);
            Report a = run(p, r, 1);
            Report b = run(p, r, 1);
            RunDiff d = DiffBuilder.diff(a, b, DiffMetric.ALLOCATED, false, null);
            boolean any = d.totalSignificant();
            for (RunDiff.Entry e : d.sites()) {
                any |= e.significant();
                double base = e.base().value(DiffMetric.ALLOCATED);
                if (base > 0 && Math.abs(e.delta(DiffMetric.ALLOCATED)) > base / 2) {
                    rawSwingsOver50Percent++;
                }
            }
            if (any) {
                withFalseAlarm++;
            }
        }
        assertThat(rawSwingsOver50Percent).as("the noise is there: sites swing by half and more").isGreaterThan(1000);
        // the stated rate is 5%; the binomial spread of 400 comparisons is about 1.1%
        assertThat(withFalseAlarm).as("comparisons with a false alarm, of %d", comparisons)
                .isLessThanOrEqualTo((int) (comparisons * 0.08));
    }

    @Test
    void aRealChangeIsSignificantAndTheRestIsNot() {
        SplittableRandom r = new SplittableRandom(7);
        Program p = program(r, 60);
        p.counts()[0] = 4000;
        p.sizes()[0] = 1024; // 4 MiB at a 64 KiB interval: about 62 samples
        Report a = run(p, r, 1);
        Report b = run(p, r, 3); // site 0 allocates three times as much
        RunDiff d = DiffBuilder.diff(a, b, DiffMetric.ALLOCATED, false, null);
        RunDiff.Entry first = d.sites().get(0);
        assertThat(first.site()).startsWith("app.Work.site0(");
        assertThat(first.significant()).as("%s: %s -> %s, noise %s, z %s, tests %s", first.site(), first.base(),
                first.newer(), first.stdError(), d.significance().z(), d.significance().tests()).isTrue();
        assertThat(first.verdict(DiffMetric.ALLOCATED)).isEqualTo("grew");
        assertThat(first.newer().samples(DiffMetric.ALLOCATED)).isGreaterThan(first.base().samples(DiffMetric.ALLOCATED));
        assertThat(d.sites().stream().skip(1).filter(RunDiff.Entry::significant)).hasSizeLessThan(2);
    }

    @Test
    void exactFiguresHaveNoSamplingNoise() {
        SiteProfile one = new SiteProfile("app.Work.x(Work.java:1)", "byte[]", false, 1000, 10, 0, 0, 0, 0, 0, 0, 0,
                0, 0, -1, -1, false, false, List.of(), 0, 0, 0, null);
        SiteProfile two = new SiteProfile("app.Work.x(Work.java:1)", "byte[]", false, 1001, 10, 0, 0, 0, 0, 0, 0, 0,
                0, 0, -1, -1, false, false, List.of(), 0, 0, 0, null);
        Report a = report(List.of(one), new Report.Totals(1000, 10, 0, 0, 0, 1000, true, Double.NaN, null, 0, 0, 0, Double.NaN));
        Report b = report(List.of(two), new Report.Totals(1001, 10, 0, 0, 0, 1000, true, Double.NaN, null, 0, 0, 0, Double.NaN));
        RunDiff d = DiffBuilder.diff(a, b, DiffMetric.ALLOCATED, false, null);
        assertThat(d.significance().baseFactor()).isZero();
        assertThat(d.sites().get(0).significant()).as("one byte more, counted exactly").isTrue();
        assertThat(d.totalSignificant()).isTrue();
    }
}
