package io.memscope.analysis.html;

import io.memscope.analysis.Report;
import io.memscope.analysis.ReportFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Writes report.html: one self-contained page (the page's script, d3 and uPlot inlined; no font, script or style
 * fetched) that shows a report's flame graphs, memory over time and every finding. It opens from disk without
 * network in current Chromium and Firefox.
 *
 * <p>The data is embedded as a JSON document ({@link PageData}) in a {@code <script type="application/json">}
 * element, which the browser never executes; the page's script parses it with {@code JSON.parse} and puts every
 * name from the application into the page as text only. See {@link PageTemplate} for how the data is escaped and
 * how the page's Content-Security-Policy keeps any other script from running.
 */
public final class HtmlReport {
    /** The page's file name beside report.json. */
    public static final String FILE_NAME = "report.html";

    private HtmlReport() {
    }

    /**
     * Reads and checks what every page shares (the skeleton, the inlined libraries, their hashes), once per JVM: a
     * caller with time to spare ({@code memscope run}, while the command runs) takes that off the first page's path.
     */
    public static void prepare() {
        PageTemplate.prepare();
    }

    /** @return the page of one report */
    public static String render(Report report) {
        return new PageTemplate().render(ReportPageData.of(report));
    }

    /** Writes the page of one report to {@code file}, atomically (a temporary file, then a rename). */
    public static void write(Report report, Path file) throws IOException {
        writePage(ReportPageData.of(report), file);
    }

    /** Writes a page for any page-data document ({@link PageData}'s format) to {@code file}, atomically. */
    public static void writePage(String pageDataJson, Path file) throws IOException {
        String html = new PageTemplate().render(pageDataJson);
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            io.memscope.launch.OutputFolders.createFolders(dir);
        }
        ReportFiles.writeAtomically(file, html);
    }
}
