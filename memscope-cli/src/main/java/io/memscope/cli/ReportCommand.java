package io.memscope.cli;

import io.memscope.analysis.Recordings;
import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.ReportJson;
import io.memscope.analysis.Summary;
import io.memscope.analysis.html.HtmlReport;
import io.memscope.error.MemscopeException;
import io.memscope.analysis.CaptureData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope report <recording|dir> [--json FILE] [--html FILE]}: regenerates the report (terminal summary,
 * report.json with {@code --json}, the page with {@code --html}) from a recording the agent wrote, or from a per-JVM
 * output directory holding {@code recording.msrec}. With {@code --json} alone, the page goes beside the JSON file as
 * report.html.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Print the report of a recording (leaks, temporaries, top sites, native memory, GC).")
final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RECORDING", description = "a recording file, or a directory holding "
            + "recording.msrec (as written under memscope run --out)")
    Path input;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the report as JSON to FILE (and, "
            + "without --html, its page as report.html beside FILE)")
    Path json;

    @Option(names = "--html", paramLabel = "FILE", description = "also write the report's page (flame graphs, "
            + "memory over time, every finding; one offline file) to FILE")
    Path html;

    @Override
    public Integer call() throws Exception {
        Path file = Files.isDirectory(input) ? input.resolve("recording.msrec") : input;
        if (!Files.isRegularFile(file)) {
            throw MemscopeException.configuration("no recording at " + file);
        }
        CaptureData capture = Recordings.open(file, d -> System.err.println("memscope report: the recording is "
                + "damaged, reporting what was readable: " + d));
        Report report = ReportBuilder.build(capture);
        System.out.print(Summary.format(report));
        if (json != null) {
            ReportJson.write(report, json);
            System.out.println("  report: " + json.toAbsolutePath());
        }
        Path page = html != null ? html
                : json != null ? json.toAbsolutePath().resolveSibling(HtmlReport.FILE_NAME) : null;
        if (page != null) {
            HtmlReport.write(report, page);
            System.out.println("  page:   " + page.toAbsolutePath());
        }
        return 0;
    }
}
