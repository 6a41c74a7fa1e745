package io.memscope.cli;

import io.memscope.analysis.json.JsonWriter;
import io.memscope.analysis.DiffBuilder;
import io.memscope.analysis.DiffJson;
import io.memscope.analysis.DiffMetric;
import io.memscope.analysis.DiffText;
import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.RunDiff;
import io.memscope.analysis.html.HtmlReport;
import io.memscope.analysis.html.DiffPageData;
import io.memscope.analysis.text.TerminalText;
import io.memscope.error.MemscopeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

    @Parameters(index = "0", paramLabel = "BASE", description = "the base run: a recording, a directory holding "
            + "recording.msrec, or a memscope run output folder of several JVMs (paired with NEW's by main class)")
    Path base;

    @Parameters(index = "1", paramLabel = "NEW", description = "the new run, the same way")
    Path newer;

    @Option(names = "--main", paramLabel = "CLASS", description = "with folders of several JVMs: compare only the "
            + "JVMs running this main class (full or simple name) or jar")
    String main;

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

    @Option(names = "--last", paramLabel = "DURATION", description = "compare the last part of each run, e.g. 10m, 2h "
            + "(a chunked recording, bounded by maxSize or maxAge, covers only its last part anyway)")
    String last;

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
        List<Pair> pairs = pairs();
        if (pairs.size() == 1) {
            Pair p = pairs.get(0);
            Report b = ReportBuilder.build(p.base(), window());
            Report n = ReportBuilder.build(p.newer(), window());
            RunDiff d = DiffBuilder.diff(b, n, m, normalize, per);
            List<String> damaged = damage(b, base, n, newer, "");
            if (json) {
                System.out.print(DiffJson.toJson(d, top));
            } else {
                System.out.print(DiffText.format(d, top <= 0 ? Integer.MAX_VALUE : top));
                damaged.forEach(note -> System.out.println("  ! " + note));
            }
            if (html != null) {
                HtmlReport.writePage(DiffPageData.of(d, b, base.toString(), n, newer.toString()), html);
                (json ? System.err : System.out).println("  page:   " + html.toAbsolutePath());
            }
            return gate(d, m, "") ? EXIT_INCREASE : 0;
        }
        if (html != null) {
            throw MemscopeException.configuration(pairs.size() + " pairs of JVMs to compare, one page: pick one "
                    + "main class with --main:\n" + describe(pairs));
        }
        boolean failed = false;
        StringBuilder out = new StringBuilder();
        if (json) {
            out.append("{\n  \"format\": \"memscope-diff-pairs\",\n  \"version\": 1,\n  \"pairs\": [");
        } else {
            out.append("memscope diff: ").append(pairs.size()).append(" pairs of JVMs, paired by main class (one: "
                    + "--main):\n").append(describe(pairs));
        }
        for (int i = 0; i < pairs.size(); i++) {
            Pair p = pairs.get(i);
            Report b = ReportBuilder.build(p.base(), window());
            Report n = ReportBuilder.build(p.newer(), window());
            RunDiff d = DiffBuilder.diff(b, n, m, normalize, per);
            List<String> damaged = damage(b, p.base(), n, p.newer(), TerminalText.safe(p.main()) + ": ");
            if (json) {
                out.append(i == 0 ? "\n" : ",\n").append("    {\"main\": ").append(JsonWriter.quote(p.main()))
                        .append(", \"basePid\": ").append(p.basePid()).append(", \"newPid\": ").append(p.newPid())
                        .append(", \"diff\": ").append(DiffJson.toJson(d, top).strip().replace("\n", "\n    "))
                        .append('}');
            } else {
                out.append(String.format(Locale.ROOT, "%n== %s: base pid %d, new pid %d%n", TerminalText.safe(p.main()),
                        p.basePid(), p.newPid()));
                out.append(DiffText.format(d, top <= 0 ? Integer.MAX_VALUE : top));
                damaged.forEach(note -> out.append("  ! ").append(note).append('\n'));
            }
            failed |= gate(d, m, TerminalText.safe(p.main()) + ": ");
        }
        if (json) {
            out.append("\n  ]\n}\n");
        }
        System.out.print(out);
        return failed ? EXIT_INCREASE : 0;
    }

    /**
     * A base and a new recording compared.
     *
     * @param main the main class (or jar) both JVMs ran, "?" when unknown
     */
    record Pair(String main, Path base, long basePid, Path newer, long newPid) {
    }

    /**
     * The recordings to compare: BASE and NEW themselves, or, when either is a folder of several JVMs, its JVMs
     * paired by main class (in the order their captures started, when a main class ran more than once), restricted
     * to {@code --main}. JVMs without a partner are named on stderr.
     */
    private List<Pair> pairs() {
        boolean folders = RunFolder.isFolderOfJvms(base) || RunFolder.isFolderOfJvms(newer);
        if (!folders) {
            return List.of(new Pair("?", RunFolder.recording(base, null, null, "diff"), -1,
                    RunFolder.recording(newer, null, null, "diff"), -1));
        }
        List<RunFolder.Jvm> b = side(base);
        List<RunFolder.Jvm> n = side(newer);
        List<Pair> pairs = new ArrayList<>();
        List<String> unpaired = new ArrayList<>();
        Map<String, List<RunFolder.Jvm>> newByMain = new LinkedHashMap<>();
        for (RunFolder.Jvm j : n) {
            newByMain.computeIfAbsent(j.main(), k -> new ArrayList<>()).add(j);
        }
        for (RunFolder.Jvm j : b) {
            List<RunFolder.Jvm> partners = newByMain.get(j.main());
            if (partners == null || partners.isEmpty()) {
                unpaired.add("base pid " + j.pid() + " (" + TerminalText.safe(j.main()) + ")");
                continue;
            }
            RunFolder.Jvm partner = partners.remove(0);
            pairs.add(new Pair(j.main(), j.recording(), j.pid(), partner.recording(), partner.pid()));
        }
        newByMain.values().forEach(l -> l.forEach(j -> unpaired.add("new pid " + j.pid() + " ("
                + TerminalText.safe(j.main()) + ")")));
        if (!unpaired.isEmpty()) {
            System.err.println("memscope diff: without a partner of the same main class: "
                    + String.join(", ", unpaired));
        }
        if (pairs.isEmpty()) {
            throw MemscopeException.configuration("no JVM of " + base + " ran the same main class as one of "
                    + newer + (main != null ? " (with --main " + main + ")" : "") + ":\n  base:\n"
                    + RunFolder.listing(b, "    ") + "  new:\n" + RunFolder.listing(n, "    "));
        }
        return pairs;
    }

    /** One side's JVMs (those running {@code --main}, when given): a folder's, or the one recording as a JVM. */
    private List<RunFolder.Jvm> side(Path input) {
        List<RunFolder.Jvm> all;
        if (RunFolder.isFolderOfJvms(input)) {
            all = RunFolder.jvms(input);
        } else {
            all = List.of(RunFolder.describeFile(RunFolder.recording(input, null, null, "diff")));
        }
        return new ArrayList<>(RunFolder.pick(all, null, main));
    }

    private static String describe(List<Pair> pairs) {
        StringBuilder sb = new StringBuilder();
        for (Pair p : pairs) {
            sb.append(String.format(Locale.ROOT, "  %-40s base pid %d, new pid %d%n", TerminalText.safe(p.main()),
                    p.basePid(), p.newPid()));
        }
        return sb.toString();
    }

    /** Applies {@code --fail-on-increase} to one comparison, saying why on stderr: true when it fails. */
    private boolean gate(RunDiff d, DiffMetric m, String prefix) {
        if (failOnIncrease == null) {
            return false;
        }
        double change = d.totalChangePercent();
        String grew = Double.isInfinite(change) ? "from nothing" : String.format(Locale.ROOT, "%.1f%%", change);
        if (change > failOnIncrease && !d.totalSignificant()) {
            System.err.println(String.format(Locale.ROOT, "memscope diff: %s%s grew by %s, more than %.1f%%, but "
                    + "within sampling noise (±%d %s): not failing", prefix, m.label(), grew, failOnIncrease,
                    Math.round(d.significance().z() * d.significance().totalStdError()), d.normalization().unit()));
            return false;
        }
        if (change <= failOnIncrease) {
            return false;
        }
        System.err.println(String.format(Locale.ROOT, "memscope diff: %s%s grew by %s, more than %.1f%% and more "
                + "than sampling noise; sites that grew significantly:", prefix, m.label(), grew, failOnIncrease));
        int listed = 0;
        for (RunDiff.Entry e : d.sites()) {
            if (e.delta(m) > 0 && e.significant() && listed++ < 10) {
                System.err.println(String.format(Locale.ROOT, "  +%d %s  %s [%s]", Math.round(e.delta(m)),
                        d.normalization().unit(), TerminalText.safe(e.site()), TerminalText.safe(e.type())));
            }
        }
        return true;
    }

    /**
     * Says on stderr, and returns for the table, what each run's recording lacks (damaged, or not closed) in the words
     * {@code memscope report} uses: a diff against a recording read only in part looks like a large change.
     */
    private static List<String> damage(Report b, Path basePath, Report n, Path newPath, String prefix) {
        List<String> notes = new ArrayList<>();
        for (String note : new String[] {damage(b, "base", basePath), damage(n, "new", newPath),
                attached(b, "base", basePath, n), attached(n, "new", newPath, b)}) {
            if (note != null) {
                notes.add(prefix + note);
                System.err.println("memscope diff: " + prefix + note);
            }
        }
        return notes;
    }

    /** @return what a run's recording lacks, or null for a sound, closed recording */
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

    /**
     * @return a note when one run was attached to a running JVM and the other was not: the attached one saw only what
     *         was allocated after its attach, so the two cover different spans of their programs; else null
     */
    static String attached(Report r, String role, Path given, Report other) {
        boolean is = Boolean.parseBoolean(r.metadata().get("attached"));
        if (!is || Boolean.parseBoolean(other.metadata().get("attached"))) {
            return null;
        }
        return "the " + role + " run (" + TerminalText.safe(given.toString()) + ") was attached to a running JVM: it "
                + "saw only what was allocated after the attach, the other run everything from its start";
    }

    private io.memscope.analysis.TimeWindow window() {
        return new io.memscope.analysis.TimeWindow(null, null, Windows.lastSeconds(last));
    }
}
