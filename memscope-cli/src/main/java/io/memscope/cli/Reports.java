package io.memscope.cli;

import io.memscope.recording.RecordingReader.ChunkSet;
import io.memscope.analysis.Report;
import io.memscope.analysis.ReportFiles;
import io.memscope.analysis.html.HtmlReport;
import io.memscope.error.MemscopeException;
import io.memscope.launch.FileErrors;
import io.memscope.recording.RecordingReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Builds the reports of the JVMs the agent recorded, in this process (never in the application's JVM): finds the
 * per-JVM directories under an output directory, builds each one's report from its recording, writes the report
 * files next to it ({@link ReportFiles}, and the page, report.html) and prints the summaries.
 */
final class Reports {
    private Reports() {
    }

    /** @return directories under {@code out} holding a recording, in name order */
    /**
     * @return the file being written of a JVM directory's recording: its last chunk when it is chunked (format 1.6:
     *         the first chunks are closed, or deleted), else its {@code recording.msrec}
     */
    static Path currentRecording(Path dir) {
        try {
            if (ChunkSet.isChunked(dir)) {
                List<Path> files = ChunkSet.of(dir).files();
                return files.get(files.size() - 1);
            }
        } catch (RuntimeException e) {
            // as a single file
        }
        return dir.resolve(ReportFiles.RECORDING);
    }

    /** @return {@link #currentRecording} of the directory of the recording file {@code first} */
    static Path current(Path first) {
        Path dir = first.toAbsolutePath().getParent();
        return dir == null ? first : currentRecording(dir);
    }

    static List<Path> recordingDirs(Path out) throws IOException {
        List<Path> dirs = new ArrayList<>();
        if (!Files.isDirectory(out)) {
            return dirs;
        }
        try (Stream<Path> s = Files.list(out)) {
            s.filter(d -> Files.isRegularFile(d.resolve(ReportFiles.RECORDING))
                    || ChunkSet.isChunked(d)).sorted().forEach(dirs::add);
        }
        return dirs;
    }

    /**
     * Builds the report of {@code dir}'s recording, writes report.json, summary.txt and report.html into
     * {@code dir}, and prints the summary. A recording that cannot be read at all (no valid header) is named on
     * stderr and skipped.
     */
    static void buildAndPrint(Path dir, PrintStream out, PrintStream err) throws IOException {
        build(dir).print(out, err);
    }

    /**
     * Builds the report of {@code dir}'s recording and writes report.json, summary.txt and report.html into
     * {@code dir}; prints nothing (the caller prints the result when it is time, {@link Built#print}).
     */
    static Built build(Path dir) throws IOException {
        Report report;
        try {
            report = ReportFiles.build(dir);
        } catch (MemscopeException e) {
            return new Built(dir, null, "memscope: no report for " + dir + ": " + e.getMessage());
        }
        cleanUp(dir);
        String summary;
        try {
            summary = ReportFiles.write(report, dir);
        } catch (IOException | RuntimeException e) {
            // a full disk, a folder of another user: the summary is printed all the same, with why nothing was written
            return new Built(dir, io.memscope.analysis.Summary.format(report), "memscope: could not write the report "
                    + "files into " + dir + ": " + FileErrors.reason(e), false);
        }
        Path page = dir.resolve(HtmlReport.FILE_NAME);
        String pageError = null;
        try {
            HtmlReport.write(report, page);
        } catch (IOException | RuntimeException e) {
            // the page is a view of the report: report.json and the summary stand without it
            pageError = "memscope: could not write " + page + ": " + FileErrors.reason(e);
        }
        return new Built(dir, summary, pageError, true);
    }

    /**
     * Removes what the agent of a JVM that ended left behind besides its recording: the file it reserved on the
     * recording's disk for its end (left when the JVM was killed).
     */
    static void cleanUp(Path dir) {
        Path reserve = dir.resolve(".recording.reserve");
        try {
            if (Files.exists(reserve, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                long pid = RecordingReader.readHeader(ChunkSet.isChunked(dir) ? dir
                        : dir.resolve(ReportFiles.RECORDING)).pid();
                if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    Files.deleteIfExists(reserve);
                }
            }
        } catch (IOException | RuntimeException e) {
            // left as it is: 64 KiB
        }
    }

    /**
     * A report built and written, its summary not printed yet (the report itself is not kept: a run of many JVMs
     * holds one of these per JVM).
     *
     * @param summary the report's summary text, or null when the recording could not be read
     * @param error   what went wrong (the recording, the report files, or with a summary only the page, report.html),
     *                for stderr; or null
     * @param written whether report.json and summary.txt were written
     */
    record Built(Path dir, String summary, String error, boolean written) {
        Built(Path dir, String summary, String error) {
            this(dir, summary, error, summary != null);
        }

        void print(PrintStream out, PrintStream err) {
            if (error != null) {
                err.println(error);
            }
            if (summary == null) {
                return;
            }
            out.println();
            out.print(summary);
            if (!written) {
                return;
            }
            out.println("  report: " + dir.resolve(ReportFiles.REPORT_JSON));
            if (error == null) { // the page was written too
                out.println("  page:   " + dir.resolve(HtmlReport.FILE_NAME));
            }
        }
    }

    /**
     * Waits until the recording is closed (its END block written), at most {@code timeoutMillis}.
     *
     * @return whether it is closed
     */
    static boolean awaitClosed(Path recording, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (!RecordingReader.isClosed(current(recording))) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(100);
        }
        return true;
    }
}
