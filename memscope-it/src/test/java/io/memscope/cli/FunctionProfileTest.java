package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.FunctionStats;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.fixtures.FunctionsFixture;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The function profile under {@code memscope run --functions}, on a real JVM: exact calls per call site, times
 * within 15% of what the program measured itself around the calls, exact allocated bytes, exits by exception,
 * recursion counted once per outermost call, and the call site of a call through an interface.
 */
class FunctionProfileTest {

    @ParameterizedTest
    @MethodSource("io.memscope.cli.Jvms#javas")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void callsTimesAndBytesPerFunctionAndCallSite(String java, @TempDir Path dir) throws Exception {
        Path results = dir.resolve("results.txt");
        Path out = dir.resolve("out");
        // --gc-at-edges: held bytes at the end are measured at a final full GC (and garbage before the start is gone)
        int code = Jvms.memscopeRun(out,
                List.of("--functions", "memscope.fixtures.ProfiledService.*", "--interval", "64k", "--gc-at-edges"),
                List.of(java, "-cp", Jvms.classPath(FunctionsFixture.class), FunctionsFixture.class.getName(),
                        results.toString()));
        assertThat(code).isZero();
        Map<String, Long> in = new HashMap<>();
        for (String line : Files.readAllLines(results)) {
            int eq = line.indexOf('=');
            in.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
        }
        Path file;
        try (Stream<Path> s = Files.walk(out)) {
            file = s.filter(p -> p.getFileName().toString().equals("recording.msrec")).findFirst().orElseThrow();
        }
        Recording rec = RecordingReader.readStrict(file);
        String fixture = "memscope.fixtures.FunctionsFixture.main(FunctionsFixture.java:";
        long size = in.get("size10000");

        FunctionStats handle = only(rec, "memscope.fixtures.ProfiledService.handle");
        assertThat(handle.callSite()).isEqualTo(fixture + line("CALL-HANDLE") + ")");
        assertThat(handle.descriptor()).isEqualTo("(J)V");
        assertThat(handle.calls()).isEqualTo(20);
        assertThat(handle.recursiveCalls()).isZero();
        assertThat(handle.totalNanos()).isGreaterThanOrEqualTo(20 * 20_000_000L); // a sleep is never shorter
        // inside the fixture's own measure of the same calls (how far inside depends on the machine's load: no ratio)
        assertThat(handle.totalNanos()).isLessThanOrEqualTo(in.get("handleNanos"));
        assertThat(handle.maxNanos()).isBetween(20_000_000L, handle.totalNanos());
        assertThat(handle.allocatedBytes()).isGreaterThanOrEqualTo(20 * size);

        FunctionStats build = only(rec, "memscope.fixtures.ProfiledService.build");
        assertThat(build.callSite()).isEqualTo(fixture + line("CALL-BUILD") + ")");
        assertThat(build.calls()).isEqualTo(10); // 4 of them left by an exception
        assertThat(build.allocatedBytes()).isEqualTo(10 * 3 * size);
        assertThat(in.get("failed")).isEqualTo(4);

        FunctionStats recurse = only(rec, "memscope.fixtures.ProfiledService.recurse");
        assertThat(recurse.callSite()).isEqualTo(fixture + line("CALL-RECURSE") + ")");
        assertThat(recurse.calls()).isOne();
        assertThat(rec.functionStats().stream().filter(f -> f.function().endsWith(".recurse"))
                .mapToLong(FunctionStats::recursiveCalls).sum()).isEqualTo(5);

        FunctionStats work = only(rec, "memscope.fixtures.ProfiledService.work");
        assertThat(work.callSite()).isEqualTo(fixture + line("CALL-WORK") + ")"); // found by walking the stack
        assertThat(work.calls()).isEqualTo(7);
        // past the 128th call of the hooks (the JDK customizes their method handles then): still exact
        FunctionStats tick = only(rec, "memscope.fixtures.ProfiledService.tick");
        assertThat(tick.callSite()).isEqualTo(fixture + line("CALL-TICK") + ")");
        assertThat(tick.calls()).isEqualTo(300);
        assertThat(tick.allocatedBytes()).isEqualTo(300 * size);
        assertThat(rec.metadata().get("functions.methods")).isEqualTo("6");

        // report.json (built by memscope run from the recording): functions[] with the sampled held bytes
        Object report = Jvms.report(out);
        List<Map<String, Object>> functions = Json.list(report, "functions");
        Map<String, Object> h = functions.stream().filter(f -> f.get("function").equals(
                "memscope.fixtures.ProfiledService.handle")).findFirst().orElseThrow();
        assertThat(Json.num(h, "calls")).isEqualTo(20);
        assertThat(h.get("callSite")).isEqualTo(fixture + line("CALL-HANDLE") + ")");
        assertThat(Json.num(h, "heldAtEndBytes")).isZero(); // its arrays were garbage at once
        Map<String, Object> retain = functions.stream().filter(f -> f.get("function").equals(
                "memscope.fixtures.ProfiledService.retain")).findFirst().orElseThrow();
        assertThat((double) Json.num(retain, "heldAtEndBytes")).isBetween(0.7 * (8 << 20), 1.3 * (8 << 20));
        assertThat(Json.num(retain, "heldAtPeakBytes")).isLessThanOrEqualTo(Json.num(retain, "heldAtEndBytes") * 2);
        assertThat(Json.num(retain, "allocatedBytes")).isGreaterThanOrEqualTo(8L << 20);
        String summary = Files.readString(Jvms.summaryFile(out));
        assertThat(summary).contains("Functions (calls and allocated: exact")
                .contains("memscope.fixtures.ProfiledService.handle  <- " + fixture + line("CALL-HANDLE") + ")");
    }

    /** @return the entry of {@code function} with outermost calls (the one call site the fixture has) */
    private static FunctionStats only(Recording rec, String function) {
        List<FunctionStats> l = rec.functionStats().stream()
                .filter(f -> f.function().equals(function) && f.calls() > 0).toList();
        assertThat(l).as(function).hasSize(1);
        return l.get(0);
    }

    private static int line(String marker) throws Exception {
        return Jvms.lineOf("memscope/fixtures/FunctionsFixture.java", marker);
    }
}
