package io.memscope.cli;

import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.ReportJson;
import io.memscope.analysis.Summary;
import io.memscope.analysis.TimeWindow;
import io.memscope.analysis.html.HtmlReport;
import io.memscope.analysis.text.TerminalText;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope report <recording|dir> [--json FILE] [--html FILE] [--from S] [--to S]}: builds the report
 * (terminal summary, report.json with {@code --json}, its page with {@code --html}) of a recording the agent wrote,
 * or of a per-JVM output directory holding {@code recording.msrec}: what {@code -javaagent} users run after their JVM
 * exited. The report is the same as the one {@code memscope run} writes for that recording. Each file is written
 * only when asked for: {@code --json} writes the JSON alone, {@code --html} the page. The output folder of a
 * {@code memscope run} that started several JVMs ({@link RunFolder}) gets each JVM's summary in turn, or the one
 * {@code --pid} / {@code --main} picks.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Print the report of a recording (leaks, temporaries, top sites, native memory, GC).")
final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RECORDING", description = "a recording file, a JVM's directory holding "
            + "recording.msrec, or a memscope run output folder of several JVMs (each reported, or the one --pid or "
            + "--main picks)")
    Path input;

    @Option(names = "--pid", paramLabel = "PID", description = "in a folder of several JVMs: the JVM with this pid")
    Long pid;

    @Option(names = "--main", paramLabel = "CLASS", description = "in a folder of several JVMs: the JVM running "
            + "this main class (full or simple name) or jar")
    String main;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the report as JSON to FILE (only "
            + "that file: the page is --html's)")
    Path json;

    @Option(names = "--html", paramLabel = "FILE", description = "also write the report's page (flame graphs, "
            + "memory over time, every finding; one offline file) to FILE")
    Path html;

    @Option(names = "--from", paramLabel = "SECONDS", description = "restrict every figure to the run from this "
            + "many seconds after its start")
    Double from;

    @Option(names = "--to", paramLabel = "SECONDS", description = "restrict every figure to the run up to this many "
            + "seconds after its start")
    Double to;

    @Option(names = "--last", paramLabel = "DURATION", description = "restrict every figure to the last part of the "
            + "run, e.g. 10m, 2h, 90s (with --from: from the later of the two)")
    String last;

    @Override
    public Integer call() throws Exception {
        if (json == null && html == null && RunFolder.isFolderOfJvms(input)) {
            List<RunFolder.Jvm> jvms = RunFolder.pick(RunFolder.jvms(input), pid, main);
            if (jvms.size() > 1) {
                System.out.println("memscope report: " + jvms.size() + " JVMs under " + input + " (one: --pid or "
                        + "--main):");
                System.out.print(RunFolder.listing(jvms, "  "));
                for (RunFolder.Jvm j : jvms) {
                    System.out.println();
                    report(j.recording());
                }
                return 0;
            }
        }
        report(RunFolder.recording(input, pid, main, "report"));
        return 0;
    }

    private void report(Path file) throws java.io.IOException {
        Report report = ReportBuilder.build(file, new TimeWindow(from, to, Windows.lastSeconds(last)));
        Report.Source src = report.recording();
        if (src.damage() != null) {
            System.err.println("memscope report: " + (src.closed()
                    ? "the recording is damaged at offset " + src.damageOffset() + " (" + TerminalText.safe(src.damage())
                            + "), reporting what was readable"
                    : "the recording was not closed (the JVM was killed, crashed or is still running): reporting "
                            + "what it holds"));
        }
        System.out.print(Summary.format(report));
        if (json != null) {
            ReportJson.write(report, json);
            System.out.println("  report: " + json.toAbsolutePath());
        }
        if (html != null) {
            HtmlReport.write(report, html);
            System.out.println("  page:   " + html.toAbsolutePath());
        }
    }
}
