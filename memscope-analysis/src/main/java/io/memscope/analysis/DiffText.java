package io.memscope.analysis;

import io.memscope.internal.text.TerminalText;
import java.util.Locale;

/** The terminal table of a {@link RunDiff}: totals of both runs, then the sites with the largest changes. */
public final class DiffText {
    private DiffText() {
    }

    public static String format(RunDiff d, int top) {
        DiffMetric m = d.metric();
        String unit = d.normalization().unit();
        StringBuilder sb = new StringBuilder(4096);
        sb.append(String.format(Locale.ROOT, "memscope diff: %s %s%s%n", m.label(),
                m == DiffMetric.NATIVE ? "native bytes outstanding at the end" : m == DiffMetric.ALLOCATED
                        ? "heap bytes allocated" : m == DiffMetric.LIVE ? "heap bytes held at the end"
                        : "heap bytes held at the peak",
                d.normalization().kind().equals("none") ? "" : " (" + unit + ")"));
        sb.append(String.format(Locale.ROOT, "  total: base %s, new %s, change %s (%s)%n", amount(d.base().value(m)),
                amount(d.newer().value(m)), signed(d.newer().value(m) - d.base().value(m)),
                percent(d.totalChangePercent())));
        sb.append(String.format(Locale.ROOT, "  %12s %12s %12s %8s  %s%n", "base", "new", "change", "", "site"));
        int n = 0;
        for (RunDiff.Entry e : d.sites()) {
            if (n++ == top) {
                break;
            }
            double b = e.base().value(m);
            double v = e.newer().value(m);
            double pct = b == 0 ? (v == 0 ? 0 : Double.POSITIVE_INFINITY) : (v - b) * 100 / b;
            sb.append(String.format(Locale.ROOT, "  %12s %12s %12s %8s  %s  [%s]%n", amount(b), amount(v),
                    signed(v - b), percent(pct), TerminalText.safe(e.site()), TerminalText.safe(e.type())));
        }
        if (d.sites().isEmpty()) {
            sb.append("  no sites\n");
        }
        return sb.toString();
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
