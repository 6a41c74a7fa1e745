package io.memscope.cli;

import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.ReportFiles;
import io.memscope.analysis.ReportJson;
import io.memscope.analysis.Summary;
import io.memscope.analysis.html.HtmlReport;
import io.memscope.analysis.TimeWindow;
import io.memscope.error.MemscopeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope report <recording|dir> [--json FILE] [--html FILE] [--from S] [--to S]}: builds the report
 * (terminal summary, report.json with {@code --json}, its page with {@code --html}) of a recording the agent wrote,
 * or of a per-JVM output directory holding {@code recording.msrec}: what {@code -javaagent} users run after their JVM
 * exited. The report is the same as the one {@code memscope run} writes for that recording. Each file is written
 * only when asked for: {@code --json} writes the JSON alone, {@code --html} the page.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Print the report of a recording (leaks, temporaries, top sites, native memory, GC).")
final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RECORDING", description = "a recording file, or a directory holding "
            + "recording.msrec (as written under memscope run --out)")
    Path input;

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

    @Override
    public Integer call() throws Exception {
        Path file = recording(input);
        Report report = ReportBuilder.build(file, new TimeWindow(from, to));
        Report.Source src = report.recording();
        if (src.damage() != null) {
            System.err.println("memscope report: " + (src.closed()
                    ? "the recording is damaged at offset " + src.damageOffset() + " (" + src.damage()
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
        return 0;
    }

    /** @return the recording file named by {@code input}: the file itself, or a directory's recording.msrec */
    static Path recording(Path input) {
        Path file = Files.isDirectory(input) ? input.resolve(ReportFiles.RECORDING) : input;
        if (!Files.isRegularFile(file)) {
            throw MemscopeException.configuration("no recording at " + file);
        }
        return file;
    }
}
