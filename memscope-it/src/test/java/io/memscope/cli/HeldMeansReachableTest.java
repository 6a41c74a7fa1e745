package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.fixtures.BuildThenCloseFixture;
import memscope.fixtures.CacheAndLeakFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * "Held" means reachable, through {@code memscope run} on real JVMs with memscope's default options: every collection
 * says what it examined; a bounded LRU cache whose entries are promoted and then evicted (old-generation garbage a young
 * collection never frees) beside a real leak: the leak is the only suspect, its held and allocated bytes within 20% of
 * the truth, the cache's held bytes within 30% of its size; a structure built, used and dropped without an explicit GC
 * is not a suspect. Each collector on the JDK that has it: G1, Parallel and ZGC on JDK 17; generational ZGC on JDK 25.
 * Platform: Linux x86_64 (the JVM's sampler).
 */
class HeldMeansReachableTest {
    private static final String SRC = "memscope/fixtures/CacheAndLeakFixture.java";

    private static String site(String marker) throws Exception {
        return "memscope.fixtures.CacheAndLeakFixture.main(CacheAndLeakFixture.java:" + Jvms.lineOf(SRC, marker) + ")";
    }

    private static String java(String jdk) {
        return jdk.equals("17") ? Jvms.JDK17.toString() : Jvms.current();
    }

    private static Map<String, Long> truth(Path file) throws Exception {
        Map<String, Long> m = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            int eq = line.indexOf('=');
            m.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
        }
        return m;
    }

    private static Map<String, Object> siteOf(Object report, String list, String site, String type) {
        for (Map<String, Object> e : Json.list(report, list)) {
            if (site.equals(e.get("site")) && type.equals(e.get("type"))) {
                return e;
            }
        }
        throw new AssertionError(site + " [" + type + "] not in " + list + ": " + Json.list(report, list));
    }

    /** @return what a failure of the end check needs to be understood: the GC log's counters and the last collections */
    private static String endDiagnosis(Object report) {
        Map<String, Object> meta = Json.obj(report, "metadata");
        Map<String, Object> gcMeta = new java.util.TreeMap<>();
        meta.forEach((k, v) -> {
            if (k.startsWith("gc") || k.startsWith("endCheck") || k.startsWith("collections")) {
                gcMeta.put(k, v);
            }
        });
        List<Map<String, Object>> gcs = Json.list(report, "gc", "collections");
        return gcMeta + " last collections " + gcs.subList(Math.max(0, gcs.size() - 6), gcs.size());
    }

    @ParameterizedTest(name = "{0} on JDK {1}")
    @CsvSource({"G1,17,64m", "Parallel,17,48m", "Z,17,64m", "Z,25,64m"})
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void theLeakIsTheOnlySuspectAndTheCacheIsHeldAtItsSize(String gc, String jdk, String heap, @TempDir Path out)
            throws Exception {
        Path truthFile = out.resolveSibling(out.getFileName() + ".truth");
        int code = Jvms.memscopeRun(out, List.of("--interval", "32k"), List.of(java(jdk), "-Xmx" + heap,
                "-XX:+Use" + gc + "GC", "-cp", Jvms.classPath(CacheAndLeakFixture.class),
                CacheAndLeakFixture.class.getName(), truthFile.toString(), "10000"));
        assertThat(code).isZero();
        Map<String, Long> truth = truth(truthFile);
        Object report = Jvms.report(out);

        // every collection says what it examined; collections of the whole heap ran while the program ran
        List<Map<String, Object>> gcs = Json.list(report, "gc", "collections");
        assertThat(gcs).allSatisfy(c -> assertThat(c.get("examined")).as("%s", c)
                .isIn("young", "whole-heap", "unknown"));
        assertThat(gcs).filteredOn(c -> "unknown".equals(c.get("examined")))
                .allSatisfy(c -> assertThat((String) c.get("name")).as("only pauses inside cycles, pauses no "
                        + "bean counted, and generational ZGC's first major cycles (fewer than 16 young collections "
                        + "before them: they judged no sampled object) are unknown")
                        .matches(".*Pauses|JVM pause|ZGC Major Cycles"));
        Map<String, Object> totals = Json.obj(report, "totals");
        assertThat(Json.num(totals, "wholeHeapCollections")).isGreaterThanOrEqualTo(3);
        assertThat(Json.obj(report, "metadata").get("endCheck")).isEqualTo("gc");
        // after the end check, the capture waited for the Reference Handler with the JDK's own wait (not a guess)
        assertThat(Json.obj(report, "metadata").get("referenceProcessing")).isEqualTo("jdk");
        assertThat(Json.num(totals, "unconfirmedAtEndBytes")).as("the end check confirms what is still there: %s",
                endDiagnosis(report)).isLessThan(1 << 20);
        Map<String, Object> heapCheck = Json.obj(report, "heapCheck");
        assertThat(Json.num(heapCheck, "heldExceeded")).as("held never above the JVM's heap: %s", heapCheck)
                .isZero();
        if (gc.equals("Z") && jdk.equals("25")) {
            // generational ZGC's young collections keep the sampled objects (memscope's weak references are roots
            // they do not process) until they are old: sampled garbage stays unconfirmed long after it died, and
            // the unconfirmed estimate may exceed the heap; then the summary says so
            if (heapCheck.get("consistent").equals(false)) {
                assertThat(Files.readString(Jvms.summaryFile(out))).contains("! contradiction: memscope's estimate")
                        .contains("generational ZGC's young collections keep the objects memscope samples")
                        .contains("held figures stayed within the heap");
            }
        } else {
            assertThat(heapCheck.get("consistent")).as("%s", heapCheck).isEqualTo(true);
        }

        String leak = site("LEAK-SITE");
        String cache = site("CACHE-SITE");
        assertThat(Jvms.sites(report, "leakSuspects")).as("the only suspect").containsExactly(leak);
        Map<String, Object> leakSite = siteOf(report, "leakSuspects", leak, "byte[]");
        long leakBytes = truth.get("leakBytes");
        assertThat((double) Json.num(leakSite, "liveBytes")).as("the leak held")
                .isCloseTo(leakBytes, within(leakBytes * 0.2));
        assertThat((double) Json.num(leakSite, "allocatedBytes")).as("the leak allocated")
                .isCloseTo(leakBytes, within(leakBytes * 0.2));
        Map<String, Object> growth = Json.obj(leakSite, "growth");
        assertThat(growth.get("significant")).isEqualTo(true);

        long cacheBytes = truth.get("cacheValueBytes");
        Map<String, Object> cacheSite = siteOf(report, "topLiveSites", cache, "byte[]");
        assertThat((double) Json.num(cacheSite, "liveBytes")).as("the cache's values held")
                .isCloseTo(cacheBytes, within(cacheBytes * 0.3));
        assertThat(Json.num(cacheSite, "allocatedBytes")).as("the cache turned over")
                .isGreaterThan(3 * cacheBytes);
        // held at the leak rule's reference collections is what was reachable at their snapshots: the whole cache,
        // although its entries turn over in well under a second (an upper bound there, never a fraction of it)
        Map<String, Object> cacheGrowth = Json.obj(cacheSite, "growth");
        for (String reference : List.of("firstBytes", "secondBytes", "endBytes")) {
            assertThat((double) Json.num(cacheGrowth, reference)).as("the cache at %s: %s", reference, cacheGrowth)
                    .isGreaterThan(cacheBytes * 0.7);
        }
        assertThat(Files.readString(Jvms.summaryFile(out))).contains("Leak suspects (held at whole-heap collections")
                .contains(leak);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"G1", "Parallel"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aStructureBuiltUsedAndDroppedIsNotASuspect(String gc, @TempDir Path out) throws Exception {
        int code = Jvms.memscopeRun(out, List.of("--interval", "64k"), List.of(Jvms.JDK17.toString(), "-Xmx64m",
                "-XX:+Use" + gc + "GC", "-cp", Jvms.classPath(BuildThenCloseFixture.class),
                BuildThenCloseFixture.class.getName(), "6000"));
        assertThat(code).isZero();
        Object report = Jvms.report(out);
        assertThat(Json.list(report, "leakSuspects")).isEmpty();
        String index = "memscope.fixtures.BuildThenCloseFixture.main(BuildThenCloseFixture.java:"
                + Jvms.lineOf("memscope/fixtures/BuildThenCloseFixture.java", "INDEX-SITE") + ")";
        assertThat(Json.list(report, "topLiveSites")).noneMatch(e -> index.equals(e.get("site"))
                && "int[]".equals(e.get("type")));
        Map<String, Object> temporary = siteOf(report, "temporaries", index, "int[]");
        assertThat(Json.num(temporary, "liveBytes")).isZero();
        assertThat(Json.num(Json.obj(report, "totals"), "unconfirmedAtEndBytes")).isLessThan(1 << 20);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void withTheEndCheckOffWhatNoWholeHeapCollectionJudgedIsUnconfirmed(@TempDir Path out) throws Exception {
        // Parallel, a small young generation in a large heap: the structure is promoted while it is built, and the old
        // generation is never collected
        int code = Jvms.memscopeRun(out, List.of("--interval", "64k", "--end-check", "off"),
                List.of(Jvms.JDK17.toString(), "-Xmx512m", "-Xmn16m", "-XX:+UseParallelGC", "-cp",
                        Jvms.classPath(BuildThenCloseFixture.class), BuildThenCloseFixture.class.getName(), "3000"));
        assertThat(code).isZero();
        Object report = Jvms.report(out);
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(meta.get("endCheck")).isEqualTo("off");
        Map<String, Object> totals = Json.obj(report, "totals");
        assertThat(Json.num(totals, "wholeHeapCollections")).isZero();
        assertThat(Json.num(totals, "heldAtEndBytes")).as("nothing confirmed").isZero();
        assertThat(Json.num(totals, "unconfirmedAtEndBytes")).as("the dropped structure, promoted: unconfirmed")
                .isGreaterThan(4 << 20);
        assertThat(Json.obj(report, "peak")).isNull();
        assertThat(Json.list(report, "leakSuspects")).isEmpty();
        assertThat(Files.readString(Jvms.summaryFile(out))).contains("more at the end is unconfirmed")
                .contains("the end check was off");
    }

    /**
     * What each collector's collections examined, as recorded: its young collections young, its full collections and
     * its whole-heap cycles whole-heap, on the JDKs installed.
     */
    @ParameterizedTest(name = "{0} on JDK {1}")
    @CsvSource({"G1,17,G1 Young Generation,G1 Old Generation", "G1,25,G1 Young Generation,G1 Old Generation",
        "Parallel,17,PS Scavenge,PS MarkSweep", "Serial,25,Copy,MarkSweepCompact", "Z,17,,ZGC Cycles",
        "Z,25,ZGC Minor Cycles,ZGC Major Cycles", "Shenandoah,17,,Shenandoah Cycles"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyCollectionSaysWhatItExamined(String gc, String jdk, String young, String whole, @TempDir Path out)
            throws Exception {
        Path truthFile = out.resolveSibling(out.getFileName() + ".truth");
        int code = Jvms.memscopeRun(out, List.of(), List.of(java(jdk), "-Xmx48m", "-XX:+Use" + gc + "GC", "-cp",
                Jvms.classPath(CacheAndLeakFixture.class), CacheAndLeakFixture.class.getName(), truthFile.toString(),
                "3000"));
        assertThat(code).isZero();
        List<Map<String, Object>> gcs = Json.list(Jvms.report(out), "gc", "collections");
        Map<String, List<String>> byName = new HashMap<>();
        for (Map<String, Object> c : gcs) {
            byName.computeIfAbsent((String) c.get("name"), k -> new ArrayList<>()).add((String) c.get("examined"));
        }
        if (young != null) {
            assertThat(byName.get(young)).as("%s", byName).isNotEmpty().containsOnly("young");
        }
        if (whole.equals("ZGC Major Cycles")) {
            // a major cycle judges sampled objects only once 16 young collections ran before it (docs/agent.md)
            assertThat(byName.get(whole)).as("%s", byName).contains("whole-heap").isSubsetOf("whole-heap", "unknown");
        } else {
            assertThat(byName.get(whole)).as("%s", byName).isNotEmpty().containsOnly("whole-heap");
        }
        for (Map.Entry<String, List<String>> e : byName.entrySet()) {
            if (e.getKey().endsWith("Pauses") || e.getKey().equals("JVM pause")) {
                // but the end check's pause when its concurrent cycle's notification had not come yet: it then stands
                // for the check's whole-heap collection. It is the last pause recorded when the check ended, which
                // may be followed by its cycle's later pauses (ZGC: 3 a cycle, Shenandoah: 4) recorded after
                List<String> v = e.getValue();
                int tail = Math.min(v.size(), 4);
                assertThat(v.subList(0, v.size() - tail)).as("%s", byName).isSubsetOf("unknown");
                assertThat(v.subList(v.size() - tail, v.size())).as("%s", byName).isSubsetOf("unknown", "whole-heap")
                        .filteredOn("whole-heap"::equals).hasSizeLessThanOrEqualTo(1);
            } else if (e.getKey().equals("G1 Remark")) {
                assertThat(e.getValue()).as("G1's Remark pauses that freed what they found unreachable")
                        .containsOnly("whole-heap");
            } else if (e.getKey().equals("G1 Concurrent GC")) {
                assertThat(e.getValue()).as("Remark and Cleanup: whole heap when they freed something")
                        .isSubsetOf("whole-heap", "unknown");
            }
        }
        assertThat(gcs).filteredOn(c -> !(Boolean) c.get("pause") && "whole-heap".equals(c.get("examined")))
                .allSatisfy(c ->
                assertThat(Json.num(c, "verdictNanos")).as("a cycle's verdict holds at its end: %s", c)
                        .isGreaterThan(Json.num(c, "startNanos")));
        try (Stream<Path> dirs = Files.list(out)) {
            Path recording = dirs.filter(Files::isDirectory).findFirst().orElseThrow().resolve("recording.msrec");
            assertThat(io.memscope.recording.RecordingReader.read(recording).header().minorVersion())
                    .isGreaterThanOrEqualTo(4);
        }
    }
}
