package io.memscope.cli;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * {@code memscope latency [--json] -- <command...>}: the distribution of the stop-the-world GC pauses (young, mixed,
 * remark, cleanup, full; ZGC's and Shenandoah's pauses as other) of a command's JVMs, as OCaml runtime events'
 * {@code olly latency} prints it. Count, total, mean, stddev, min and max are exact; percentiles come from an
 * HdrHistogram (3 significant digits) of the durations in ns.
 *
 * <p>Where the pauses come from. Each JVM of the command writes its unified GC log ({@code -Xlog:gc,gc+phases}, added
 * to
 * {@code JAVA_TOOL_OPTIONS} with the events agent) into the run's private directory: the JVM's own record of every
 * pause from VM start to exit, and the list this command reports, with the log's 1 µs precision. The JFR bridge's
 * pause spans in the rings (what {@code memscope trace} shows) cannot be that list: a collection caused by JFR's
 * own start-up happens before any recording exists (GC(0), on JDK 17 also GC(1), in a 96 MiB G1 heap), and JFR's
 * {@code jdk.GCPhasePause} times a slightly narrower interval than the log (10–16 µs shorter per pause, measured on
 * G1), so even a complete JFR list would not give the log's total. The report says how many of the log's pauses JFR
 * recorded (from each JVM's JFR dump at exit, matched by GC id) and why the others are missing (before the
 * recording started, after the dump at exit while the JVM shut down). A JVM without a GC log (logging disabled by its
 * own options) falls back to its ring spans plus the pauses of its JFR exit dump after the last ring pause; the report
 * says so.
 */
@Command(name = "latency", mixinStandardHelpOptions = true,
        description = "Run a command and print the distribution of its GC pauses (ms).")
public final class LatencyCommand implements Callable<Integer> {
    /** The percentiles of OCaml runtime events' latency table. */
    static final String[] PERCENTILES = {"25", "50", "60", "70", "75", "80", "85", "90", "95", "96", "97", "98",
        "99", "99.9", "99.99", "99.999", "99.9999", "100"};
    static final String PAUSE_PREFIX = "gc.pause/";

    @Parameters(paramLabel = "COMMAND", description = "command to run (after --)")
    List<String> command = new ArrayList<>();

    @Option(names = "--json", description = "print count, meanMs, stddevMs, minMs, maxMs, totalMs, percentiles")
    boolean json;

    @Option(names = "--poll-ms", defaultValue = "50", description = "how often the rings are read (ms, 1 to 60000)")
    long pollMs;

    @Override
    public Integer call() throws Exception {
        EventsRunner.checkPollMillis(pollMs);
        Pauses pauses = new Pauses();
        EventsRunner runner = new EventsRunner(pauses::forCursor, System.err).withGcLog();
        int exit;
        try {
            exit = runner.run(command, pollMs);
            Map<Long, EventCursor> cursors = new TreeMap<>();
            for (EventCursor c : runner.cursors()) {
                cursors.put(c.pid(), c);
            }
            Set<Long> pids = new TreeSet<>(runner.gcLogPids());
            pids.addAll(cursors.keySet());
            for (long pid : pids) {
                Path log = runner.gcLogOf(pid);
                Path dump = runner.jfrDumpOf(pid);
                if (log != null) {
                    pauses.addGcLog(pid, GcLog.read(log), dump);
                } else {
                    pauses.addRings(pid, cursors.get(pid), dump);
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

    /** The pauses of all JVMs of the run, and where they came from. */
    static final class Pauses {
        /** The reported pause durations, ns. */
        final List<Long> durations = new ArrayList<>();
        /** Reported pauses per kind ({@link GcLog#KINDS}). */
        final Map<String, Long> byKind = new LinkedHashMap<>();
        /** JVMs whose pauses came from their GC log / from their rings (no GC log). */
        int jvmsFromGcLog;
        int jvmsFromRings;
        /** Of the GC-log pauses: recorded by JFR, and missed by it before its recording started / after its dump. */
        long jfrRecorded;
        long jfrMissedBeforeStart;
        long jfrMissedAfterDump;
        long jfrMissedOther;
        /** The first few of those, as "GC(id) name", for the report. */
        final List<String> missedOtherPauses = new ArrayList<>();
        /** GC-log pauses of JVMs that left no JFR dump (killed, or JFR disabled): not checked against JFR. */
        long jfrNoDump;
        /** Pause spans read from the rings (all JVMs), and ring events lost to lapping. */
        long ringPauses;
        long lost;
        /** Rings-only JVMs: pauses added from their JFR exit dump after the last ring pause. */
        long tailFromJfr;

        /** Per process: pause durations (ns) and the monotonic start of the last pause read from its ring. */
        final Map<Long, List<Long>> ringDurations = new HashMap<>();
        final Map<Long, Long> lastBegin = new HashMap<>();

        Pauses() {
            for (String k : GcLog.KINDS) {
                byKind.put(k, 0L);
            }
        }

        /**
         * Reports the pauses of a JVM's GC log, and checks them against its JFR exit dump: a log pause is
         * recorded by JFR when the dump has a jdk.GCPhasePause of the same GC id (the n-th pause of a GC id
         * matches the n-th of the dump); the others are classified by where they are in the log.
         */
        synchronized void addGcLog(long pid, List<GcLog.Pause> log, Path dump) throws IOException {
            jvmsFromGcLog++;
            for (GcLog.Pause p : log) {
                durations.add(p.nanos);
                byKind.merge(p.kind(), 1L, Long::sum);
            }
            if (dump == null) {
                jfrNoDump += log.size();
                return;
            }
            Map<Long, Integer> jfr = new HashMap<>();
            try (RecordingFile f = new RecordingFile(dump)) {
                while (f.hasMoreEvents()) {
                    RecordedEvent e = f.readEvent();
                    if (e.getEventType().getName().equals("jdk.GCPhasePause")) {
                        long id = e.getLong("gcId");
                        jfr.merge(id, 1, Integer::sum);
                    }
                }
            }
            // The log is in time order: an unrecorded pause before the first recorded one happened before JFR's
            // recording started, one after the last recorded one after JFR's dump at exit (during shutdown, e.g.
            // the remark of a concurrent cycle still running); one in between would be a real JFR loss.
            boolean[] recorded = new boolean[log.size()];
            Map<Long, Integer> used = new HashMap<>();
            int first = -1;
            int last = -1;
            for (int i = 0; i < log.size(); i++) {
                GcLog.Pause p = log.get(i);
                int nth = used.merge(p.gcId, 1, Integer::sum);
                if (nth <= jfr.getOrDefault(p.gcId, 0)) {
                    recorded[i] = true;
                    first = first < 0 ? i : first;
                    last = i;
                }
            }
            for (int i = 0; i < log.size(); i++) {
                if (recorded[i]) {
                    jfrRecorded++;
                } else if (i < first || first < 0) {
                    jfrMissedBeforeStart++;
                } else if (i > last) {
                    jfrMissedAfterDump++;
                } else {
                    jfrMissedOther++;
                    if (missedOtherPauses.size() < 20) {
                        missedOtherPauses.add("GC(" + log.get(i).gcId + ") " + log.get(i).name);
                    }
                }
            }
        }

        /**
         * Reports a JVM without a GC log from its ring pause spans, plus the pauses its JFR exit dump holds after
         * the last pause its ring delivered (the JFR stream inside a JVM can be stopped by JFR's own shutdown hook
         * before it delivers the last second of events).
         */
        synchronized void addRings(long pid, EventCursor c, Path dump) throws IOException {
            jvmsFromRings++;
            for (long d : ringDurations.getOrDefault(pid, List.of())) {
                durations.add(d);
                byKind.merge("other", 1L, Long::sum);
            }
            if (c == null || dump == null) {
                return;
            }
            long last = lastBegin.getOrDefault(pid, Long.MIN_VALUE);
            try (RecordingFile f = new RecordingFile(dump)) {
                while (f.hasMoreEvents()) {
                    RecordedEvent e = f.readEvent();
                    if (!e.getEventType().getName().equals("jdk.GCPhasePause")) {
                        continue;
                    }
                    Instant t = e.getStartTime();
                    long mono = c.startMonotonicNanos()
                            + (t.getEpochSecond() * 1_000_000_000L + t.getNano() - c.startEpochNanos());
                    if (mono > last + TAIL_SLACK_NANOS) {
                        durations.add(e.getDuration().toNanos());
                        byKind.merge("other", 1L, Long::sum);
                        tailFromJfr++;
                    }
                }
            }
        }

        /** Clock conversions of the ring and of a JFR file differ by microseconds; pauses are further apart. */
        static final long TAIL_SLACK_NANOS = 200_000;

        EventCursor.Callbacks forCursor(EventCursor c) {
            Map<String, Long> open = new HashMap<>();
            return new EventCursor.Callbacks() {
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
                                ringPauses++;
                                ringDurations.computeIfAbsent(c.pid(), k -> new ArrayList<>()).add(ts - b);
                            }
                        }
                    }
                }

                @Override
                public void lost(long tid, long count) {
                    synchronized (Pauses.this) {
                        lost += count;
                    }
                }
            };
        }

        String source() {
            return jvmsFromRings == 0 ? "gc-log" : jvmsFromGcLog == 0 ? "rings" : "gc-log+rings";
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
            if (jvmsFromGcLog + jvmsFromRings > 0) {
                StringBuilder kinds = new StringBuilder();
                byKind.forEach((k, v) -> {
                    if (v > 0) {
                        kinds.append(kinds.length() == 0 ? "" : ", ").append(k).append(' ').append(v);
                    }
                });
                sb.append("# pauses by kind: ").append(kinds.length() == 0 ? "none" : kinds).append('\n');
            }
            if (jvmsFromGcLog > 0) {
                sb.append("# source: the JVMs' GC logs (-Xlog:gc,gc+phases, 1 us precision); JFR recorded ").append(jfrRecorded)
                        .append(" of them");
                if (jfrMissedBeforeStart > 0) {
                    sb.append(", ").append(jfrMissedBeforeStart).append(" happened before JFR's recording started");
                }
                if (jfrMissedAfterDump > 0) {
                    sb.append(", ").append(jfrMissedAfterDump).append(" after JFR's dump at exit (JVM shutdown)");
                }
                if (jfrMissedOther > 0) {
                    sb.append(", ").append(jfrMissedOther).append(" are missing from JFR's recording");
                }
                if (jfrNoDump > 0) {
                    sb.append(", ").append(jfrNoDump).append(" are from JVMs without a JFR dump");
                }
                sb.append('\n');
            }
            if (jvmsFromRings > 0) {
                sb.append("# ").append(jvmsFromRings).append(" JVM(s) without a GC log: pauses from the event rings")
                        .append(tailFromJfr > 0 ? " and " + tailFromJfr + " from their JFR dump at exit" : "")
                        .append('\n');
            }
            if (lost > 0) {
                sb.append("# ").append(lost).append(" ring events were lost (ring overwritten before it was read)\n");
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
                    .append(",\"source\":\"").append(source()).append('"')
                    .append(",\"byKind\":{");
            int i = 0;
            for (Map.Entry<String, Long> e : byKind.entrySet()) {
                sb.append(i++ == 0 ? "" : ",").append('"').append(e.getKey()).append("\":").append(e.getValue());
            }
            sb.append("},\"jfr\":{\"recorded\":").append(jfrRecorded)
                    .append(",\"missedBeforeRecordingStart\":").append(jfrMissedBeforeStart)
                    .append(",\"missedAfterExitDump\":").append(jfrMissedAfterDump)
                    .append(",\"missedOther\":").append(jfrMissedOther)
                    .append(",\"noDump\":").append(jfrNoDump)
                    .append(",\"missedOtherPauses\":[");
            for (i = 0; i < missedOtherPauses.size(); i++) {
                sb.append(i == 0 ? "" : ",").append('"').append(missedOtherPauses.get(i)).append('"');
            }
            sb.append("]}")
                    .append(",\"ringPauses\":").append(ringPauses)
                    .append(",\"lostEvents\":").append(lost)
                    .append(",\"fromExitDump\":").append(tailFromJfr)
                    .append(",\"percentiles\":{");
            for (i = 0; i < PERCENTILES.length; i++) {
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
