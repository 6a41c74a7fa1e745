package io.memscope.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
    private static final Pattern PAUSE = Pattern.compile("GC\\((\\d+)\\) Pause .* ([0-9.]+)ms$");

    @TempDir
    Path tmp;

    @Test
    @SuppressWarnings("unchecked")
    void pauseCountAndTotalAgreeWithTheGcLog() throws Exception {
        for (String java : CliRun.javas()) {
            Path log = tmp.resolve("gc-" + Math.abs(java.hashCode()) + ".log");
            List<String> args = new ArrayList<>(List.of("latency", "--json", "--"));
            args.addAll(CliRun.churn(java, 1500, "-Xlog:gc:file=" + log));
            CliRun r = CliRun.run(args.toArray(new String[0]));
            assertThat(r.exit).as(r.out).isZero();
            Map<String, Object> json = (Map<String, Object>) MiniJson.parse(r.out.trim());
            long unobserved = ((Number) json.get("unobservedCollections")).longValue();
            int logCount = 0;
            double logTotal = 0;
            for (String line : Files.readAllLines(log)) {
                Matcher m = PAUSE.matcher(line.trim());
                if (m.find() && Long.parseLong(m.group(1)) >= unobserved) {
                    logCount++;
                    logTotal += Double.parseDouble(m.group(2));
                }
            }
            long count = ((Number) json.get("count")).longValue();
            double total = ((Number) json.get("totalMs")).doubleValue();
            assertThat(logCount).as("pauses in the log").isGreaterThan(10);
            // The rings carry the JFR bridge's pauses; a JVM's first and last pauses can escape the in-process JFR
            // stream (JFR start-up, JFR's own shutdown hook): allow a few at the edges, never more.
            long slack = Math.max(3, logCount / 50);
            assertThat(count).as(java + ": count vs " + log).isBetween(logCount - slack, (long) logCount);
            if (count == logCount) {
                assertThat(total).as(java + ": total ms").isCloseTo(logTotal, within(0.05 * logTotal + 0.05 * count));
            } else {
                assertThat(total).as(java + ": total ms").isLessThanOrEqualTo(logTotal * 1.05 + 0.05 * count);
            }
            Map<String, Object> pct = (Map<String, Object>) json.get("percentiles");
            assertThat(pct.keySet()).containsExactly(LatencyCommand.PERCENTILES);
            double max = ((Number) json.get("maxMs")).doubleValue();
            assertThat(((Number) pct.get("100")).doubleValue()).isCloseTo(max, within(max * 0.001 + 1e-6));
            assertThat(((Number) pct.get("50")).doubleValue()).isBetween(((Number) json.get("minMs")).doubleValue(), max);
            assertThat(((Number) json.get("meanMs")).doubleValue()).isCloseTo(total / count, within(1e-3));
            assertThat(((Number) json.get("stddevMs")).doubleValue()).isGreaterThanOrEqualTo(0);
        }
    }

    @Test
    void textOutputHasTheSeedsTable() {
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
