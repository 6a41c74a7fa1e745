package io.memscope.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code memscope trace}: the output is valid trace-event JSON with what the run did. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TraceCommandTest {
    @TempDir
    Path tmp;

    @Test
    void traceOfACommandIsValidChromeTraceJson() throws Exception {
        for (String java : CliRun.javas()) {
            Path out = tmp.resolve("trace-" + Math.abs(java.hashCode()) + ".json");
            List<String> args = new ArrayList<>(List.of("trace", out.toString(), "--"));
            args.addAll(CliRun.churn(java, 2500)); // long enough for JFR to flush at least once (JDK 17 cannot at exit)
            assertThat(CliRun.run(args.toArray(new String[0])).exit).isZero();
            List<Map<String, Object>> events = parse(out);
            // JDK 17-19 cannot flush the JFR stream at exit: a short run may end before its first delivery
            check(events, true, java.equals(CliRun.testJava()));
            assertThat(count(events, "X", "app.work")).as(java).isEqualTo(20);
        }
    }

    @Test
    void traceOfARunningJvmByPid() throws Exception {
        // the window must cover JFR's start-up inside the target (seconds on a loaded 2-core machine) plus one JFR
        // flush (about 1 s) plus a collection: 5 s, in a child that outlives it
        Process child = new ProcessBuilder(CliRun.churn(CliRun.testJava(), 9000)).redirectErrorStream(true).start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            assertThat(r.readLine()).isEqualTo("started");
            Path out = tmp.resolve("attached.json");
            CliRun run = CliRun.run("trace", out.toString(), "--pid", Long.toString(child.pid()), "--duration", "5");
            assertThat(run.exit).isZero();
            List<Map<String, Object>> events = parse(out);
            check(events, false, true);
            assertThat(events).allMatch(e -> ((Number) e.get("pid")).longValue() == child.pid());
            assertThat(count(events, "X", "app.work")).isPositive(); // spans written after the attach
        } finally {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> parse(Path file) throws Exception {
        String text = Files.readString(file);
        assertThat(text.trim()).startsWith("[").endsWith("]");
        return (List<Map<String, Object>>) Json.parse(text);
    }

    static long count(List<Map<String, Object>> events, String ph, String name) {
        return events.stream().filter(e -> ph.equals(e.get("ph")) && name.equals(e.get("name"))).count();
    }

    static void check(List<Map<String, Object>> events, boolean wholeRun, boolean gcExpected) {
        assertThat(events).isNotEmpty();
        Map<String, Integer> openPerThread = new HashMap<>();
        Set<String> namedThreads = new HashSet<>();
        Set<String> threadsWithEvents = new HashSet<>();
        for (Map<String, Object> e : events) {
            String ph = (String) e.get("ph");
            assertThat(ph).isIn("X", "B", "E", "C", "i", "M");
            assertThat(e.get("pid")).isInstanceOf(Number.class);
            assertThat(e.get("tid")).isInstanceOf(Number.class);
            String thread = e.get("pid") + "/" + e.get("tid");
            if (ph.equals("M")) {
                if ("thread_name".equals(e.get("name"))) {
                    namedThreads.add(thread);
                }
                continue;
            }
            threadsWithEvents.add(thread);
            assertThat(e.get("ts")).isInstanceOf(Number.class);
            if (ph.equals("X")) {
                assertThat(((Number) e.get("dur")).doubleValue()).isGreaterThanOrEqualTo(0);
            }
            if (ph.equals("B")) {
                openPerThread.merge(thread, 1, Integer::sum);
            }
            if (ph.equals("E")) {
                openPerThread.merge(thread, -1, Integer::sum);
            }
            if (ph.equals("C")) {
                assertThat(((Map<?, ?>) e.get("args")).get("value")).isInstanceOf(Number.class);
            }
        }
        assertThat(openPerThread.values()).allMatch(v -> v == 0);
        assertThat(namedThreads).containsAll(threadsWithEvents);
        if (gcExpected) {
            assertThat(events).anyMatch(e -> "X".equals(e.get("ph")) && ((String) e.get("name")).startsWith("gc.pause/"));
            assertThat(events).anyMatch(e -> "C".equals(e.get("ph")) && "heap.used".equals(e.get("name")));
        }
        assertThat(events).anyMatch(e -> "C".equals(e.get("ph")) && "app.iterations".equals(e.get("name")));
        if (wholeRun) {
            assertThat(events).anyMatch(e -> "i".equals(e.get("ph")) && "vm.start".equals(e.get("name")));
            assertThat(events).anyMatch(e -> "i".equals(e.get("ph")) && "vm.shutdown".equals(e.get("name")));
            if (gcExpected) {
                // the bridge's own thread starts after the VM-start recording runs: always recorded, and read
                // during the run or from the repository at exit
                assertThat(events).anyMatch(e -> "i".equals(e.get("ph")) && "thread.start".equals(e.get("name")));
                // pauses carry their kind as -Xlog:gc names it (JDK 21+ JFR names young and full pauses "GC Pause")
                assertThat(events).anyMatch(e -> "X".equals(e.get("ph"))
                        && ((String) e.get("name")).startsWith("gc.pause/Pause Young ("));
                assertThat(events).anyMatch(e -> "X".equals(e.get("ph"))
                        && "gc.pause/Pause Full (System.gc())".equals(e.get("name")));
                // docs/formats/events.md: only a pause whose collection JFR had not delivered when the JVM exited
                // keeps JFR's generic name, i.e. at most the last pause or two, after every named one
                double lastNamed = events.stream().filter(e -> "X".equals(e.get("ph"))
                                && ((String) e.get("name")).startsWith("gc.pause/Pause "))
                        .mapToDouble(e -> ((Number) e.get("ts")).doubleValue()).max().orElseThrow();
                List<Double> unnamed = events.stream().filter(e -> "X".equals(e.get("ph"))
                                && "gc.pause/GC Pause".equals(e.get("name")))
                        .map(e -> ((Number) e.get("ts")).doubleValue()).collect(java.util.stream.Collectors.toList());
                assertThat(unnamed).as("pauses without a kind").hasSizeLessThanOrEqualTo(2)
                        .allMatch(ts -> ts > lastNamed);
            }
        }
        // nanosecond precision kept: timestamps carry three decimals of microseconds
        assertThat(events).anyMatch(e -> e.get("ts") instanceof Double && (((Number) e.get("ts")).doubleValue()) % 1 != 0);
    }
}
