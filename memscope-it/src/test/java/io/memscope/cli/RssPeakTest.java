package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.RssPeakFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resident set's breakdown at its peak in a short run (Linux, JDK 25 and 17 when installed), under
 * {@code memscope run} with the resident check at its default interval (5 s, longer than the run): a program that
 * grows its heap by 320 MiB and its direct buffers by 128 MiB within about a second, holds them, and lets the buffers
 * go before it ends. At the peak the parts add up to RSS, other is at most a tenth of it (the resident check ran near
 * the peak, asked for by the sampler when RSS grew, and the report took that pass), the growth is in the heap and
 * direct parts, not in other, and the summary says how far from the peak the resident figures were measured.
 */
class RssPeakTest {
    private static final long MIB = 1L << 20;
    private static final int HEAP_MIB = 320;
    private static final int DIRECT_MIB = 128;
    private static final List<String> PARTS = List.of("heapBytes", "metaspaceBytes", "codeCacheBytes",
            "threadStacksBytes", "directBytes", "mallocBytes", "filesBytes");

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void atAShortRunsPeakOtherIsSmallAndTheGrownPartsAreNamed(@TempDir Path out) throws Exception {
        assumeThat(Files.isReadable(Path.of("/proc/self/smaps"))).as("Linux: RSS from /proc").isTrue();
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            Files.createDirectories(dir);
            Path times = dir.resolve("times.txt");
            int code = Jvms.memscopeRun(dir.resolve("run"), List.of(),
                    List.of(java, "-Xms32m", "-Xmx1g", "-XX:MaxDirectMemorySize=512m", "-cp",
                            Jvms.classPath(RssPeakFixture.class), RssPeakFixture.class.getName(), times.toString(),
                            Integer.toString(HEAP_MIB), Integer.toString(DIRECT_MIB), "1000"));
            assertThat(code).as(java).isZero();
            check(java, Jvms.report(dir.resolve("run")), Jvms.fixtureNumbers(times),
                    Files.readString(Jvms.summaryFile(dir.resolve("run"))));
        }
    }

    private static void check(String java, Object report, Map<String, Long> times, String summary) {
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(Json.obj(report, "processMemory", "parts")).as(java + ": resident figures")
                .containsEntry("heap", "resident");
        assertThat(meta.get("processMemory.rssDetailMs")).as(java + ": the default interval").isEqualTo("5000");
        long start = Long.parseLong(String.valueOf(meta.get("startNanos")));
        double growMs = (times.get("grow.start") - start) / 1e6;
        Map<String, Object> peak = Json.obj(report, "processMemory", "peak");
        long rss = Json.num(peak, "rssBytes");
        long sum = Json.num(peak, "otherBytes");
        StringBuilder figures = new StringBuilder(java + ": peak at " + Json.num(peak, "timeMs") + " ms, resident "
                + "figures at " + peak.get("residentAtMs") + " ms; rss " + rss / MIB + " MiB");
        for (String p : PARTS) {
            long b = num(peak, p);
            sum += b;
            figures.append(", ").append(p).append(' ').append(b / MIB);
        }
        figures.append(", other ").append(Json.num(peak, "otherBytes") / MIB).append("; passes ")
                .append(meta.get("processMemory.rssDetailPasses")).append(" (requested ")
                .append(meta.get("processMemory.rssDetailRequestedPasses")).append("), end pass ")
                .append(meta.get("processMemory.rssDetailEndPass"));
        System.out.println(figures);
        double peakMs = ((Number) peak.get("timeMs")).doubleValue();
        double endMs = ((Number) Json.obj(report, "processMemory", "end").get("timeMs")).doubleValue();
        assertThat(peakMs).as(figures + ": the peak is after the growth and before the end (not the end's pass)")
                .isGreaterThan(growMs).isLessThan(endMs);
        assertThat(rss).as(figures.toString()).isGreaterThan((HEAP_MIB + DIRECT_MIB) * MIB);
        assertThat(sum).as(figures + ": the parts and other add up to RSS").isEqualTo(rss);
        assertThat(Json.num(peak, "otherBytes")).as(figures + ": other at most a tenth of RSS")
                .isLessThanOrEqualTo(rss / 10);
        assertThat(peak.get("residentAtMs")).as(figures + ": the resident figures' time").isNotNull();

        // the growth from the last sample before it: in the heap and the direct buffers, not in other
        Map<String, Object> before = null;
        for (Map<String, Object> s : Json.list(report, "processMemory", "samples")) {
            if (((Number) s.get("timeMs")).doubleValue() < growMs) {
                before = s;
            }
        }
        assertThat(before).as(java + ": a sample before the growth").isNotNull();
        long heapGrowth = num(peak, "heapBytes") - num(before, "heapBytes");
        long directGrowth = num(peak, "directBytes") - num(before, "directBytes");
        long otherGrowth = num(peak, "otherBytes") - num(before, "otherBytes");
        String growth = figures + "; growth (MiB): heap " + heapGrowth / MIB + ", direct " + directGrowth / MIB
                + ", other " + otherGrowth / MIB;
        assertThat(heapGrowth).as(growth).isGreaterThanOrEqualTo(HEAP_MIB * MIB * 9 / 10);
        assertThat(directGrowth).as(growth).isGreaterThanOrEqualTo(DIRECT_MIB * MIB);
        assertThat(otherGrowth).as(growth + ": other grew less than a tenth of RSS").isLessThan(rss / 10);
        assertThat(summary).as(java).containsPattern("RSS at its peak: .*; resident figures measured (at the peak|"
                + "\\d+ ms (after|before) the peak)");
    }

    private static long num(Map<String, Object> s, String key) {
        Object v = s.get(key);
        return v == null ? 0 : ((Number) v).longValue();
    }
}
