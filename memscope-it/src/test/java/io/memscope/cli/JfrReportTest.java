package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import memscope.fixtures.JfrFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code memscope report}, {@code diff} and {@code export} on JFR recordings made without memscope: the JDK's flight
 * recorder ({@code settings=profile}) on each JDK installed, and async-profiler 4.1 ({@code alloc,live,nativemem};
 * Linux x86_64). The fixture has a known churn (CHURN) and a known leak (LEAK, and NATIVE_LEAK in malloc'ed memory).
 */
class JfrReportTest {
    private static final String SRC = "memscope/fixtures/JfrFixture.java";

    @SuppressWarnings("unchecked")
    private static List<String> strings(Object list) {
        return (List<String>) list;
    }

    static List<String> javas() {
        return Jvms.javas();
    }

    /** Runs the fixture under {@code java} with {@code recordingOption} (no memscope agent) and returns the file. */
    private static Path record(String java, String recordingOption, Path jfr, String... more) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java, recordingOption));
        cmd.addAll(List.of(more));
        cmd.addAll(List.of("-cp", Jvms.classPath(JfrFixture.class), JfrFixture.class.getName(), "3"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(jfr.resolveSibling("out.txt")
                .toFile()).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the fixture ends").isTrue();
        assertThat(p.exitValue()).as(Files.readString(jfr.resolveSibling("out.txt"))).isZero();
        assertThat(jfr).isNotEmptyFile();
        return jfr;
    }

    private static Path jdkRecording(String java, Path dir) throws Exception {
        Files.createDirectories(dir);
        Path jfr = dir.resolve("app.jfr");
        return record(java, "-XX:StartFlightRecording=settings=profile,path-to-gc-roots=true,dumponexit=true,filename="
                + jfr, jfr, "-XX:NativeMemoryTracking=summary");
    }

    @TempDir
    static Path shared;

    private static Path currentJdkRecording;

    /**
     * The flight recording of the fixture on the build's JDK, made once for the class: the tests that only read it
     * (report and export, diff, truncated and damaged copies) share it instead of recording the same run again.
     */
    private static synchronized Path currentJdkRecording() throws Exception {
        if (currentJdkRecording == null) {
            currentJdkRecording = jdkRecording(Jvms.current(), shared.resolve("current"));
        }
        return currentJdkRecording;
    }

    private static String site(String method, String marker) throws Exception {
        return "memscope.fixtures.JfrFixture." + method + "(Unknown Source:" + Jvms.lineOf(SRC, marker) + ")";
    }

    private static Object report(Path jfr, Path json) throws Exception {
        CliRun r = CliRun.run("report", jfr.toString(), "--json", json.toString());
        assertThat(r.exit).as(r.err).isZero();
        assertThat(r.out).contains("from a JFR recording").contains("not in a JFR recording: ");
        return Json.parse(Files.readString(json));
    }

    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void jdkFlightRecordingGivesTheChurnAndTheLeak(String java, @TempDir Path tmp) throws Exception {
        Path jfr = java.equals(Jvms.current()) ? currentJdkRecording() : jdkRecording(java, tmp.resolve("a"));
        Object r = report(jfr, tmp.resolve("report.json"));

        assertThat(Jvms.sites(r, "topAllocationSites").get(0)).isEqualTo(site("churn", "// CHURN"));
        List<String> held = new ArrayList<>(Jvms.sites(r, "topLiveSites"));
        held.addAll(Jvms.sites(r, "leakSuspects"));
        assertThat(held).as("confirmed held at the fixture's final System.gc()").contains(site("leak", "// LEAK"));
        assertThat(held).doesNotContain(site("churn", "// CHURN"));
        // why held: the old-object samples' reference chains (path-to-gc-roots=true), from the static field LEAKED
        String leak = site("leak", "// LEAK");
        Map<String, Object> leakRow = Json.list(r, "topLiveSites").stream()
                .filter(e -> leak.equals(e.get("site"))).findFirst().orElseThrow();
        assertThat(leakRow.get("retainedBy").toString()).contains("LEAKED");
        Map<String, Object> source = Json.obj(r, "source");
        assertThat(source.get("kind")).isEqualTo("jfr");
        assertThat((String) source.get("producer")).startsWith("JDK flight recorder");
        assertThat(strings(source.get("limitations"))).anyMatch(l -> l.startsWith("held bytes not estimated"))
                .anyMatch(l -> l.startsWith("no native memory")).anyMatch(l -> l.startsWith("no scopes"));
        assertThat(((Number) Json.obj(r, "gc").get("count")).longValue()).isPositive();
        if (!java.equals(Jvms.JDK17.toString())) {
            // JDK 21 and later: jdk.ResidentSetSize and NMT's jdk.NativeMemoryUsage
            assertThat(Json.obj(r, "processMemory").get("nmt")).as("NMT's categories").isNotNull();
            assertThat(Json.list(r, "processMemory", "samples")).isNotEmpty();
        }

        Path pprof = tmp.resolve("app.pb.gz");
        CliRun p = CliRun.run("export", jfr.toString(), "--format", "pprof", "-o", pprof.toString());
        assertThat(p.exit).as(p.err).isZero();
        assertThat(Files.readAllBytes(pprof)).startsWith((byte) 0x1f, (byte) 0x8b);
        CliRun folded = CliRun.run("export", jfr.toString(), "--format", "collapsed");
        assertThat(folded.exit).as(folded.err).isZero();
        assertThat(folded.out).contains(site("churn", "// CHURN") + ";long[] ");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void diffOfTwoJfrRecordings(@TempDir Path tmp) throws Exception {
        // two runs of the fixture: the shared one and one of its own
        Path a = currentJdkRecording();
        Path b = jdkRecording(Jvms.current(), tmp.resolve("b"));
        CliRun d = CliRun.run("diff", a.toString(), b.toString(), "--json");
        assertThat(d.exit).as(d.err).isZero();
        assertThat(Json.list(Json.parse(d.out), "sites")).extracting(s -> s.get("site"))
                .contains(site("churn", "// CHURN"));
        // the noise band of JFR weights: the recording's size-biased mean weight, stated with its assumptions
        Map<String, Object> sig = Json.obj(Json.parse(d.out), "significance");
        assertThat(sig.get("model").toString()).startsWith("JFR run: ").contains("size-biased mean weight")
                .containsPattern("base [0-9]+ B, new [0-9]+ B");
        CliRun text = CliRun.run("diff", a.toString(), b.toString());
        assertThat(text.exit).as(text.err).isZero();
        assertThat(text.out).contains("noise model: JFR run: ");
        CliRun live = CliRun.run("diff", a.toString(), b.toString(), "--metric", "live");
        assertThat(live.exit).as(live.err).isZero();
        assertThat(live.out).contains("held figures are the sizes of the old objects JFR sampled");
        // dump prints memscope recordings only: a JFR recording is a clear error naming the tools that read it
        CliRun dump = CliRun.run("dump", a.toString());
        assertThat(dump.exit).isNotZero();
        assertThat(dump.err).contains("is a JFR recording").contains("jfr print").doesNotContain("\tat ");
    }

    /**
     * Records the fixture under async-profiler (linux-x64, its library from the Maven Central jar, copied into
     * {@code tmp}) with the given options before {@code file=}.
     *
     * @return the JFR recording
     */
    private static Path asyncProfilerRecording(Path tmp, String options) throws Exception {
        assumeTrue(System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64"),
                "async-profiler's library here is linux-x64");
        Path lib = tmp.resolve("libasyncProfiler.so");
        try (ZipFile z = new ZipFile(Jvms.classPath(one.profiler.AsyncProfiler.class));
             InputStream in = z.getInputStream(z.getEntry("linux-x64/libasyncProfiler.so"))) {
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
        }
        Path jfr = tmp.resolve("ap.jfr");
        return record(Jvms.current(), "-agentpath:" + lib + "=" + options + ",file=" + jfr, jfr);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void asyncProfilerRecordingGivesTheChurnTheLeakAndMalloc(@TempDir Path tmp) throws Exception {
        Path jfr = asyncProfilerRecording(tmp, "start,alloc,live,nativemem");
        Object r = report(jfr, tmp.resolve("report.json"));

        assertThat(Jvms.sites(r, "topAllocationSites").get(0)).isEqualTo(site("churn", "// CHURN"));
        assertThat(Json.obj(r, "source").get("producer")).isEqualTo("async-profiler");
        // live objects are not proven reachable (no collection in the file): the leak is the most unconfirmed site
        Map<String, Object> mostUnconfirmed = Json.list(r, "topAllocationSites").stream()
                .max((x, y) -> Long.compare(((Number) x.get("unconfirmedBytes")).longValue(),
                        ((Number) y.get("unconfirmedBytes")).longValue())).orElseThrow();
        assertThat(mostUnconfirmed.get("site")).isEqualTo(site("leak", "// LEAK"));
        assertThat(strings(Json.obj(r, "source").get("limitations")))
                .anyMatch(l -> l.startsWith("async-profiler's live objects"));
        // malloc'ed memory (direct buffers) named by its first application frame, a growing native leak
        String nativeLeak = site("nativeLeak", "// NATIVE_LEAK");
        Map<String, Object> malloc = Json.obj(r, "native", "malloc");
        assertThat(Jvms.sites(r, "native", "leaks")).as("%s", malloc).contains(nativeLeak);
        assertThat(Jvms.sites(r, "native", "leakSuspects")).as("%s", malloc).contains(nativeLeak);
        // bare nativemem records every malloc call: each counts once (a 24-byte block weighed as if sampled at
        // 512 KiB made 2.5 GiB outstanding of a program's few MiB). The fixture's 1024 buffers of 4 KiB are 4 MiB,
        // with the JDK's own small blocks for each (its Cleaner, Deallocator) at the same site
        assertThat(malloc.get("sampling")).isEqualTo("counter");
        assertThat(Json.num(malloc, "intervalBytes")).isZero();
        Map<String, Object> leakRow = Json.list(r, "native", "leaks").stream()
                .filter(e -> nativeLeak.equals(e.get("site"))).findFirst().orElseThrow();
        assertThat(Json.num(leakRow, "liveBytes")).isBetween(4L << 20, 5L << 20);
        assertThat(Json.num(Json.obj(r, "native"), "outstandingBytes")).as("%s", malloc).isLessThan(64L << 20);
        assertThat(strings(Json.obj(r, "source").get("limitations")))
                .anyMatch(l -> l.startsWith("native figures count each recorded malloc call once"))
                .noneMatch(l -> l.contains("found no recorded malloc"));
    }

    /**
     * async-profiler 4.1 does not write its nativemem interval: the report counts each recorded call once and says
     * that it did, and that the frees tell of an interval (almost none finds its malloc).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void asyncProfilerMallocAtAnIntervalItDidNotRecordIsStatedAsAnUnderEstimate(@TempDir Path tmp) throws Exception {
        Path jfr = asyncProfilerRecording(tmp, "start,nativemem=65536");
        Object r = report(jfr, tmp.resolve("report.json"));
        assertThat(strings(Json.obj(r, "source").get("limitations")))
                .anyMatch(l -> l.startsWith("native figures count each recorded malloc call once")
                        && l.contains("frees found no recorded malloc") && l.contains("under-estimates"));
        CliRun text = CliRun.run("report", jfr.toString());
        assertThat(text.out).contains("malloc (async-profiler's nativemem: every call recorded, ");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aTruncatedOrForeignJfrFileIsAClearError(@TempDir Path tmp) throws Exception {
        Path jfr = currentJdkRecording();
        byte[] all = Files.readAllBytes(jfr);
        Path cut = tmp.resolve("cut.jfr");
        Files.write(cut, java.util.Arrays.copyOf(all, all.length / 2));
        CliRun r = CliRun.run("report", cut.toString());
        assertThat(r.exit).isEqualTo(1);
        assertThat(r.err).contains("not a readable JFR recording").contains("truncated").doesNotContain("\tat ");
        Path foreign = tmp.resolve("foreign.jfr");
        Files.writeString(foreign, "not a recording at all");
        CliRun f = CliRun.run("report", foreign.toString());
        assertThat(f.exit).isEqualTo(1);
        assertThat(f.err).contains("not a JFR recording").doesNotContain("\tat ");
        byte[] damaged = all.clone();
        for (int i = 200; i < damaged.length - 200; i += 97) {
            damaged[i] ^= 0x5a;
        }
        Path bad = tmp.resolve("damaged.jfr");
        Files.write(bad, damaged);
        CliRun d = CliRun.run("report", bad.toString());
        assertThat(d.err).doesNotContain("\tat ");
        if (d.exit != 0) {
            assertThat(d.err).contains("JFR recording");
        }
    }
}
