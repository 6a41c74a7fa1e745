package io.memscope.analysis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

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
        return ReportBuilder.build(dir.resolve(RECORDING));
    }

    /**
     * Writes the report files of {@code report} into {@code dir}, each atomically (a temporary file, then a rename).
     *
     * @return the terminal summary
     */
    public static String write(Report report, Path dir) throws IOException {
        Files.createDirectories(dir);
        ReportJson.write(report, dir.resolve(REPORT_JSON));
        String summary = Summary.format(report);
        writeAtomically(dir.resolve(SUMMARY_TXT), summary);
        return summary;
    }

    /**
     * Writes {@code content} (UTF-8) to a temporary file in the same directory, then renames it over {@code file}, so
     * that a reader never sees half a file. Only a regular file is replaced that way: a symbolic link is followed
     * (its target is replaced, the link stays), and anything else that exists there (a device such as
     * {@code /dev/null}, a named pipe) is written in place, since renaming over it would replace the device itself.
     */
    public static void writeAtomically(Path file, String content) throws IOException {
        Path target = file;
        // follow links by hand: toRealPath() fails on a link whose target does not exist yet
        for (int hops = 0; Files.isSymbolicLink(target) && hops < 40; hops++) {
            target = target.resolveSibling(Files.readSymbolicLink(target));
        }
        if (Files.exists(target) && !Files.isRegularFile(target)) {
            Files.writeString(target, content, StandardCharsets.UTF_8);
            return;
        }
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(tmp, content, StandardCharsets.UTF_8);
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
