package io.memscope.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Compares two {@link Report}s into a {@link RunDiff}: matches sites and stacks, divides figures by the
 * normalization, and tests every change of the metric against sampling noise ({@link SamplingNoise}).
 */
public final class DiffBuilder {
    private DiffBuilder() {
    }

    /**
     * @param per the user's units of work of the base and the new run ({@code --per}), or null; with it figures are
     *            divided by those counts, else with {@code normalize} by each run's duration in seconds
     */
    public static RunDiff diff(Report base, Report newer, DiffMetric metric, boolean normalize, double[] per) {
        RunDiff.Normalization n = RunDiff.Normalization.NONE;
        if (per != null) {
            if (per.length != 2 || !(per[0] > 0) || !(per[1] > 0)) {
                throw io.memscope.error.MemscopeException.configuration(
                        "--per needs two positive counts, BASE,NEW (units of work done by each run)");
            }
            n = new RunDiff.Normalization("per-unit", per[0], per[1], "bytes/unit");
        } else if (normalize) {
            n = new RunDiff.Normalization("duration", Math.max(1, base.totals().durationMs()) / 1000.0,
                    Math.max(1, newer.totals().durationMs()) / 1000.0, "bytes/s");
        }
        RunDiff.Figures bt = totals(base, n.baseDivisor());
        RunDiff.Figures nt = totals(newer, n.newDivisor());

        // sites and stacks are matched by name with hidden classes' addresses left out: a lambda's class is
        // Foo$$Lambda$84.0x00007fd4780b4498 in one run and Foo$$Lambda$112.0x00007f62941069c8 in the next
        Map<String, RunDiff.Entry> sites = new LinkedHashMap<>();
        for (SiteProfile p : base.sites()) {
            merge(sites, false, p.site(), p.type(), p.stack(), site(p, n.baseDivisor()), RunDiff.Figures.ZERO);
        }
        for (SiteProfile p : newer.sites()) {
            merge(sites, false, p.site(), p.type(), p.stack(), RunDiff.Figures.ZERO, site(p, n.newDivisor()));
        }
        Map<String, RunDiff.Entry> stacks = new LinkedHashMap<>();
        for (StackProfile p : base.stacks()) {
            merge(stacks, true, p.site(), p.type(), p.frames(), stack(p, n.baseDivisor()), RunDiff.Figures.ZERO);
        }
        for (StackProfile p : newer.stacks()) {
            merge(stacks, true, p.site(), p.type(), p.frames(), RunDiff.Figures.ZERO, stack(p, n.newDivisor()));
        }
        List<RunDiff.Entry> siteList = compared(sites.values(), metric);
        // the family of tests: every site compared, and the total
        int tests = siteList.size() + 1;
        double z = SamplingNoise.criticalZ(tests);
        double bf = varianceFactor(base, metric, n.baseDivisor());
        double nf = varianceFactor(newer, metric, n.newDivisor());
        String model = noiseModel(base, newer, metric);
        RunDiff.Significance probe = new RunDiff.Significance(z, tests, bf, nf, 0, false, model);
        double totalError = probe.stdError(bt.value(metric), nt.value(metric));
        // native memory is exact but for malloc's part, estimated from samples: its own factors (0 without malloc)
        RunDiff.Significance malloc = metric != DiffMetric.NATIVE ? null
                : new RunDiff.Significance(z, tests, mallocFactor(base, n.baseDivisor()),
                        mallocFactor(newer, n.newDivisor()), 0, false, model);
        if (malloc != null) {
            totalError = malloc.stdError(mallocOutstanding(base) / n.baseDivisor(),
                    mallocOutstanding(newer) / n.newDivisor());
        }
        RunDiff.Significance sig = new RunDiff.Significance(z, tests, bf, nf, totalError,
                SamplingNoise.significant(nt.value(metric) - bt.value(metric), totalError, z), model);
        List<RunDiff.Entry> siteResult = tested(siteList, metric, sig, malloc);
        siteResult.sort(Comparator.comparing((RunDiff.Entry e) -> !e.significant())
                .thenComparingDouble(e -> -Math.abs(e.delta(metric)))
                .thenComparing(e -> -e.newer().value(metric)).thenComparing(RunDiff.Entry::site));
        List<RunDiff.Entry> stackResult = tested(compared(stacks.values(), metric), metric, sig, malloc);
        stackResult.sort(Comparator.comparingDouble((RunDiff.Entry e) -> -Math.abs(e.delta(metric)))
                .thenComparing(e -> -e.newer().value(metric)).thenComparing(RunDiff.Entry::site));
        return new RunDiff(metric, n, bt, nt, sig, siteResult, stackResult);
    }

    /**
     * The variance of a run's figure of {@code m}, per unit of the figure as divided: the sampling interval over
     * the divisor ({@link SamplingNoise#variance}: {@code var(B/d) ≤ m·B/d² = (m/d)·(B/d)}), or 0 for exact figures.
     */
    static double varianceFactor(Report r, DiffMetric m, double divisor) {
        boolean exact = m == DiffMetric.NATIVE || (m == DiffMetric.ALLOCATED && r.totals().exact());
        if (exact) {
            return 0;
        }
        if (jfr(r)) {
            if (m != DiffMetric.ALLOCATED) {
                return 0; // the sampled old objects' own sizes: compared as they are (noiseModel says so)
            }
            String w = r.metadata().get(JfrSource.EFFECTIVE_WEIGHT_BYTES);
            try {
                return w == null ? 0 : Math.max(1, Long.parseLong(w.strip())) / divisor;
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        double interval = 512 * 1024;
        String v = r.metadata().get(io.memscope.launch.MetadataKeys.INTERVAL_BYTES);
        if (v != null) {
            try {
                interval = Math.max(1, Long.parseLong(v.strip()));
            } catch (NumberFormatException e) {
                // the default interval
            }
        }
        return interval / divisor;
    }

    /** @return whether the run was read from a JFR recording */
    static boolean jfr(Report r) {
        return "jfr".equals(r.metadata().get(io.memscope.launch.MetadataKeys.MODE));
    }

    /**
     * @return what the noise band assumes of a JFR run's figures (one sentence), or null when both runs are
     *         memscope's (their Poisson sampling: {@link SamplingNoise})
     */
    static String noiseModel(Report base, Report newer, DiffMetric m) {
        if (!jfr(base) && !jfr(newer)) {
            return null;
        }
        if (m == DiffMetric.ALLOCATED) {
            return "JFR run: a site's allocated bytes are the sum of its samples' weights; their variance is taken as "
                    + "the recording's size-biased mean weight (sum of squared weights over sum of weights: base "
                    + weightOf(base) + ", new " + weightOf(newer) + ") times the figure, assuming a sample lands on a"
                    + " site in proportion to the site's bytes and its weight does not depend on the site; memscope "
                    + "runs use their sampling interval";
        }
        if (m == DiffMetric.NATIVE) {
            return "JFR run: native blocks (async-profiler's nativemem) are compared as exact";
        }
        return "JFR run: held figures are the sizes of the old objects JFR sampled, not estimates: compared as "
                + "exact, with no noise band";
    }

    private static String weightOf(Report r) {
        if (!jfr(r)) {
            String v = r.metadata().get(io.memscope.launch.MetadataKeys.INTERVAL_BYTES);
            return (v == null ? "524288" : v.strip()) + " B (memscope's interval)";
        }
        String w = r.metadata().get(JfrSource.EFFECTIVE_WEIGHT_BYTES);
        return w == null ? "none (no allocation samples)" : w + " B";
    }

    /** @return the malloc sampling interval over the divisor, or 0 when the run has no malloc samples */
    static double mallocFactor(Report r, double divisor) {
        Report.Malloc m = r.nativeMemory().malloc();
        return m == null || m.samples() == 0 && m.outstandingSamples() == 0 ? 0 : m.intervalBytes() / divisor;
    }

    private static double mallocOutstanding(Report r) {
        Report.Malloc m = r.nativeMemory().malloc();
        return m == null ? 0 : m.outstandingBytes();
    }

    private static RunDiff.Entry entry(String site, String type, List<String> frames, RunDiff.Figures base,
                                       RunDiff.Figures newer) {
        return new RunDiff.Entry(site, type, frames, base, newer, 0, false);
    }

    /** @param malloc the test of malloc sites' and stacks' native figures (estimates), or null */
    private static List<RunDiff.Entry> tested(List<RunDiff.Entry> l, DiffMetric m, RunDiff.Significance sig,
                                              RunDiff.Significance malloc) {
        List<RunDiff.Entry> out = new ArrayList<>(l.size());
        for (RunDiff.Entry e : l) {
            RunDiff.Significance test = malloc != null && io.memscope.recording.Site.NATIVE_MALLOC.equals(e.type())
                    ? malloc : sig;
            double err = test.stdError(e.base().value(m), e.newer().value(m));
            out.add(new RunDiff.Entry(e.site(), e.type(), e.frames(), e.base(), e.newer(), err,
                    SamplingNoise.significant(e.delta(m), err, sig.z())));
        }
        return out;
    }

    /** A lambda's class number and a hidden class's address: {@code $$Lambda$84} and {@code .0x00007fd4780b4498}. */
    private static final Pattern LAMBDA_NUMBER = Pattern.compile("\\$\\$Lambda\\$\\d+");
    private static final Pattern HIDDEN_ADDRESS = Pattern.compile("(?<=[\\w$])[./]0x\\p{XDigit}+(?![\\w$])");

    /**
     * @return {@code name} (a class, a site or a frame) with the parts of hidden classes' names that change from
     *         run to run left out: {@code Foo$$Lambda$84.0x00007fd4780b4498} and {@code Foo$$Lambda/0x0000000801001234}
     *         are both {@code Foo$$Lambda}
     */
    static String withoutHiddenAddresses(String name) {
        if (name == null || name.indexOf("0x") < 0 && name.indexOf("$$Lambda$") < 0) {
            return name;
        }
        return HIDDEN_ADDRESS.matcher(LAMBDA_NUMBER.matcher(name).replaceAll("\\$\\$Lambda")).replaceAll("");
    }

    /**
     * Adds one site's or stack's figures to {@code into}, under its name with hidden classes' addresses left out;
     * two sites of a run with the same such name (two lambda classes of one line) are summed.
     *
     * @param byFrames whether entries are stacks, matched by their frames and type, rather than sites, matched by
     *                 site and type
     */
    private static void merge(Map<String, RunDiff.Entry> into, boolean byFrames, String site, String type,
                              List<String> frames, RunDiff.Figures base, RunDiff.Figures newer) {
        String s = withoutHiddenAddresses(site);
        String t = withoutHiddenAddresses(type);
        List<String> f = frames == null ? List.of()
                : frames.stream().map(DiffBuilder::withoutHiddenAddresses).toList();
        String key = (byFrames ? String.join("\u0001", f) : s) + "\u0000" + t;
        into.merge(key, entry(s, t, f, base, newer), (a, b) -> entry(a.site(), a.type(),
                a.frames().isEmpty() ? b.frames() : a.frames(), a.base().plus(b.base()), a.newer().plus(b.newer())));
    }

    /**
     * @return the entries with some of the metric in either run: a site with none in both (a heap site in a diff of
     *         native memory, a temporary in a diff of held bytes) is not a comparison, and is left out of the table
     *         and of the family of tests
     */
    private static List<RunDiff.Entry> compared(java.util.Collection<RunDiff.Entry> entries, DiffMetric m) {
        List<RunDiff.Entry> l = new ArrayList<>(entries);
        l.removeIf(e -> e.base().value(m) == 0 && e.newer().value(m) == 0 && e.base().count(m) == 0
                && e.newer().count(m) == 0 && e.base().samples(m) == 0 && e.newer().samples(m) == 0);
        return l;
    }

    private static RunDiff.Figures totals(Report r, double d) {
        Report.Totals t = r.totals();
        long peakObjects = r.peak() == null ? 0 : r.peak().estimatedObjects();
        long liveObjects = 0;
        long liveSamples = 0;
        long peakSamples = 0;
        for (SiteProfile p : r.sites()) {
            if (!p.nativeMemory()) {
                liveObjects += p.liveObjects();
                liveSamples += p.liveSamples();
                peakSamples += p.heldAtPeakSamples();
            }
        }
        return new RunDiff.Figures(t.allocatedBytes() / d, t.allocatedObjects() / d, t.heldAtEndBytes() / d,
                liveObjects / d, t.peakHeldBytes() / d, peakObjects / d, r.nativeMemory().outstandingBytes() / d,
                r.nativeMemory().outstandingBlocks() / d, t.samples(), liveSamples, peakSamples);
    }

    private static RunDiff.Figures site(SiteProfile p, double d) {
        if (p.nativeMemory()) {
            return new RunDiff.Figures(0, 0, 0, 0, 0, 0, p.liveBytes() / d, p.liveObjects() / d, p.samples(),
                    p.liveSamples(), 0);
        }
        return new RunDiff.Figures(p.allocatedBytes() / d, p.allocatedObjects() / d, p.liveBytes() / d,
                p.liveObjects() / d, p.heldAtPeakBytes() / d, p.heldAtPeakObjects() / d, 0, 0, p.samples(),
                p.liveSamples(), p.heldAtPeakSamples());
    }

    private static RunDiff.Figures stack(StackProfile p, double d) {
        if (p.nativeMemory()) {
            return new RunDiff.Figures(0, 0, 0, 0, 0, 0, p.heldBytes() / d, p.heldObjects() / d, 0, 0, 0);
        }
        return new RunDiff.Figures(p.allocatedBytes() / d, p.allocatedObjects() / d, p.heldBytes() / d,
                p.heldObjects() / d, p.heldAtPeakBytes() / d, p.heldAtPeakObjects() / d, 0, 0, 0, 0, 0);
    }
}
