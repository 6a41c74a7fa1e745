package io.memscope.analysis;

import io.memscope.launch.OutputFolders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files of one JVM's output directory ({@code <out>/<pid>/}): the recording the agent wrote, and the report
 * files built from it outside the JVM ({@code memscope run}, {@code attach --duration}, {@code detach}, or
 * {@code memscope report}): every way of building them goes through {@link #write}, so they are the same whichever
 * way they were built.
 */
public final class ReportFiles {
    /** The agent's recording (docs/formats/recording.md). */
    public static final String RECORDING = "recording.msrec";
    /** The report as JSON (docs/formats/report-json.md). */
    public static final String REPORT_JSON = "report.json";
    /** The terminal summary, as {@code memscope run} prints it. */
    public static final String SUMMARY_TXT = "summary.txt";

    private ReportFiles() {
    }

    /** Builds the report of {@code dir/recording.msrec}. */
    public static Report build(Path dir) {
        // a chunked recording (format 1.6) is read from its folder, all its chunks as one recording
        return ReportBuilder.build(io.memscope.recording.RecordingReader.ChunkSet.isChunked(dir) ? dir
                : dir.resolve(RECORDING));
    }

    /**
     * Writes the report files of {@code report} into {@code dir}, each atomically (a temporary file, then a rename).
     *
     * @return the terminal summary
     */
    public static String write(Report report, Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            OutputFolders.outputFolder(dir);
        }
        OutputFolders.checkTrusted(dir); // another user's folder, or one others can change: nothing written there
        ReportJson.write(report, dir.resolve(REPORT_JSON));
        String summary = Summary.format(report);
        writeAtomically(dir.resolve(SUMMARY_TXT), summary);
        return summary;
    }

    /**
     * Writes {@code content} (UTF-8) as the whole of {@code file}, private (mode 0600), never through a link: see
     * {@link OutputFolders#writeAtomically}.
     */
    public static void writeAtomically(Path file, String content) throws IOException {
        OutputFolders.writeAtomically(file, content);
    }
}
