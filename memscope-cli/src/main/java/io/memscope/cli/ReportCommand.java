package io.memscope.cli;

import io.memscope.analysis.Recordings;
import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.ReportJson;
import io.memscope.analysis.Summary;
import io.memscope.error.MemscopeException;
import io.memscope.analysis.CaptureData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope report <recording|dir> [--json FILE]}: regenerates the report (terminal summary, and
 * report.json with {@code --json}) from a recording the agent wrote, or from a per-JVM output directory holding
 * {@code recording.msrec}.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Print the report of a recording (leaks, temporaries, top sites, native memory, GC).")
final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RECORDING", description = "a recording file, or a directory holding "
            + "recording.msrec (as written under memscope run --out)")
    Path input;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the report as JSON to FILE")
    Path json;

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
        return 0;
    }
}
