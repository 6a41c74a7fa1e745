package io.memscope.analysis;

import io.memscope.analysis.text.TerminalText;
import java.util.Locale;

/**
 * The terminal table of a {@link RunDiff}: totals of both runs, then the sites, significant changes first. Each row
 * shows the sample counts behind both figures and a verdict: a change within sampling noise says {@code noise}.
 */
public final class DiffText {
    private DiffText() {
    }

    public static String format(RunDiff d, int top) {
        DiffMetric m = d.metric();
        String unit = d.normalization().unit();
        RunDiff.Significance sig = d.significance();
        StringBuilder sb = new StringBuilder(4096);
        sb.append(String.format(Locale.ROOT, "memscope diff: %s %s%s%n", m.label(),
                m == DiffMetric.NATIVE ? "native bytes outstanding at the end" : m == DiffMetric.ALLOCATED
                        ? "heap bytes allocated" : m == DiffMetric.LIVE ? "heap bytes held at the end"
                        : "heap bytes held at the peak",
                d.normalization().kind().equals("none") ? "" : " (" + unit + ")"));
        double tb = d.base().value(m);
        double tn = d.newer().value(m);
        sb.append(String.format(Locale.ROOT, "  total: base %s, new %s, change %s (%s), %s%n", amount(tb),
                amount(tn), signed(tn - tb), percent(d.totalChangePercent()), d.totalSignificant()
                        ? "significant" + noise(sig.totalStdError(), sig.z())
                        : "within sampling noise" + noise(sig.totalStdError(), sig.z())));
        sb.append(String.format(Locale.ROOT, "  %12s %12s %12s %8s %17s  %-7s %s%n", "base", "new", "change", "",
                "samples", "", "site"));
        int n = 0;
        int noise = 0;
        for (RunDiff.Entry e : d.sites()) {
            if (!e.significant()) {
                noise++;
            }
            if (n++ >= top) {
                continue;
            }
            double b = e.base().value(m);
            double v = e.newer().value(m);
            double pct = b == 0 ? (v == 0 ? 0 : Double.POSITIVE_INFINITY) : (v - b) * 100 / b;
            sb.append(String.format(Locale.ROOT, "  %12s %12s %12s %8s %17s  %-7s %s  [%s]%n", amount(b), amount(v),
                    signed(v - b), percent(pct), samples(e, m, sig), e.verdict(m), TerminalText.safe(e.site()),
                    TerminalText.safe(e.type())));
        }
        if (d.sites().isEmpty()) {
            sb.append("  no sites\n");
        }
        boolean exact = sig.baseFactor() == 0 && sig.newFactor() == 0
                && d.sites().stream().noneMatch(e -> io.memscope.recording.Site.NATIVE_MALLOC.equals(e.type()));
        if (exact) {
            // direct buffers, Unsafe and arenas are counted, not sampled: no test, every change is one
            sb.append(String.format(Locale.ROOT, "  %d of %d sites changed (exact figures: no sampling noise)%n",
                    d.sites().size() - noise, d.sites().size()));
        } else {
            sb.append(String.format(Locale.ROOT, "  %d of %d sites changed by more than sampling noise; \"noise\": a "
                            + "change sampling alone explains (two-sided test on each site's samples, at most %.0f%% "
                            + "chance of any false alarm in this comparison: docs/formats/report-json.md)%n",
                    d.sites().size() - noise, d.sites().size(), SamplingNoise.FAMILY_FALSE_ALARM_RATE * 100));
        }
        if (sig.model() != null) {
            sb.append("  noise model: ").append(sig.model()).append('\n');
        }
        return sb.toString();
    }

    private static String samples(RunDiff.Entry e, DiffMetric m, RunDiff.Significance sig) {
        if (sig.baseFactor() == 0 && sig.newFactor() == 0) {
            return "exact";
        }
        return e.base().samples(m) + " -> " + e.newer().samples(m);
    }

    private static String noise(double stdError, double z) {
        if (stdError <= 0) {
            return " (exact figures)";
        }
        return " (noise: ±" + Summary.bytes(Math.round(z * stdError)) + ")";
    }

    static String percent(double p) {
        if (Double.isInfinite(p)) {
            return "new";
        }
        return String.format(Locale.ROOT, "%+.1f%%", p);
    }

    private static String amount(double v) {
        return Summary.bytes(Math.round(Math.abs(v)));
    }

    private static String signed(double v) {
        return (v < 0 ? "-" : "+") + Summary.bytes(Math.round(Math.abs(v)));
    }
}
