package io.memscope.cli;

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
 * the peak, native outstanding, each change tested against sampling noise, significant changes first. With
 * {@code --fail-on-increase} it is a CI gate: exit status {@value #EXIT_INCREASE} when the metric's total grew by more
 * than PCT percent and that growth is more than sampling noise.
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
            + "total grew by more than PCT percent and by more than sampling noise (and list the sites that grew "
            + "significantly); a growth within noise passes, with a note")
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
        DiffMetric m;
        try {
            m = DiffMetric.of(metric);
        } catch (IllegalArgumentException e) {
            throw MemscopeException.configuration("unknown metric '" + metric + "': allocated, live, peak or native");
        }
        Report b = ReportBuilder.build(ReportCommand.recording(base));
        Report n = ReportBuilder.build(ReportCommand.recording(newer));
        RunDiff d = DiffBuilder.diff(b, n, m, normalize, per);
        if (json) {
            System.out.print(DiffJson.toJson(d, top));
        } else {
            System.out.print(DiffText.format(d, top <= 0 ? Integer.MAX_VALUE : top));
        }
        if (html != null) {
            HtmlReport.writePage(PageData.of(d, b, base.toString(), n, newer.toString()), html);
            (json ? System.err : System.out).println("  page:   " + html.toAbsolutePath());
        }
        if (failOnIncrease != null) {
            double change = d.totalChangePercent();
            String grew = Double.isInfinite(change) ? "from nothing"
                    : String.format(Locale.ROOT, "%.1f%%", change);
            if (change > failOnIncrease && !d.totalSignificant()) {
                System.err.println(String.format(Locale.ROOT, "memscope diff: %s grew by %s, more than %.1f%%, but "
                        + "within sampling noise (±%d %s): not failing", m.label(), grew, failOnIncrease,
                        Math.round(d.significance().z() * d.significance().totalStdError()),
                        d.normalization().unit()));
            } else if (change > failOnIncrease) {
                System.err.println(String.format(Locale.ROOT, "memscope diff: %s grew by %s, more than %.1f%% and "
                        + "more than sampling noise; sites that grew significantly:", m.label(), grew,
                        failOnIncrease));
                int listed = 0;
                for (RunDiff.Entry e : d.sites()) {
                    if (e.delta(m) > 0 && e.significant() && listed++ < 10) {
                        System.err.println(String.format(Locale.ROOT, "  +%d %s  %s [%s]", Math.round(e.delta(m)),
                                d.normalization().unit(), e.site(), e.type()));
                    }
                }
                return EXIT_INCREASE;
            }
        }
        return 0;
    }
}
