package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.RssBreakdownFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.objectweb.asm.ClassWriter;

/**
 * The resident set's breakdown adds up, and names what grew (Linux, JDK 25 and 17 when installed), under
 * {@code memscope run} with the resident check every 500 ms: a program that grows, one after the other, 400 threads'
 * stacks (each about 256 KiB deep), metaspace (4,000 generated hidden classes), 256 MiB of direct buffers and a
 * 64 MiB mapped file. At the end the parts (heap, metaspace, code cache, thread stacks, direct, malloc, files) and
 * other add up to RSS, and other is at most a tenth of it; between phases the part that grew most is the one the
 * phase grew; the mapped buffer pool holds the mapped file.
 */
class RssBreakdownIT {
    private static final long MIB = 1L << 20;
    private static final List<String> PARTS = List.of("heapBytes", "metaspaceBytes", "codeCacheBytes",
            "threadStacksBytes", "directBytes", "mallocBytes", "filesBytes");
    private static final Map<String, String> GROWS = new LinkedHashMap<>();

    static {
        GROWS.put("threads", "threadStacksBytes");
        GROWS.put("classes", "metaspaceBytes");
        GROWS.put("direct", "directBytes");
        GROWS.put("mapped", "filesBytes");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void thePartsAddUpToRssAndTheGrowingPartIsNamed(@TempDir Path out) throws Exception {
        assumeThat(Files.isReadable(Path.of("/proc/self/smaps"))).as("Linux: RSS from /proc").isTrue();
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            Files.createDirectories(dir);
            Path times = dir.resolve("times.txt");
            int code = Jvms.memscopeRun(dir.resolve("run"), List.of("--agent-option", "rssDetail=500"),
                    List.of(java, "-Xms64m", "-Xmx256m", "-XX:MaxDirectMemorySize=512m", "-cp",
                            Jvms.classPath(RssBreakdownFixture.class, ClassWriter.class),
                            RssBreakdownFixture.class.getName(), times.toString(), "400", "4000", "256", "64",
                            "3500"));
            assertThat(code).as(java).isZero();
            check(java, Jvms.report(dir.resolve("run")), Jvms.fixtureNumbers(times));
        }
    }

    private static void check(String java, Object report, Map<String, Long> times) {
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(Json.obj(report, "processMemory", "parts")).as(java + ": resident figures")
                .containsEntry("heap", "resident").containsEntry("codeCache", "resident")
                .containsEntry("threadStacks", "resident");
        assertThat(Jvms.metadataCount(meta, "processMemory.rssDetailPasses")).as(java).isGreaterThan(5);
        assertThat(Jvms.metadataCount(meta, "processMemory.rssDetailFailures")).as(java).isZero();
        long start = Long.parseLong(String.valueOf(meta.get("startNanos")));
        List<Map<String, Object>> samples = Json.list(report, "processMemory", "samples");
        // the last sample before the program returned (the capture's end check then frees the buffers)
        Map<String, Object> end = lastBefore(samples, (times.get("exit") - start) / 1e6);
        long rss = Json.num(end, "rssBytes");
        long sum = Json.num(end, "otherBytes");
        StringBuilder figures = new StringBuilder(java + ": rss " + rss / MIB + " MiB");
        for (String p : PARTS) {
            Object v = end.get(p);
            long b = v == null ? 0 : ((Number) v).longValue();
            sum += b;
            figures.append(", ").append(p).append(' ').append(b / MIB);
        }
        figures.append(", other ").append(Json.num(end, "otherBytes") / MIB);
        System.out.println(figures); // the figures docs/agent.md quotes
        assertThat(sum).as(figures + ": the parts and other add up to RSS").isEqualTo(rss);
        assertThat(Json.num(end, "otherBytes")).as(figures + ": other at most a tenth of RSS")
                .isLessThanOrEqualTo(rss / 10);
        assertThat(Json.num(end, "mappedBytes")).as(figures + ": the mapped pool").isEqualTo(64 * MIB);

        List<String> phases = List.copyOf(GROWS.keySet());
        for (int k = 0; k < phases.size(); k++) {
            String phase = phases.get(k);
            double fromMs = (times.get(phase + ".start") - start) / 1e6;
            double toMs = (times.get(k + 1 < phases.size() ? phases.get(k + 1) + ".start" : "exit") - start) / 1e6;
            Map<String, Object> before = lastBefore(samples, fromMs);
            Map<String, Object> after = lastBefore(samples, toMs);
            assertThat(before).as(java + ": a sample before " + phase).isNotNull();
            String grewMost = null;
            long most = Long.MIN_VALUE;
            StringBuilder growth = new StringBuilder(java + ", " + phase + ": growth (MiB)");
            for (String p : PARTS) {
                long g = num(after, p) - num(before, p);
                growth.append(' ').append(p).append('=').append(g / MIB);
                if (g > most) {
                    most = g;
                    grewMost = p;
                }
            }
            long otherGrowth = num(after, "otherBytes") - num(before, "otherBytes");
            growth.append(" other=").append(otherGrowth / MIB);
            System.out.println(growth);
            assertThat(grewMost).as(growth.toString()).isEqualTo(GROWS.get(phase));
            assertThat(otherGrowth).as(growth + ": less growth in other than in the part named")
                    .isLessThan(most);
        }
    }

    private static Map<String, Object> lastBefore(List<Map<String, Object>> samples, double ms) {
        Map<String, Object> last = null;
        for (Map<String, Object> s : samples) {
            if (((Number) s.get("timeMs")).doubleValue() < ms) {
                last = s;
            }
        }
        return last;
    }

    private static long num(Map<String, Object> s, String key) {
        Object v = s.get(key);
        return v == null ? 0 : ((Number) v).longValue();
    }
}
