package io.memscope.cli;

import io.memscope.recording.RecordingReader.ChunkSet;
import io.memscope.analysis.ReportFiles;
import io.memscope.error.MemscopeException;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code report}, {@code diff} and {@code export} accept as a run: a recording file, a JVM's directory holding
 * {@code recording.msrec}, or the output folder of a {@code memscope run} that started several JVMs (one
 * subdirectory per JVM). A folder of several JVMs is listed (pid, main class, duration) and one is picked by
 * {@code --pid} or {@code --main}.
 */
final class RunFolder {
    private RunFolder() {
    }

    /**
     * One JVM's recording in a folder.
     *
     * @param dir          its directory ({@code <out>/<pid>})
     * @param recording    its recording file
     * @param pid          the recorded JVM's process id (from the recording's header)
     * @param main         its main class, or the jar it ran ({@code -jar}), from the {@code command} metadata; "?"
     *                     when unknown
     * @param startEpochMs when its capture started, ms since the epoch (0 unknown)
     * @param durationMs   how long it recorded, ms (-1 when the recording was not closed)
     */
    record Jvm(Path dir, Path recording, long pid, String main, long startEpochMs, double durationMs) {
        /** @return whether {@code name} names this JVM's main: the full name, its simple name, or the jar's name */
        boolean runs(String name) {
            if (name.equals(main)) {
                return true;
            }
            int dot = main.endsWith(".jar") ? -1 : main.lastIndexOf('.');
            String simple = dot < 0 ? main.substring(main.lastIndexOf('/') + 1) : main.substring(dot + 1);
            return name.equals(simple);
        }
    }

    /**
     * @return the recording {@code input} names: the file itself, a directory's recording.msrec, or the one JVM of a
     *         folder picked by {@code pid} or {@code main} (either may be null; a folder of one JVM needs no pick)
     * @throws MemscopeException naming what is there when nothing, or several JVMs and no pick, match
     */
    static Path recording(Path input, Long pid, String main, String command) {
        if (Files.isRegularFile(input)) {
            return input;
        }
        if (!Files.isDirectory(input)) {
            throw MemscopeException.configuration("no recording at " + input + (Files.exists(input)
                    ? " (not a file or folder)" : ": no such file"));
        }
        if (ChunkSet.isChunked(input)) {
            return input; // a chunked recording: its chunks read as one recording
        }
        Path own = input.resolve(ReportFiles.RECORDING);
        if (Files.isRegularFile(own)) {
            return own;
        }
        List<Jvm> jvms = jvms(input);
        if (jvms.isEmpty()) {
            throw MemscopeException.configuration("no recording at " + own + ", and no JVM's directory (holding "
                    + ReportFiles.RECORDING + ") under " + input);
        }
        List<Jvm> picked = pick(jvms, pid, main);
        if (picked.size() == 1) {
            return picked.get(0).recording();
        }
        String why = picked.isEmpty() ? "no JVM matches " + (pid != null ? "--pid " + pid : "")
                + (pid != null && main != null ? " and " : "") + (main != null ? "--main " + main : "")
                : jvms.size() + " JVMs recorded";
        throw MemscopeException.configuration(input + " holds the recordings of several JVMs (" + why + "); pick "
                + "one with --pid or --main:\n" + listing(jvms, "    ") + "  for example: memscope " + command
                + " " + input + " --pid " + jvms.get(0).pid());
    }

    /** @return the JVMs of {@code jvms} that {@code pid} and {@code main} (null: any) name */
    static List<Jvm> pick(List<Jvm> jvms, Long pid, String main) {
        List<Jvm> l = new ArrayList<>();
        for (Jvm j : jvms) {
            if ((pid == null || j.pid() == pid) && (main == null || j.runs(main))) {
                l.add(j);
            }
        }
        return l;
    }

    /** @return whether {@code input} is a folder of JVM directories (not a recording, not one JVM's directory) */
    static boolean isFolderOfJvms(Path input) {
        return Files.isDirectory(input) && !Files.isRegularFile(input.resolve(ReportFiles.RECORDING))
                && !ChunkSet.isChunked(input) && !jvms(input).isEmpty();
    }

    /** @return the JVMs recorded under {@code folder}, oldest capture first (then by pid) */
    static List<Jvm> jvms(Path folder) {
        List<Path> dirs;
        try {
            dirs = Reports.recordingDirs(folder);
        } catch (IOException e) {
            throw MemscopeException.configuration("cannot list " + folder + ": " + e.getMessage());
        }
        List<Jvm> jvms = new ArrayList<>();
        for (Path d : dirs) {
            Jvm j = describe(d);
            if (j != null) {
                jvms.add(j);
            }
        }
        jvms.sort(Comparator.comparingLong(Jvm::startEpochMs).thenComparingLong(Jvm::pid));
        return jvms;
    }

    /** Reads a JVM directory's recording for its pid, main class and duration; null when it cannot be read. */
    private static Jvm describe(Path dir) {
        try {
            return describeFile(ChunkSet.isChunked(dir) ? dir : dir.resolve(ReportFiles.RECORDING));
        } catch (MemscopeException e) {
            return null;
        }
    }

    /** Reads a recording for its pid, main class and duration. */
    static Jvm describeFile(Path file) {
        Path dir = Files.isDirectory(file) ? file.toAbsolutePath() : file.toAbsolutePath().getParent();
        Map<String, String> meta = new HashMap<>();
        long[] pid = {-1};
        try {
            RecordingReader.stream(file, new RecordingVisitor() {
                @Override
                public void header(io.memscope.recording.RecordingHeader h) {
                    pid[0] = h.pid();
                }

                @Override
                public void metadata(String key, String value) {
                    meta.put(key, value);
                }
            });
        } catch (RuntimeException e) {
            throw MemscopeException.configuration("cannot read " + file + ": " + e.getMessage());
        }
        long start = parse(meta.get(MetadataKeys.START_NANOS));
        long end = parse(meta.get(MetadataKeys.END_NANOS));
        double duration = start >= 0 && end >= start ? (end - start) / 1e6 : -1;
        long p = pid[0] >= 0 ? pid[0] : parse(meta.get(MetadataKeys.PID));
        return new Jvm(dir, file, p, mainOf(meta.getOrDefault(MetadataKeys.COMMAND, "")),
                Math.max(0, parse(meta.get(MetadataKeys.START_EPOCH_MS))), duration);
    }

    /** @return the main class or jar of a {@code sun.java.command} value: its first word ("?" when empty) */
    static String mainOf(String command) {
        String c = command.strip();
        if (c.isEmpty()) {
            return "?";
        }
        int space = c.indexOf(' ');
        return space < 0 ? c : c.substring(0, space);
    }

    private static long parse(String s) {
        if (s == null) {
            return -1;
        }
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** @return one line per JVM: pid, duration, main class, directory */
    static String listing(List<Jvm> jvms, String indent) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s%8s  %10s  %s%n", indent, "pid", "duration", "main (--main)"));
        for (Jvm j : jvms) {
            sb.append(String.format(Locale.ROOT, "%s%8d  %10s  %s  (%s)%n", indent, j.pid(),
                    j.durationMs() < 0 ? "not closed" : String.format(Locale.ROOT, "%.1f s", j.durationMs() / 1000),
                    io.memscope.analysis.text.TerminalText.safe(j.main()), j.dir().getFileName()));
        }
        return sb.toString();
    }
}
