package io.memscope.cli;

import io.memscope.analysis.CaptureData;
import io.memscope.analysis.Recordings;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.html.HtmlReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Finds the per-JVM reports the agent wrote under an output directory, writes each one's page (report.html, built
 * here from the JVM's recording) and prints their summaries.
 */
final class Reports {
    private Reports() {
    }

    /** @return directories under {@code out} holding a report.json, in name order */
    static List<Path> find(Path out) throws IOException {
        List<Path> dirs = new ArrayList<>();
        if (!Files.isDirectory(out)) {
            return dirs;
        }
        try (Stream<Path> s = Files.list(out)) {
            s.filter(d -> Files.isRegularFile(d.resolve("report.json"))).sorted().forEach(dirs::add);
        }
        return dirs;
    }

    static void print(List<Path> dirs, PrintStream out) throws IOException {
        for (Path d : dirs) {
            Path summary = d.resolve("summary.txt");
            out.println();
            if (Files.isRegularFile(summary)) {
                out.print(Files.readString(summary, StandardCharsets.UTF_8));
            }
            out.println("  report: " + d.resolve("report.json"));
            Path page = d.resolve(HtmlReport.FILE_NAME);
            if (Files.isRegularFile(page)) {
                out.println("  page:   " + page);
            }
        }
    }

    /**
     * Writes report.html beside each directory's report.json, from the recording in the same directory. A JVM
     * whose recording cannot be read keeps its report.json; the reason is printed to {@code err}.
     */
    static void writePages(List<Path> dirs, PrintStream err) {
        for (Path d : dirs) {
            Path recording = d.resolve(RECORDING);
            if (!Files.isRegularFile(recording)) {
                continue;
            }
            try {
                CaptureData capture = Recordings.open(recording, damage -> { });
                HtmlReport.write(ReportBuilder.build(capture), d.resolve(HtmlReport.FILE_NAME));
            } catch (IOException | RuntimeException e) {
                err.println("memscope: could not write " + d.resolve(HtmlReport.FILE_NAME) + ": " + e);
            }
        }
    }

    /** The recording's file name in a per-JVM output directory. */
    static final String RECORDING = "recording.msrec";

    /** Waits until {@code dir/report.json} exists, at most {@code timeoutMillis}. */
    static boolean await(Path reportJson, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.isRegularFile(reportJson)) {
                return true;
            }
            Thread.sleep(100);
        }
        return Files.isRegularFile(reportJson);
    }
}
