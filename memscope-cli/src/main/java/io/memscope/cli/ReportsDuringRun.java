package io.memscope.cli;

import io.memscope.analysis.ReportFiles;
import io.memscope.analysis.html.HtmlReport;
import io.memscope.recording.RecordingReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds {@code memscope run}'s reports while the command still runs: a command that starts several JVMs one after
 * another (a build forking test JVMs, a script) closes each JVM's recording long before it ends itself, and each of
 * those reports is built then, on one background thread, instead of all of them after the command. Nothing is
 * printed here: {@link #take} hands each built report to the caller, which prints them in order once the command
 * has ended, as before. First of all, the thread reads what every report page shares ({@link HtmlReport#prepare}),
 * which the first report would otherwise wait for.
 *
 * <p>Only a closed recording (its end block written) is built early; a report is built again at the end when its
 * recording changed after it was built (another capture of the same JVM wrote into it). A failure here is not the
 * user's: that directory's report is simply built again at the end, where its error is reported.
 */
final class ReportsDuringRun implements AutoCloseable {
    /** How often the output directory is looked at for newly closed recordings. */
    private static final long POLL_MILLIS = 200;

    private final Path out;
    private final Set<Path> skip;
    private final Map<Path, Early> built = new HashMap<>();
    private final Thread thread;
    private volatile boolean stopping;

    /** A report built early, with the recording's size and time as they were when it was read. */
    private record Early(Reports.Built report, Path file, long size, FileTime modified) {
    }

    /**
     * Starts looking at {@code out}.
     *
     * @param skip directories that held a recording before the command started (not this run's)
     */
    ReportsDuringRun(Path out, List<Path> skip) {
        this.out = out;
        this.skip = new HashSet<>(skip);
        this.thread = new Thread(this::loop, "memscope-run-reports");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        try {
            HtmlReport.prepare(); // the pages' shared parts, read while the command runs (once per JVM)
        } catch (RuntimeException e) {
            // the first report built reads them again and reports what is wrong
        }
        Set<Path> tried = new HashSet<>();
        while (!stopping) {
            try {
                for (Path d : Reports.recordingDirs(out)) {
                    if (stopping) {
                        return;
                    }
                    if (skip.contains(d) || tried.contains(d)) {
                        continue;
                    }
                    Path recording = Reports.currentRecording(d);
                    if (!RecordingReader.isClosed(recording)) {
                        continue;
                    }
                    tried.add(d);
                    BasicFileAttributes before = Files.readAttributes(recording, BasicFileAttributes.class);
                    Reports.Built report = Reports.build(d);
                    synchronized (built) {
                        built.put(d, new Early(report, recording, before.size(), before.lastModifiedTime()));
                    }
                }
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                // the directory changed under us, or a report failed: the end of the run builds what is missing
                try {
                    Thread.sleep(POLL_MILLIS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /**
     * Stops the background builds (a build in progress is finished first). Idempotent.
     */
    @Override
    public void close() throws InterruptedException {
        stopping = true;
        thread.join();
    }

    /**
     * The report of {@code dir} built during the run, if its recording has not changed since; else null (the caller
     * builds it). Call after {@link #close}.
     */
    Reports.Built take(Path dir) {
        Early e;
        synchronized (built) {
            e = built.remove(dir);
        }
        if (e == null) {
            return null;
        }
        try {
            Path current = Reports.currentRecording(dir); // a chunk begun after the early report: built again
            BasicFileAttributes now = Files.readAttributes(current, BasicFileAttributes.class);
            return current.equals(e.file) && now.size() == e.size && now.lastModifiedTime().equals(e.modified)
                    ? e.report : null;
        } catch (IOException ex) {
            return null;
        }
    }
}
