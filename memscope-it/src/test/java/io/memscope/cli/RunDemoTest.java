package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** `memscope run` end to end: real JVMs under the agent, report.json read back. */
class RunDemoTest {

    static List<String> javas() {
        return Jvms.javas();
    }

    private static void assertDemoProblemsNamed(Object report) throws Exception {
        String leak = "io.memscope.demo.LeakyCacheWorkload.run(LeakyCacheWorkload.java:"
                + Jvms.lineOf("io/memscope/demo/LeakyCacheWorkload.java", "the leaking allocation") + ")";
        String temp = "io.memscope.demo.StringConcatWorkload.concatenate(StringConcatWorkload.java:"
                + Jvms.lineOf("io/memscope/demo/StringConcatWorkload.java", "the needless temporaries") + ")";
        String nativeLeak = "io.memscope.demo.DirectBufferLeakWorkload.run(DirectBufferLeakWorkload.java:"
                + Jvms.lineOf("io/memscope/demo/DirectBufferLeakWorkload.java", "the native leak") + ")";

        assertThat(Jvms.sites(report, "leakSuspects")).first().isEqualTo(leak);
        assertThat(Jvms.sites(report, "leakSuspects")).doesNotContain(temp);
        assertThat(Jvms.sites(report, "temporaries")).first().isEqualTo(temp);
        assertThat(Jvms.sites(report, "temporaries")).doesNotContain(leak);
        assertThat(Jvms.sites(report, "native", "leaks")).containsExactly(nativeLeak);
        assertThat(Jvms.sites(report, "native", "leakSuspects")).as("outstanding and growing").containsExactly(nativeLeak);

        Map<String, Object> leakEntry = Json.list(report, "leakSuspects").get(0);
        assertThat(leakEntry.get("type")).isEqualTo("byte[]");
        // 60,000 responses of 1040 bytes each stay reachable: the estimate must be in the right range.
        assertThat(Json.num(leakEntry, "bytes")).isBetween(40L << 20, 85L << 20);
        Map<String, Object> tempEntry = Json.list(report, "temporaries").get(0);
        // The bytecode sampler hooks the concatenation's result, a String; the JVM's sampler (default) sees what was
        // really allocated, and most of the bytes are the Strings' value arrays.
        boolean jvmti = "jvmti".equals(Json.obj(report, "metadata").get("sampler"));
        assertThat(tempEntry.get("type")).isEqualTo(jvmti ? "byte[]" : "java.lang.String");
        assertThat(Json.num(tempEntry, "bytes")).isGreaterThan(100L << 20);

        Map<String, Object> nat = Json.obj(report, "native");
        assertThat(Json.num(nat, "outstandingBytes")).isEqualTo(32L * 256 * 1024);
        assertThat(Json.num(nat, "freedBytes")).isGreaterThanOrEqualTo(32L * 64 * 1024);
        assertThat(Json.list(report, "native", "anomalies")).isEmpty();
        assertThat(Json.list(report, "native", "leaks").get(0).get("type")).isEqualTo("native:direct-buffer");

        Map<String, Object> totals = Json.obj(report, "totals");
        assertThat(Json.num(totals, "allocatedBytes")).isGreaterThan(200L << 20);
        assertThat(Json.num(totals, "heldAtEndBytes")).isGreaterThan(40L << 20);
        // the peak is the whole-heap collection where the most was held (a young collection cannot say what is held;
        // the JVM's heap figures do not choose: a G1 Remark has none on JDK 17, and its figure on JDK 25 still counts
        // the garbage it found); the leak is the largest holder there, and nothing measured held more
        assertThat(Json.list(report, "peak", "sites").get(0).get("site")).isEqualTo(leak);
        long peakHeld = Json.num(totals, "peakHeldBytes");
        assertThat(Json.num(Json.obj(report, "peak"), "estimatedBytes")).isEqualTo(peakHeld);
        assertThat(peakHeld).isGreaterThanOrEqualTo(Json.num(totals, "heldAtEndBytes"));
        for (Map<String, Object> b : Json.list(report, "timeline", "buckets")) {
            // (the peak's figure adds up the sites' rounded figures: a few bytes of rounding)
            assertThat(Json.num(b, "heldBytes")).as("held at %s ms", b.get("startMs"))
                    .isLessThanOrEqualTo(peakHeld + 1024);
        }
        // the JVM's figure of that collection, where it has one
        Map<String, Object> peak = Json.obj(report, "peak");
        long heapAfter = Json.num(peak, "heapUsedAfterGcBytes");
        if (heapAfter > 0) {
            assertThat(Json.list(report, "gc", "collections")).as("the peak's collection")
                    .anySatisfy(c -> assertThat(Json.num(c, "heapUsedAfterBytes")).isEqualTo(heapAfter));
        }
        assertThat(Json.num(Json.obj(report, "totals"), "wholeHeapCollections")).isGreaterThanOrEqualTo(3);
        assertThat(Json.num(Json.obj(report, "gc"), "count")).isPositive();
        assertThat(Json.num(Json.obj(report, "failures"), "count")).isZero();
        assertScopedRequestsNamed(report);
    }

    /** The scoped-requests workload: its scopes, its profiled handler, its tracked objects and its leaked connection. */
    private static void assertScopedRequestsNamed(Object report) throws Exception {
        Map<String, Map<String, Object>> scopes = new java.util.HashMap<>();
        for (Map<String, Object> s : Json.list(report, "scopes")) {
            scopes.put((String) s.get("path"), s);
        }
        assertThat(scopes).containsKeys("request", "request/parse", "request/render");
        assertThat(Json.num(scopes.get("request"), "entries")).isEqualTo(600); // 200 requests, 400 tasks
        assertThat(Json.num(scopes.get("request"), "tasks")).isEqualTo(400);
        assertThat(Json.num(scopes.get("request/render"), "entries")).isEqualTo(200);
        assertThat(scopes.get("request/render").get("parentPath")).isEqualTo("request");
        // the render scope allocates the most: 200 pages of 64 KiB, exactly counted
        assertThat(Json.num(scopes.get("request/render"), "allocatedBytes"))
                .isBetween(200L * 64 * 1024, 200L * (64 * 1024 + 64));
        assertThat(Json.num(scopes.get("request/render"), "selfAllocatedBytes"))
                .isGreaterThan(Json.num(scopes.get("request/parse"), "selfAllocatedBytes"));

        // the profiled handler (memscope run --demo, or --functions given): calls exact
        Map<String, Long> calls = new java.util.HashMap<>();
        for (Map<String, Object> f : Json.list(report, "functions")) {
            calls.merge((String) f.get("function"), Json.num(f, "calls"), Long::sum);
        }
        String handler = "io.memscope.demo.RequestHandler.";
        assertThat(calls).containsEntry(handler + "handle", 200L).containsEntry(handler + "parse", 200L)
                .containsEntry(handler + "render", 200L).containsEntry(handler + "audit", 10L);

        Map<String, Map<String, Object>> objects = new java.util.HashMap<>();
        for (Map<String, Object> o : Json.list(report, "trackedObjects")) {
            objects.put((String) o.get("name"), o);
        }
        assertThat(objects.get("upload").get("alive")).isEqualTo(false);
        assertThat(objects.get("sessions").get("alive")).isEqualTo(true);

        Map<String, Object> pool = Json.list(report, "pools").stream()
                .filter(p -> "demo-connections".equals(p.get("pool"))).findFirst().orElseThrow();
        assertThat(Json.num(pool, "borrows")).isEqualTo(10);
        assertThat(Json.num(pool, "returns")).isEqualTo(9);
        assertThat(Json.num(pool, "leaks")).isEqualTo(1);
        List<Map<String, Object>> leaks = Json.list(report, "poolLeaks");
        assertThat(leaks).hasSize(1);
        String borrowedAt = "io.memscope.demo.RequestHandler.audit(RequestHandler.java:"
                + Jvms.lineOf("io/memscope/demo/RequestHandler.java", "the forgotten connection") + ")";
        assertThat(leaks.get(0).get("stack")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                .contains(borrowedAt);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void demoNamesItsThreeProblems(@TempDir Path out) throws Exception {
        int code = Main.execute("run", "--demo", "--out", out.toString());
        assertThat(code).isZero();
        Object report = Jvms.report(out);
        assertDemoProblemsNamed(report);
        // memscope's own API in the application (the tenant cache's accounting) is library code: its allocations
        // are named after the workload's lines that called it, as the JDK's are
        for (String ranking : List.of("topAllocationSites", "topLiveSites")) {
            assertThat(Jvms.sites(report, ranking)).as(ranking)
                    .noneMatch(s -> s.startsWith("io.memscope.") && !s.startsWith("io.memscope.demo."));
        }

        // memscope report builds the same report.json from the recording.
        Path jvmDir;
        try (var s = java.nio.file.Files.list(out)) {
            jvmDir = s.filter(java.nio.file.Files::isDirectory).findFirst().orElseThrow();
        }
        Path again = out.resolve("again.json");
        assertThat(Main.execute("report", jvmDir.toString(), "--json", again.toString())).isZero();
        assertThat(java.nio.file.Files.readString(again))
                .isEqualTo(java.nio.file.Files.readString(jvmDir.resolve("report.json")));
    }

    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void demoOnEachJdkThroughAnArbitraryCommand(String java, @TempDir Path out) throws Exception {
        String demoJar = System.getProperty("memscope.demo.jar");
        // what the demo still holds at its end is measured at a final collection (run --demo does that itself)
        int code = Jvms.memscopeRun(out, List.of("--gc-at-end", "--functions", RunCommand.DEMO_FUNCTIONS),
                List.of(java, RunCommand.DEMO_HEAP, "-cp", demoJar, "io.memscope.demo.DemoMain"));
        assertThat(code).isZero();
        Object report = Jvms.report(out);
        assertDemoProblemsNamed(report);
        String version = (String) Json.obj(report, "metadata").get("javaVersion");
        assertThat(version).startsWith(java.contains("17") ? "17" : System.getProperty("java.specification.version"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shellScriptStartingTwoJvmsGivesTwoReports(@TempDir Path out) throws Exception {
        String demoJar = System.getProperty("memscope.demo.jar");
        String java = Jvms.current();
        String script = java + " -cp " + demoJar + " io.memscope.demo.DemoMain direct-buffer-leak && "
                + java + " -cp " + demoJar + " io.memscope.demo.DemoMain direct-buffer-leak";
        int code = Jvms.memscopeRun(out, List.of("--gc-at-end"), List.of("sh", "-c", script));
        assertThat(code).isZero();
        List<Object> reports = Jvms.reports(out);
        assertThat(reports).hasSize(2);
        for (Object r : reports) {
            assertThat(Json.num(Json.obj(r, "native"), "outstandingBytes")).isEqualTo(32L * 256 * 1024);
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aJvmThatEndsBeforeTheCommandHasItsReportBuiltWhileTheCommandRuns(@TempDir Path out) throws Exception {
        String demoJar = System.getProperty("memscope.demo.jar");
        String java = Jvms.current();
        String jvm = java + " -cp " + demoJar + " io.memscope.demo.DemoMain direct-buffer-leak";
        // the command goes on only once the first JVM's report exists: memscope run built it while the command ran
        String script = jvm + " && i=0; while [ -z \"$(ls " + out + "/*/report.json 2>/dev/null)\" ]; do "
                + "i=$((i+1)); [ $i -gt 900 ] && exit 7; sleep 0.1; done; " + jvm;
        CliRun run = CliRun.run("run", "--out", out.toString(), "--gc-at-end", "--", "sh", "-c", script);
        assertThat(run.exit).as(run.err).isZero();
        assertThat(Jvms.reports(out)).hasSize(2);
        // each summary printed once, after the command, in directory order
        assertThat(run.out.split("  report: ", -1)).hasSize(3);
        List<Path> dirs = Reports.recordingDirs(out);
        assertThat(run.out.indexOf(dirs.get(0).toString())).isLessThan(run.out.indexOf(dirs.get(1).toString()));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void exitCodeOfTheCommandIsReturned(@TempDir Path out) {
        int code = Jvms.memscopeRun(out, List.of(), List.of("sh", "-c", "exit 3"));
        assertThat(code).isEqualTo(3);
    }

    @Test
    void helpListsTheAgentOptions() {
        String[] r = MainTest.run("run", "--help");
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[1]).contains("--demo").contains("--mode").contains("MEMSCOPE_INTERVAL").contains("includeJdk")
                .contains("strict");
    }

    @Test
    void invalidOptionIsRejectedBeforeStarting(@TempDir Path out) {
        String[] r = MainTest.run("run", "--out", out.toString(), "--interval", "lots", "--", "true");
        assertThat(r[0]).isEqualTo("1");
        assertThat(r[2]).contains("interval").contains("lots");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theCommandMayComeWithoutDashDashAndItsOptionsStayItsOwn(@TempDir Path out) throws Exception {
        String[] r = MainTest.run("run", "--out", out.toString(), Jvms.current(), "-version");
        assertThat(r[0]).as(r[2]).isEqualTo("0");
        assertThat(r[2]).as("java -version prints to stderr, memscope's run passes it on").doesNotContain("Unknown");
        assertThat(Reports.recordingDirs(out)).as("java -version ran under the agent").hasSize(1);
    }

    @Test
    void anOptionOfTheCommandBeforeItSaysWhereTheCommandGoes() {
        String[] r = MainTest.run("run", "-version");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("-version").contains("goes after --").contains("memscope run [options] -- ")
                .doesNotContain("Possible solutions: --version");
    }
}
