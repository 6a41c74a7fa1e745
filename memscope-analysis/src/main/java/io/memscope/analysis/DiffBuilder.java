package io.memscope.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Compares two {@link Report}s into a {@link RunDiff}. */
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

        Map<String, RunDiff.Entry> sites = new LinkedHashMap<>();
        for (SiteProfile p : base.sites()) {
            sites.put(p.site() + "\u0000" + p.type(), new RunDiff.Entry(p.site(), p.type(), p.stack(),
                    site(p, n.baseDivisor()), RunDiff.Figures.ZERO));
        }
        for (SiteProfile p : newer.sites()) {
            String key = p.site() + "\u0000" + p.type();
            RunDiff.Entry e = sites.get(key);
            sites.put(key, new RunDiff.Entry(p.site(), p.type(), e == null || e.frames().isEmpty() ? p.stack()
                    : e.frames(), e == null ? RunDiff.Figures.ZERO : e.base(), site(p, n.newDivisor())));
        }
        Map<String, RunDiff.Entry> stacks = new LinkedHashMap<>();
        for (StackProfile p : base.stacks()) {
            stacks.put(stackKey(p), new RunDiff.Entry(p.site(), p.type(), p.frames(), stack(p, n.baseDivisor()),
                    RunDiff.Figures.ZERO));
        }
        for (StackProfile p : newer.stacks()) {
            String key = stackKey(p);
            RunDiff.Entry e = stacks.get(key);
            stacks.put(key, new RunDiff.Entry(p.site(), p.type(), p.frames(),
                    e == null ? RunDiff.Figures.ZERO : e.base(), stack(p, n.newDivisor())));
        }
        return new RunDiff(metric, n, bt, nt, sorted(sites.values(), metric), sorted(stacks.values(), metric));
    }

    private static String stackKey(StackProfile p) {
        return String.join("\u0001", p.frames()) + "\u0000" + p.type();
    }

    private static List<RunDiff.Entry> sorted(java.util.Collection<RunDiff.Entry> entries, DiffMetric m) {
        List<RunDiff.Entry> l = new ArrayList<>(entries);
        l.removeIf(e -> e.base().value(m) == 0 && e.newer().value(m) == 0 && e.base().count(m) == 0
                && e.newer().count(m) == 0 && allZero(e));
        l.sort(Comparator.comparingDouble((RunDiff.Entry e) -> -Math.abs(e.delta(m)))
                .thenComparing(e -> -e.newer().value(m)).thenComparing(RunDiff.Entry::site));
        return l;
    }

    private static boolean allZero(RunDiff.Entry e) {
        return e.base().equals(RunDiff.Figures.ZERO) && e.newer().equals(RunDiff.Figures.ZERO);
    }

    private static RunDiff.Figures totals(Report r, double d) {
        Report.Totals t = r.totals();
        long peakObjects = r.peak() == null ? 0 : r.peak().estimatedObjects();
        long liveObjects = 0;
        for (SiteProfile p : r.sites()) {
            if (!p.nativeMemory()) {
                liveObjects += p.liveObjects();
            }
        }
        return new RunDiff.Figures(t.allocatedBytes() / d, t.allocatedObjects() / d, t.liveBytesAtEnd() / d,
                liveObjects / d, t.peakLiveBytes() / d, peakObjects / d, r.nativeMemory().outstandingBytes() / d,
                r.nativeMemory().outstandingBlocks() / d);
    }

    private static RunDiff.Figures site(SiteProfile p, double d) {
        if (p.nativeMemory()) {
            return new RunDiff.Figures(0, 0, 0, 0, 0, 0, p.liveBytes() / d, p.liveObjects() / d);
        }
        return new RunDiff.Figures(p.allocatedBytes() / d, p.allocatedObjects() / d, p.liveBytes() / d,
                p.liveObjects() / d, p.heldAtPeakBytes() / d, p.heldAtPeakObjects() / d, 0, 0);
    }

    private static RunDiff.Figures stack(StackProfile p, double d) {
        if (p.nativeMemory()) {
            return new RunDiff.Figures(0, 0, 0, 0, 0, 0, p.heldBytes() / d, p.heldObjects() / d);
        }
        return new RunDiff.Figures(p.allocatedBytes() / d, p.allocatedObjects() / d, p.heldBytes() / d,
                p.heldObjects() / d, p.heldAtPeakBytes() / d, p.heldAtPeakObjects() / d, 0, 0);
    }
}
