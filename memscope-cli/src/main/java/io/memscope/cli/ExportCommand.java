package io.memscope.cli;

import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.analysis.TimeWindow;
import io.memscope.analysis.export.CollapsedStacks;
import io.memscope.analysis.export.ExportDamage;
import io.memscope.analysis.export.ExportMetric;
import io.memscope.analysis.export.PprofProfile;
import io.memscope.analysis.export.RecordingTraceEvents;
import io.memscope.analysis.text.TerminalText;
import io.memscope.error.MemscopeException;
import io.memscope.launch.OutputFolders;
import io.memscope.launch.MetadataKeys;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope export <dir|recording> --format collapsed|pprof|chrome-trace [--metric M] [-o FILE]}: the
 * recording's profile in formats other tools read: folded stacks (flamegraph.pl, speedscope, async-profiler's
 * converters), pprof (go tool pprof, Grafana Pyroscope) and the timeline as Chrome trace counter tracks (Perfetto).
 */
@Command(name = "export", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Export a recording's profile: collapsed stacks, pprof, or the timeline as a Chrome trace.",
        footerHeading = "%n", footer = {"Examples:",
            "  memscope export memscope-out/20260101-120000/1234 --format collapsed --metric live-bytes -o live.txt",
            "  memscope export app.msrec --format pprof -o heap.pb.gz && go tool pprof -http=: heap.pb.gz",
            "  memscope export app.msrec --format chrome-trace -o timeline.json"})
final class ExportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RECORDING", description = "a recording, a directory holding "
            + "recording.msrec, or a memscope run output folder of several JVMs with --pid or --main")
    Path input;

    @Option(names = "--pid", paramLabel = "PID", description = "in a folder of several JVMs: the JVM with this pid")
    Long pid;

    @Option(names = "--main", paramLabel = "CLASS", description = "in a folder of several JVMs: the JVM running "
            + "this main class (full or simple name) or jar")
    String main;

    @Option(names = "--format", paramLabel = "F", required = true,
            description = "collapsed, pprof or chrome-trace")
    String format;

    @Option(names = "--metric", paramLabel = "M", description = "collapsed: alloc-bytes (default), alloc-objects, "
            + "live-bytes, live-objects, peak-bytes, native-bytes; pprof: the sample type shown first")
    String metric = "alloc-bytes";

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write to FILE (default: standard "
            + "output; pprof, which is binary, only when that is not a terminal)")
    Path output;

    @Option(names = "--from", paramLabel = "SECONDS", description = "only the run from this many seconds on")
    Double from;

    @Option(names = "--last", paramLabel = "DURATION", description = "only the last part of the run, e.g. 10m, 2h")
    String last;

    @Option(names = "--to", paramLabel = "SECONDS", description = "only the run up to this many seconds")
    Double to;

    @Override
    public Integer call() throws Exception {
        ExportMetric m;
        try {
            m = ExportMetric.of(metric);
        } catch (IllegalArgumentException e) {
            throw MemscopeException.configuration(e.getMessage());
        }
        if (!format.equals("collapsed") && !format.equals("pprof") && !format.equals("chrome-trace")) {
            throw MemscopeException.configuration("unknown format '" + format + "': collapsed, pprof or chrome-trace");
        }
        String refused = binaryToTerminal(format, output, TopCommand.outputIsTerminal());
        if (refused != null) {
            throw MemscopeException.configuration(refused);
        }
        Path file = RunFolder.recording(input, pid, main, "export");
        Report r = ReportBuilder.build(file, new TimeWindow(from, to, Windows.lastSeconds(last)));
        String damaged = ExportDamage.note(r);
        if (damaged != null) {
            System.err.println(TerminalText.safe(damaged).replaceFirst("^memscope: ", "memscope export: "));
        }
        OutputFolders.Replacement replacement = output == null ? null : OutputFolders.replace(output);
        OutputStream out = output == null ? new java.io.FilterOutputStream(System.out) {
            @Override
            public void close() {
                // standard output stays open
            }
        } : replacement.stream();
        try (OutputFolders.Replacement written = replacement; OutputStream o = new BufferedOutputStream(out) {
            @Override
            public void close() throws IOException {
                flush(); // the replacement closes the file when it commits
            }
        }) {
            switch (format) {
                case "pprof" -> {
                    long startMs = metadataNumber(r, MetadataKeys.START_EPOCH_MS, 0);
                    if (!r.recording().jfr()) {
                        metadataNumber(r, MetadataKeys.INTERVAL_BYTES, 0); // a malformed interval said on stderr
                    }
                    PprofProfile.write(r, m, PprofProfile.period(r), startMs * 1_000_000L, o);
                }
                case "collapsed" -> {
                    Writer w = new OutputStreamWriter(o, StandardCharsets.UTF_8);
                    CollapsedStacks.write(r, m, w);
                    w.flush();
                }
                default -> {
                    Writer w = new OutputStreamWriter(o, StandardCharsets.UTF_8);
                    long pid = metadataNumber(r, MetadataKeys.PID, 0);
                    RecordingTraceEvents.write(r, pid, w);
                    w.flush();
                }
            }
            o.flush();
            if (written != null) {
                written.commit();
            }
        } finally {
            if (output == null) {
                System.out.flush();
            }
        }
        if (output != null) {
            System.err.println("memscope export: " + format + " written to " + output.toAbsolutePath());
        }
        return 0;
    }

    /**
     * @return why the export is not written to standard output, or null: pprof is gzipped protobuf, which a terminal
     *         shows as pages of noise (and may act on its control bytes)
     */
    static String binaryToTerminal(String format, Path output, boolean terminal) {
        if (format.equals("pprof") && output == null && terminal) {
            return "pprof is a binary (gzipped protobuf) profile, not for a terminal: write it to a file with "
                    + "-o profile.pb.gz, or pipe it";
        }
        return null;
    }

    /**
     * A number of the recording's metadata; a value that is not one (a damaged or hand-made recording) is named on
     * stderr and the default used, as {@code report} does.
     */
    static long metadataNumber(Report r, String key, long otherwise) {
        String v = r.metadata().get(key);
        if (v == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            System.err.println("memscope export: the recording's metadata " + key + " is not a number ('"
                    + TerminalText.safe(v) + "'): " + otherwise + " is used instead");
            return otherwise;
        }
    }
}
