package io.memscope.cli;

import io.memscope.internal.text.TerminalText;
import io.memscope.analysis.DiffBuilder;
import io.memscope.analysis.DiffJson;
import io.memscope.analysis.DiffMetric;
import io.memscope.analysis.DiffText;
import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.RunDiff;
import io.memscope.analysis.html.HtmlReport;
import io.memscope.analysis.html.PageData;
import io.memscope.error.MemscopeException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope diff BASE NEW [--metric M] [--normalize] [--per B,N] [--fail-on-increase PCT] [--json]}: compares
 * two runs (recordings or per-JVM output directories) per site (and per stack): allocated, held at the end, held at
 * the peak, native outstanding, sorted by the absolute change of the metric. With {@code --fail-on-increase} it is a
 * CI gate: exit status {@value #EXIT_INCREASE} when the metric's total grew by more than PCT percent.
 */
@Command(name = "diff", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Compare two runs (recordings or output directories) site by site; optionally fail when the "
                + "metric grew.",
        footerHeading = "%n", footer = {"Examples:",
            "  memscope diff base/1234 new/5678",
            "  memscope diff base.msrec new.msrec --metric live --fail-on-increase 10",
            "  memscope diff base new --normalize --per 1000,1500 --json"})
final class DiffCommand implements Callable<Integer> {
    /** Exit status when {@code --fail-on-increase} is exceeded. */
    static final int EXIT_INCREASE = 3;

    @Parameters(index = "0", paramLabel = "BASE", description = "the base run: a recording, or a directory holding "
            + "recording.msrec")
    Path base;

    @Parameters(index = "1", paramLabel = "NEW", description = "the new run, the same way")
    Path newer;

    @Option(names = "--metric", paramLabel = "M", description = "allocated (default), live (held at the end), peak "
            + "(held at the peak collection) or native (outstanding at the end)")
    String metric = "allocated";

    @Option(names = "--normalize", description = "divide each run's figures by its duration in seconds (or by "
            + "--per): runs of different lengths compare fairly")
    boolean normalize;

    @Option(names = "--per", paramLabel = "BASE,NEW", split = ",", description = "units of work of each run (requests, "
            + "items...): figures are divided by them (implies --normalize)")
    double[] per;

    @Option(names = "--fail-on-increase", paramLabel = "PCT", description = "exit with status 3 when the metric's "
            + "total grew by more than PCT percent (and list the sites that grew)")
    Double failOnIncrease;

    @Option(names = "--json", description = "print JSON instead of the table")
    boolean json;

    @Option(names = "--html", paramLabel = "FILE", description = "also write the comparison's page to FILE: a "
            + "differential flame graph (growth and shrinkage coloured apart) and the sites by change")
    Path html;

    @Option(names = "--top", paramLabel = "N", description = "sites (and stacks) listed, largest changes first "
            + "(default 20; 0 = all)")
    int top = 20;

    @Override
    public Integer call() throws Exception {
        if (failOnIncrease != null && (failOnIncrease < 0 || failOnIncrease.isNaN())) {
            throw MemscopeException.configuration("--fail-on-increase must be a percentage of 0 or more, not "
                    + failOnIncrease);
        }
        if (top < 0) {
            throw MemscopeException.configuration("--top must be 0 (all) or more, not " + top);
        }
        if (per != null && (per.length != 2 || !(per[0] > 0) || !(per[1] > 0))) {
            throw MemscopeException.configuration("--per needs two positive numbers, BASE,NEW");
        }
        DiffMetric m;
        try {
            m = DiffMetric.of(metric);
        } catch (IllegalArgumentException e) {
            throw MemscopeException.configuration("unknown metric '" + metric + "': allocated, live, peak or native");
        }
        Report b = ReportBuilder.build(ReportCommand.recording(base));
        Report n = ReportBuilder.build(ReportCommand.recording(newer));
        RunDiff d = DiffBuilder.diff(b, n, m, normalize, per);
        String baseDamage = damage(b, "base", base);
        String newDamage = damage(n, "new", newer);
        for (String note : new String[] {baseDamage, newDamage}) {
            if (note != null) {
                System.err.println("memscope diff: " + note);
            }
        }
        if (json) {
            System.out.print(DiffJson.toJson(d, top));
        } else {
            System.out.print(DiffText.format(d, top <= 0 ? Integer.MAX_VALUE : top));
            for (String note : new String[] {baseDamage, newDamage}) {
                if (note != null) {
                    System.out.println("  ! " + note);
                }
            }
        }
        if (html != null) {
            HtmlReport.writePage(PageData.of(d, b, base.toString(), n, newer.toString()), html);
            (json ? System.err : System.out).println("  page:   " + html.toAbsolutePath());
        }
        if (failOnIncrease != null) {
            double change = d.totalChangePercent();
            if (change > failOnIncrease) {
                System.err.println(String.format(Locale.ROOT, "memscope diff: %s grew by %s, more than %.1f%%; "
                        + "sites that grew:", m.label(), Double.isInfinite(change) ? "from nothing"
                        : String.format(Locale.ROOT, "%.1f%%", change), failOnIncrease));
                int listed = 0;
                for (RunDiff.Entry e : d.sites()) {
                    if (e.delta(m) > 0 && listed++ < 10) {
                        System.err.println(String.format(Locale.ROOT, "  +%d %s  %s [%s]", Math.round(e.delta(m)),
                                d.normalization().unit(), TerminalText.safe(e.site()), TerminalText.safe(e.type())));
                    }
                }
                return EXIT_INCREASE;
            }
        }
        return 0;
    }

    /**
     * @return what a run's recording lacks (damaged, or not closed), in the words {@code memscope report} uses, or null
     *         for a sound, closed recording: a diff against a recording read only in part looks like a large change
     */
    static String damage(Report r, String role, Path given) {
        Report.Source s = r.recording();
        if (s.damage() == null) {
            return null;
        }
        String run = "the " + role + " run (" + TerminalText.safe(given.toString()) + ")";
        if (!s.closed()) {
            return run + " was not closed (the JVM was killed, crashed or is still running): its figures cover what it "
                    + "recorded up to its last complete block";
        }
        return run + " is damaged at offset " + s.damageOffset() + " (" + TerminalText.safe(s.damage()) + "): its "
                + "figures cover what comes before";
    }
}
