package io.memscope.cli;

import io.memscope.events.EventCallbacks;
import io.memscope.events.EventCursor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code memscope latency [--json] -- <command...>}: the distribution of GC pauses (every {@code gc.pause/*} span
 * of the JVM bridge: young, mixed, remark, cleanup, full) of a command's JVMs, as seed 002's {@code olly latency}
 * prints it. Count, total, mean, stddev, min and max are exact; percentiles come from an HdrHistogram (3
 * significant digits) of the pause durations in ns. Pauses after the last one a JVM's ring delivered are taken
 * from that JVM's JFR dump at exit (JFR's shutdown hook can stop the in-process stream before it delivers them);
 * collections before JFR recorded at all (JFR's own start-up can cause one) are reported as unobserved.
 */
@Command(name = "latency", mixinStandardHelpOptions = true,
        description = "Run a command and print the distribution of its GC pauses (ms).")
public final class LatencyCommand implements Callable<Integer> {
    /** The percentiles of seed 002's table. */
    static final String[] PERCENTILES = {"25", "50", "60", "70", "75", "80", "85", "90", "95", "96", "97", "98",
        "99", "99.9", "99.99", "99.999", "99.9999", "100"};
    static final String PAUSE_PREFIX = "gc.pause/";

    @Parameters(paramLabel = "COMMAND", description = "command to run (after --)")
    List<String> command = new ArrayList<>();

    @Option(names = "--json", description = "print count, meanMs, stddevMs, minMs, maxMs, totalMs, percentiles")
    boolean json;

    @Option(names = "--poll-ms", defaultValue = "50", description = "how often the rings are read (ms)")
    long pollMs;

    @Override
    public Integer call() throws Exception {
        Pauses pauses = new Pauses();
        EventsRunner runner = new EventsRunner(pauses::forCursor, System.err);
        int exit;
        try {
            exit = runner.run(command, pollMs);
            for (EventCursor c : runner.cursors()) {
                Path dump = runner.jfrDumpOf(c.pid());
                if (dump != null) {
                    pauses.addTail(c, dump);
                }
            }
        } finally {
            runner.cleanup();
        }
        PrintStream out = System.out;
        out.print(json ? pauses.json() : pauses.text());
        out.flush();
        return exit;
    }

    /** Collects pause durations from begin/end pairs per process and thread. */
    static final class Pauses {
        final List<Long> durations = new ArrayList<>();
        /** Per process: the lowest GC id the JFR bridge observed (collections before it were not recorded). */
        final Map<Long, Long> firstObserved = new HashMap<>();
        long lost;

        long unobserved() {
            long n = 0;
            for (long v : firstObserved.values()) {
                n += v;
            }
            return n;
        }

        /** Per process: monotonic start of the last pause read from the ring. */
        final Map<Long, Long> lastBegin = new HashMap<>();
        /** Pauses taken from the JVMs' exit dumps because the rings ended before them. */
        long tailFromJfr;

        /**
         * Adds the pauses a JVM's exit dump holds after the last pause its ring delivered (the JFR stream inside a
         * JVM can be stopped by JFR's own shutdown hook before it delivers the last second of events).
         */
        synchronized void addTail(EventCursor c, Path dump) throws IOException {
            long last = lastBegin.getOrDefault(c.pid(), Long.MIN_VALUE);
            long first = firstObserved.getOrDefault(c.pid(), 0L);
            try (RecordingFile f = new RecordingFile(dump)) {
                while (f.hasMoreEvents()) {
                    RecordedEvent e = f.readEvent();
                    if (!e.getEventType().getName().equals("jdk.GCPhasePause") || e.getLong("gcId") < first) {
                        continue;
                    }
                    Instant t = e.getStartTime();
                    long mono = c.startMonotonicNanos()
                            + (t.getEpochSecond() * 1_000_000_000L + t.getNano() - c.startEpochNanos());
                    if (mono > last + TAIL_SLACK_NANOS) {
                        durations.add(e.getDuration().toNanos());
                        tailFromJfr++;
                    }
                }
            }
        }

        /** Clock conversions of the ring and of a JFR file differ by microseconds; pauses are further apart. */
        static final long TAIL_SLACK_NANOS = 200_000;

        EventCallbacks forCursor(EventCursor c) {
            Map<String, Long> open = new HashMap<>();
            return new EventCallbacks() {
                @Override
                public void spanBegin(long tid, long ts, String name) {
                    if (name.startsWith(PAUSE_PREFIX)) {
                        open.put(tid + "/" + name, ts);
                        synchronized (Pauses.this) {
                            lastBegin.merge(c.pid(), ts, Math::max);
                        }
                    }
                }

                @Override
                public void spanEnd(long tid, long ts, String name) {
                    if (name.startsWith(PAUSE_PREFIX)) {
                        Long b = open.remove(tid + "/" + name);
                        if (b != null) {
                            synchronized (Pauses.this) {
                                durations.add(ts - b);
                            }
                        }
                    }
                }

                @Override
                public void lifecycle(long tid, long ts, String name, long data) {
                    if (name.equals("gc.firstObservedId")) {
                        synchronized (Pauses.this) {
                            Long prev = firstObserved.get(c.pid());
                            firstObserved.put(c.pid(), prev == null ? data : Math.min(prev, data));
                        }
                    }
                }

                @Override
                public void lost(long tid, long count) {
                    lost += count;
                }
            };
        }

        synchronized String text() {
            Stats s = new Stats(durations);
            StringBuilder sb = new StringBuilder("GC latency profile:\n");
            sb.append(String.format(Locale.ROOT, "#[Count:\t%d,\t Total (ms):\t%.3f]%n", s.count, s.totalMs));
            sb.append(String.format(Locale.ROOT, "#[Mean (ms):\t%.2f,\t Stddev (ms):\t%.2f]%n", s.meanMs, s.stddevMs));
            sb.append(String.format(Locale.ROOT, "#[Min (ms):\t%.2f,\t max (ms):\t%.2f]%n", s.minMs, s.maxMs));
            sb.append("Percentile \t Latency (ms)\n");
            for (int i = 0; i < PERCENTILES.length; i++) {
                sb.append(String.format(Locale.ROOT, "%.4f \t %.2f%n", Double.parseDouble(PERCENTILES[i]),
                        s.percentileMs[i]));
            }
            if (unobserved() > 0) {
                sb.append("# ").append(unobserved()).append(" collection(s) ran before JFR recorded and are not "
                        + "counted\n");
            }
            if (tailFromJfr > 0) {
                sb.append("# ").append(tailFromJfr).append(" pause(s) after the last one the rings delivered were "
                        + "taken from the JVM's JFR dump at exit\n");
            }
            if (lost > 0) {
                sb.append("# ").append(lost).append(" events were lost (ring overwritten before it was read)\n");
            }
            return sb.toString();
        }

        synchronized String json() {
            Stats s = new Stats(durations);
            StringBuilder sb = new StringBuilder("{");
            sb.append("\"count\":").append(s.count)
                    .append(",\"meanMs\":").append(num(s.meanMs))
                    .append(",\"stddevMs\":").append(num(s.stddevMs))
                    .append(",\"minMs\":").append(num(s.minMs))
                    .append(",\"maxMs\":").append(num(s.maxMs))
                    .append(",\"totalMs\":").append(num(s.totalMs))
                    .append(",\"lostEvents\":").append(lost)
                    .append(",\"unobservedCollections\":").append(unobserved())
                    .append(",\"fromExitDump\":").append(tailFromJfr)
                    .append(",\"percentiles\":{");
            for (int i = 0; i < PERCENTILES.length; i++) {
                sb.append(i == 0 ? "" : ",").append('"').append(PERCENTILES[i]).append("\":")
                        .append(num(s.percentileMs[i]));
            }
            return sb.append("}}\n").toString();
        }

        private static String num(double v) {
            return String.format(Locale.ROOT, "%.6f", v);
        }
    }

    /** Exact moments of the durations and HdrHistogram percentiles, in ms. */
    static final class Stats {
        final long count;
        final double totalMs;
        final double meanMs;
        final double stddevMs;
        final double minMs;
        final double maxMs;
        final double[] percentileMs = new double[PERCENTILES.length];

        Stats(List<Long> ns) {
            count = ns.size();
            Histogram h = new Histogram(3);
            double sum = 0;
            long min = Long.MAX_VALUE;
            long max = 0;
            for (long d : ns) {
                long v = Math.max(0, d);
                h.recordValue(v);
                sum += v;
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
            double mean = count == 0 ? 0 : sum / count;
            double var = 0;
            for (long d : ns) {
                double x = Math.max(0, d) - mean;
                var += x * x;
            }
            totalMs = sum / 1e6;
            meanMs = mean / 1e6;
            stddevMs = count == 0 ? 0 : Math.sqrt(var / count) / 1e6;
            minMs = count == 0 ? 0 : min / 1e6;
            maxMs = max / 1e6;
            for (int i = 0; i < PERCENTILES.length; i++) {
                long v = count == 0 ? 0 : h.getValueAtPercentile(Double.parseDouble(PERCENTILES[i]));
                percentileMs[i] = Math.min(v, max) / 1e6;
            }
        }
    }
}
