package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.GuavaSessionsFixture;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The held memory of a program whose growing structure lives in {@code main}'s locals (Guava caches, from Maven
 * Central): the end check, after {@code main} returned, finds it garbage, so what the run held most was found by a
 * marking cycle, not at the end. On JDK 17 G1's Remark has no heap figures (no GarbageCollectorMXBean reports it):
 * the peak, memory really held, must still be a marking cycle's, holding the sessions (choosing by the JVM's heap in
 * use gave the end check, "held at the peak ~500 KiB" for a run that held 60 MiB). G1 on JDK 17 (from JDK 20 the bean
 * {@code G1 Concurrent GC} reports the Remark with heap figures), {@code memscope run} with its defaults.
 * Platform: Linux x86_64 (the JVM's sampler).
 */
class PeakAtMarkingTest {
    private static final String SRC = "memscope/fixtures/GuavaSessionsFixture.java";

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(strings = {"17"})
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void thePeakIsTheMarkingCycleThatHeldTheSessions(String jdk, @org.junit.jupiter.api.io.TempDir Path out)
            throws Exception {
        Path truthFile = out.resolveSibling(out.getFileName() + ".truth");
        int code = Jvms.memscopeRun(out, List.of(), List.of(jdk.equals("17") ? Jvms.JDK17.toString()
                : Jvms.current(), "-Xmx256m", "-XX:+UseG1GC",
                // marking cycles start at a fixed 20% of the heap: many of them, and no full collection
                "-XX:InitiatingHeapOccupancyPercent=20", "-XX:-G1UseAdaptiveIHOP", "-cp",
                Jvms.classPath(GuavaSessionsFixture.class, com.google.common.cache.Cache.class),
                GuavaSessionsFixture.class.getName(), truthFile.toString(), "8000"));
        assertThat(code).isZero();
        long sessionBytes = 0;
        for (String line : Files.readAllLines(truthFile)) {
            if (line.startsWith("sessionBytes=")) {
                sessionBytes = Long.parseLong(line.substring("sessionBytes=".length()));
            }
        }
        Object report = Jvms.report(out);
        Map<String, Object> totals = Json.obj(report, "totals");
        assertThat(Json.num(totals, "wholeHeapCollections")).as("marking cycles while the sessions grew")
                .isGreaterThanOrEqualTo(3);
        String site = "memscope.fixtures.GuavaSessionsFixture.main(GuavaSessionsFixture.java:"
                + Jvms.lineOf(SRC, "SESSION-SITE") + ")";
        // the most any whole-heap collection found held: most of what the loop made (the last marking may come
        // up to a second before the loop's end), never more than it plus the sampling error, at the sessions' site
        Map<String, Object> most = null;
        for (Map<String, Object> b : Json.list(report, "timeline", "buckets")) {
            if (most == null || Json.num(b, "heldBytes") > Json.num(most, "heldBytes")) {
                most = b;
            }
        }
        Map<String, Object> top = Json.list(most, "topSites").get(0);
        assertThat(top.get("site")).as("%s", most).isEqualTo(site);
        assertThat(Json.num(top, "bytes")).as("the sessions held at a marking cycle vs %d bytes at the loop's end: %s",
                sessionBytes, most).isBetween(sessionBytes / 2, sessionBytes * 13 / 10 + (4L << 20));
        // the peak is where the most was held: that marking cycle, its sessions within the estimate's precision
        // (4 standard errors of a Horvitz-Thompson sum of 1 KiB objects: sqrt(bytes * interval)) of the truth
        Map<String, Object> peak = Json.obj(report, "peak");
        assertThat(Json.num(totals, "peakHeldBytes")).as("%s (the sites' rounded figures added up)", peak)
                .isGreaterThanOrEqualTo(Json.num(most, "heldBytes") - 1024);
        assertThat(Json.num(peak, "estimatedBytes")).isEqualTo(Json.num(totals, "peakHeldBytes"));
        assertThat(Jvms.sites(report, "peak", "sites")).first().isEqualTo(site);
        long atPeak = Json.num(Json.list(peak, "sites").get(0), "bytes");
        double precision = 4 * Math.sqrt((double) sessionBytes * 512 * 1024);
        assertThat((double) atPeak).as("the sessions held at the peak (%s at %s ms) vs %d bytes at the loop's end",
                peak.get("gcName"), peak.get("timeMs"), sessionBytes)
                .isBetween(sessionBytes - precision, sessionBytes + precision);
        String summary = Files.readString(Jvms.summaryFile(out));
        assertThat(summary).doesNotContain("found more held than the peak");
        assertThat(Json.num(totals, "heldAtEndBytes")).as("main's caches are garbage at the end check")
                .isLessThan(sessionBytes / 4);
        assertThat(Files.readString(Jvms.summaryFile(out))).doesNotContain("held peak misses");
    }
}
