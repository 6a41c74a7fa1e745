package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.DirectGrowthFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process's memory over time, end to end under {@code memscope run} (Linux: RSS comes from
 * {@code /proc/self/status}): a program that grows its resident set by a known amount of direct buffers has samples
 * at about the interval asked for, an RSS at least its committed heap (pre-touched, so resident) at every sample, and
 * the growth in the direct part as the JVM's own buffer pool counter saw it, and in RSS; other parts do not take it.
 */
class ProcessMemorySamplesTest {
    private static final int COUNT = 24;
    private static final int MIB = 4;
    private static final long GROWTH = (long) COUNT * MIB << 20;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void directBufferGrowthIsSampledInTheDirectPartAndInRss(@TempDir Path out) throws Exception {
        assumeThat(Files.isReadable(Path.of("/proc/self/status"))).as("Linux: RSS from /proc").isTrue();
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            Path counters = dir.resolve("counters.txt");
            Files.createDirectories(dir);
            int code = Jvms.memscopeRun(dir.resolve("run"), List.of("--process-memory-interval", "20"),
                    List.of(java, "-Xms64m", "-Xmx64m", "-XX:+AlwaysPreTouch", "-XX:MaxDirectMemorySize=512m", "-cp",
                            Jvms.classPath(DirectGrowthFixture.class), DirectGrowthFixture.class.getName(),
                            counters.toString(), Integer.toString(COUNT), Integer.toString(MIB)));
            assertThat(code).as(java).isZero();
            check(java, Jvms.report(dir.resolve("run")), Jvms.fixtureNumbers(counters),
                    Files.readString(Jvms.summaryFile(dir.resolve("run"))));
        }
    }

    private static void check(String java, Object report, Map<String, Long> jvm, String summary) {
        Map<String, Object> pm = Json.obj(report, "processMemory");
        assertThat(Json.num(pm, "intervalMs")).as(java).isEqualTo(20);
        List<Map<String, Object>> samples = Json.list(report, "processMemory", "samples");
        assertThat(samples).as(java).hasSizeGreaterThan(20);
        // At the interval asked for: the median gap between consecutive samples' times (a loaded machine delays some)
        List<Double> gaps = new ArrayList<>();
        for (int i = 1; i < samples.size(); i++) {
            gaps.add(time(samples.get(i)) - time(samples.get(i - 1)));
        }
        gaps.sort(Double::compare);
        assertThat(gaps.get(gaps.size() / 2)).as(java + ": median gap, ms").isBetween(18.0, 40.0);
        for (Map<String, Object> s : samples) {
            long rss = Json.num(s, "rssBytes");
            assertThat(rss).as(java + " at " + time(s)).isGreaterThanOrEqualTo(Json.num(s, "heapCommittedBytes"));
            long named = Json.num(s, "heapBytes") + Json.num(s, "metaspaceBytes")
                    + Json.num(s, "codeCacheBytes") + Json.num(s, "threadStacksBytes")
                    + Json.num(s, "directBytes") + Json.num(s, "mallocBytes") + Json.num(s, "filesBytes");
            assertThat(Json.num(s, "otherBytes")).as(java + ": other is RSS less the parts")
                    .isEqualTo(Math.max(0, rss - named));
        }
        long start = Long.parseLong(String.valueOf(Json.obj(report, "metadata").get("startNanos")));
        double beforeMs = (jvm.get("beforeNanos") - start) / 1e6;
        double afterMs = (jvm.get("afterNanos") - start) / 1e6;
        Map<String, Object> before = null;
        Map<String, Object> after = null;
        for (Map<String, Object> s : samples) {
            if (time(s) < beforeMs) {
                before = s;
            } else if (time(s) > afterMs && after == null) {
                after = s;
            }
        }
        assertThat(before).as(java + ": a sample before the growth").isNotNull();
        assertThat(after).as(java + ": a sample after the growth").isNotNull();
        long jvmGrowth = jvm.get("directAfter") - jvm.get("directBefore");
        assertThat(jvmGrowth).as("the JVM's own direct pool counter").isEqualTo(GROWTH);
        long directGrowth = Json.num(after, "directBytes") - Json.num(before, "directBytes");
        // within 64 KiB: the JDK's temporary direct buffers for file writes (the fixture's own) come and go
        assertThat(directGrowth).as(java + ": the direct part grew as the JVM counted")
                .isBetween(jvmGrowth - (64 << 10), jvmGrowth + (64 << 10));
        long rssGrowth = Json.num(after, "rssBytes") - Json.num(before, "rssBytes");
        assertThat(rssGrowth).as(java + ": RSS grew by the buffers (they are zeroed, so resident)")
                .isBetween(jvmGrowth * 9 / 10, jvmGrowth + (32L << 20));
        long otherGrowth = Json.num(after, "otherBytes") - Json.num(before, "otherBytes");
        assertThat(Math.abs(otherGrowth)).as(java + ": the growth is named, not other").isLessThan(jvmGrowth / 10);
        // malloc is glibc's figure (the JVM's own malloc'd memory) less the direct buffers, which glibc counts too
        long mallocGrowth = Json.num(after, "mallocBytes") - Json.num(before, "mallocBytes");
        assertThat(Math.abs(mallocGrowth)).as(java + ": direct buffers are not counted twice").isLessThan(jvmGrowth / 10);
        assertThat(Json.obj(report, "processMemory", "parts")).containsEntry("malloc", "glibc");
        Map<String, Object> peak = Json.obj(report, "processMemory", "peak");
        assertThat(Json.num(peak, "rssBytes")).isGreaterThanOrEqualTo(Json.num(after, "rssBytes"));
        assertThat(Json.num(peak, "heapCommittedBytes")).as(java + ": the JVM's committed heap")
                .isEqualTo(jvm.get("heapCommitted"));
        assertThat(Json.obj(report, "processMemory", "end")).isNotNull();
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(Jvms.metadataCount(meta, "processMemory.samples")).isGreaterThanOrEqualTo(samples.size());
        assertThat(Jvms.metadataCount(meta, "processMemory.failures")).isZero();
        assertThat(Jvms.metadataCount(meta, "processMemory.cpuNanos")).isPositive();
        // the heap is pre-touched: its resident bytes are its committed ones
        assertThat(summary).as(java).containsPattern("RSS at its peak: [0-9.]+ MiB at [0-9.]+ s, of which heap "
                + "(resident|committed) 6[0-4]\\.[0-9] MiB, metaspace .*, direct 96.0 MiB");
        assertThat(summary).as(java).containsPattern("RSS at its peak: .*, threads [0-9.]+ [KM]iB \\([0-9]+ threads");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void withNativeMemoryTrackingTheThreadStacksAndCategoriesAreNmts(@TempDir Path out) throws Exception {
        assumeThat(Files.isReadable(Path.of("/proc/self/status"))).as("Linux: RSS from /proc").isTrue();
        Path counters = out.resolve("counters.txt");
        int code = Jvms.memscopeRun(out.resolve("run"), List.of("--agent-option", "rssDetail=0"),
                List.of(Jvms.current(), "-Xms64m", "-Xmx64m", "-XX:NativeMemoryTracking=summary", "-cp",
                        Jvms.classPath(DirectGrowthFixture.class), DirectGrowthFixture.class.getName(),
                        counters.toString(), "4", "1"));
        assertThat(code).isZero();
        Object report = Jvms.report(out.resolve("run"));
        Map<String, Object> pm = Json.obj(report, "processMemory");
        assertThat(Json.num(pm, "intervalMs")).as("the default interval").isEqualTo(100);
        assertThat(pm.get("threadStacks")).isEqualTo("nmt");
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(meta.get("processMemory.nmt")).isEqualTo("summary");
        assertThat(Jvms.metadataCount(meta, "processMemory.nmtSamples")).isGreaterThanOrEqualTo(2);
        assertThat(Jvms.metadataCount(meta, "processMemory.nmtFailures")).isZero();
        Map<String, Long> categories = new HashMap<>();
        for (Map<String, Object> c : Json.list(report, "processMemory", "nmt", "categories")) {
            categories.put((String) c.get("name"), Json.num(c, "committedBytes"));
        }
        assertThat(categories).containsKeys("Java Heap", "Class", "Thread", "Thread.stack", "Code", "GC");
        Map<String, Object> end = Json.obj(report, "processMemory", "end");
        long heap = Json.num(end, "heapCommittedBytes");
        assertThat((double) categories.get("Java Heap")).as("NMT's Java Heap against the JVM's committed heap")
                .isBetween(heap * 0.99, heap * 1.01);
        assertThat(Json.num(end, "threadStacksBytes")).as("NMT's stacks, not an estimate")
                .isPositive().isLessThan(Json.num(end, "threads") * (1L << 20));
        assertThat(Files.readString(Jvms.summaryFile(out.resolve("run")))).containsPattern("threads [0-9.]+ [KM]iB "
                + "\\([0-9]+ threads, NMT\\)");
    }

    private static double time(Map<String, Object> s) {
        return ((Number) s.get("timeMs")).doubleValue();
    }
}
