package io.memscope.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** {@code memscope latency} against the JVM's own -Xlog:gc of the same run. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LatencyCommandTest {
    private static final Pattern PAUSE = Pattern.compile("GC\\((\\d+)\\) ((?:[YyO]: )?Pause .*) ([0-9.]+)ms$");

    @TempDir
    Path tmp;

    /**
     * Every pause of the JVM's own -Xlog:gc counts, once: the count is equal and the total equal within the log's
     * rounding (0.0005 ms per pause). The pauses JFR did not record are all explained: before its recording
     * started (a collection caused by JFR's start-up) or after its dump at exit (a concurrent cycle's remark and
     * cleanup while the JVM shuts down); JFR, only the cross-check here, recorded nearly all the others (seen
     * once on a quiet machine: one G1 remark among 335 pauses missing from JFR mid-run, while memscope's count,
     * total and kinds still matched the log exactly): at most 1% may be unexplained.
     */
    @Test
    void pauseCountAndTotalAgreeWithTheGcLog() throws Exception {
        for (String java : CliRun.javas()) {
            Map<String, Long> kinds = checkAgainstTheGcLog(java, 0.01, 3, "-Xlog:gc:file=");
            assertThat(kinds).containsKeys("young", "full"); // System.gc() twice in GcChurnMain
        }
    }

    /**
     * ZGC logs its pauses under gc+phases (generational ZGC with a generation prefix): they count too. JFR, only
     * the cross-check here, now and then loses a whole ZGC collection's pauses mid-run (seen: the 4 pauses of one
     * collection among 1186 pauses): at most 1% may be unexplained. ZGC in GcChurnMain's 96 MiB heap collects back
     * to back, also while the JVM shuts down after JFR's exit dump (seen: 30 pauses), so those are not bounded.
     */
    @Test
    void zgcPausesCountToo() throws Exception {
        for (String java : CliRun.javas()) {
            Map<String, Long> kinds = checkAgainstTheGcLog(java, 0.01, Integer.MAX_VALUE, "-XX:+UseZGC", "-Xlog:gc,gc+phases:file=");
            assertThat(kinds).containsOnlyKeys("other");
        }
    }

    /**
     * Runs GcChurnMain under {@code memscope latency} with JVM {@code options}, the last of which names the JVM's own
     * GC log (the file is appended), and checks the report against that log; at most {@code jfrLoss} of the log's
     * pauses may be missing from JFR without an explanation, and at most {@code edgePauses} before JFR's recording
     * started or after its exit dump. @return the pause kinds of the log, with their counts
     */
    @SuppressWarnings("unchecked")
    private Map<String, Long> checkAgainstTheGcLog(String java, double jfrLoss, int edgePauses, String... options)
            throws Exception {
        Path log = tmp.resolve("gc-" + Math.abs((java + List.of(options)).hashCode()) + ".log");
        List<String> jvm = new ArrayList<>(List.of(options));
        jvm.set(jvm.size() - 1, jvm.get(jvm.size() - 1) + log);
        List<String> args = new ArrayList<>(List.of("latency", "--json", "--"));
        args.addAll(CliRun.churn(java, 1500, jvm.toArray(new String[0])));
        CliRun r = CliRun.run(args.toArray(new String[0]));
        assertThat(r.exit).as(r.out).isZero();
        Map<String, Object> json = (Map<String, Object>) Json.parse(r.out.trim());
        int logCount = 0;
        double logTotal = 0;
        Map<String, Long> logKinds = new HashMap<>();
        for (String line : Files.readAllLines(log)) {
            Matcher m = PAUSE.matcher(line.trim());
            if (m.find()) {
                logCount++;
                logTotal += Double.parseDouble(m.group(3));
                logKinds.merge(kind(m.group(2)), 1L, Long::sum);
            }
        }
        String what = java + " " + jvm;
        long count = ((Number) json.get("count")).longValue();
        double total = ((Number) json.get("totalMs")).doubleValue();
        assertThat(logCount).as("pauses in the log").isGreaterThan(10);
        assertThat(json.get("source")).isEqualTo("gc-log");
        assertThat(count).as(what + ": count vs " + log).isEqualTo(logCount);
        assertThat(total).as(what + ": total ms").isCloseTo(logTotal, within(0.0005 * logCount + 1e-6));
        Map<String, Object> kinds = (Map<String, Object>) json.get("byKind");
        for (Map.Entry<String, Long> k : logKinds.entrySet()) {
            assertThat(((Number) kinds.get(k.getKey())).longValue()).as(what + " " + k.getKey())
                    .isEqualTo(k.getValue());
        }
        Map<String, Object> jfr = (Map<String, Object>) json.get("jfr");
        long recorded = ((Number) jfr.get("recorded")).longValue();
        long before = ((Number) jfr.get("missedBeforeRecordingStart")).longValue();
        long other = ((Number) jfr.get("missedOther")).longValue();
        assertThat(other).as(what + ": unexplained in " + r.out).isLessThanOrEqualTo((long) (jfrLoss * logCount));
        long after = ((Number) jfr.get("missedAfterExitDump")).longValue();
        assertThat(recorded + before + after + other).as(what + ": every log pause counted once")
                .isEqualTo(logCount);
        assertThat(before).as(what + ": collections during JFR start-up").isLessThanOrEqualTo(edgePauses);
        assertThat(after).as(what + ": pauses during shutdown, after JFR's dump").isLessThanOrEqualTo(edgePauses);
        Map<String, Object> pct = (Map<String, Object>) json.get("percentiles");
        assertThat(pct.keySet()).containsExactly(LatencyCommand.PERCENTILES);
        double max = ((Number) json.get("maxMs")).doubleValue();
        assertThat(((Number) pct.get("100")).doubleValue()).isCloseTo(max, within(max * 0.001 + 1e-6));
        assertThat(((Number) pct.get("50")).doubleValue()).isBetween(((Number) json.get("minMs")).doubleValue(), max);
        assertThat(((Number) json.get("meanMs")).doubleValue()).isCloseTo(total / count, within(1e-3));
        assertThat(((Number) json.get("stddevMs")).doubleValue()).isGreaterThanOrEqualTo(0);
        return logKinds;
    }

    private static String kind(String name) {
        if (name.startsWith("Pause Young")) {
            return name.contains("(Mixed)") ? "mixed" : "young";
        }
        return name.startsWith("Pause Full") ? "full" : name.startsWith("Pause Remark") ? "remark"
                : name.startsWith("Pause Cleanup") ? "cleanup" : "other";
    }

    @Test
    void gcLogLinesParse() {
        GcLog.Pause p = GcLog.parse("[0.646s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) "
                + "15M->4M(96M) 9.753ms");
        assertThat(p.gcId).isZero();
        assertThat(p.name).isEqualTo("Pause Young (Normal) (G1 Evacuation Pause)");
        assertThat(p.nanos).isEqualTo(9_753_000L);
        assertThat(p.kind()).isEqualTo("young");
        p = GcLog.parse("[123ns] GC(197) Pause Young (Normal) (G1 Evacuation Pause) (Evacuation Failure: "
                + "Allocation) 89M->49M(96M) 4.557ms");
        assertThat(p.name).endsWith("(Evacuation Failure: Allocation)");
        assertThat(GcLog.parse("[2.226s][info][gc] GC(195) Pause Cleanup 78M->78M(96M) 0.041ms").kind())
                .isEqualTo("cleanup");
        assertThat(GcLog.parse("GC(3) Pause Young (Mixed) (G1 Evacuation Pause) 50M->35M(96M) 6.821ms").kind())
                .isEqualTo("mixed");
        assertThat(GcLog.parse("GC(33) Pause Full (System.gc()) 36M->25M(90M) 13.144ms").nanos)
                .isEqualTo(13_144_000L);
        assertThat(GcLog.parse("[2.232s][info][gc] GC(195) Concurrent Mark Cycle 94.161ms")).isNull();
        assertThat(GcLog.parse("[0.01s][info][gc] Using G1")).isNull();
        // Shenandoah (gc), ZGC (gc+phases; generational ZGC names the generation)
        assertThat(GcLog.parse("[107398284ns] GC(0) Pause Init Mark (unload classes) 0.019ms").name)
                .isEqualTo("Pause Init Mark (unload classes)");
        assertThat(GcLog.parse("[216657620ns] GC(9) Pause Mark End 0.015ms").nanos).isEqualTo(15_000L);
        p = GcLog.parse("[190174731ns] GC(0) Y: Pause Mark Start (Major) 0.022ms");
        assertThat(p.name).isEqualTo("Y: Pause Mark Start (Major)");
        assertThat(p.kind()).isEqualTo("other");
        assertThat(GcLog.parse("GC(88) y: Pause Relocate Start 0.008ms").gcId).isEqualTo(88);
        // sub-phases that gc+phases adds for the other collectors are not pauses
        assertThat(GcLog.parse("[1ns] GC(3)   Pre Evacuate Collection Set: 0.1ms")).isNull();
        assertThat(GcLog.parse("[1ns] GC(5) Phase 1: Mark live objects 1.234ms")).isNull();
    }

    @Test
    void textOutputHasTheOcamlLatencyTable() {
        LatencyCommand.Pauses p = new LatencyCommand.Pauses();
        for (long ms = 1; ms <= 100; ms++) {
            p.durations.add(ms * 1_000_000L);
        }
        String text = p.text();
        assertThat(text).startsWith("GC latency profile:\n")
                .contains("#[Count:\t100,\t Total (ms):\t5050.000]")
                .contains("#[Mean (ms):\t50.50,\t Stddev (ms):\t28.87]")
                .contains("#[Min (ms):\t1.00,\t max (ms):\t100.00]")
                .contains("Percentile \t Latency (ms)\n")
                .contains("50.0000 \t 50.00\n")
                .contains("99.9999 \t 100.00\n")
                .contains("100.0000 \t 100.00\n");
        assertThat(text.lines().filter(l -> l.matches("\\d+\\.\\d{4} \t \\d+\\.\\d{2}")).count()).isEqualTo(18);
    }
}
