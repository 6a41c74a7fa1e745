package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.PeakFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Held memory and its peak on a real JVM: a large structure built at one site while garbage churns at another,
 * dropped, then a smaller one held. The peak is the large structure's, the garbage is not held there, and the
 * estimate agrees with the JVM's own heap after GC.
 */
class PeakTest {
    private static final String SRC = "memscope/fixtures/PeakFixture.java";

    private static String site(String marker) throws Exception {
        return "memscope.fixtures.PeakFixture." + (marker.equals("GARBAGE-SITE") ? "churn" : "main")
                + "(PeakFixture.java:" + Jvms.lineOf(SRC, marker) + ")";
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void thePeakIsAttributedToTheLargeStructureAndNotToGarbage(@TempDir Path out) throws Exception {
        // A young generation of 512 MiB: collections some hundred milliseconds apart, so that the agent observes
        // each collected sample before the next collection starts even on a loaded machine (the attribution rule's
        // precision, GcTimeline).
        int code = Jvms.memscopeRun(out, List.of("--interval", "128k"), List.of(Jvms.current(), "-Xmx1g",
                "-Xmn512m", "-XX:+UseG1GC", "-cp", Jvms.classPath(PeakFixture.class), PeakFixture.class.getName(), "160", "40"));
        assertThat(code).isZero();
        Object report = Jvms.report(out);
        Map<String, Object> peak = Json.obj(report, "peak");
        List<Map<String, Object>> holders = Json.list(report, "peak", "sites");
        String big = site("BIG-SITE");
        assertThat(holders.get(0).get("site")).as("largest holder at the peak: %s", holders).isEqualTo(big);
        long bigBytes = 160L << 20;
        assertThat((double) Json.num(holders.get(0), "bytes")).isCloseTo(bigBytes, within(bigBytes * 0.2));
        String garbage = site("GARBAGE-SITE");
        long garbageAtPeak = holders.stream().filter(h -> garbage.equals(h.get("site")))
                .mapToLong(h -> Json.num(h, "bytes")).sum();
        assertThat(garbageAtPeak).as("garbage held at the peak").isLessThan(bigBytes / 20);
        assertThat(holders.stream().map(h -> h.get("site")).toList()).doesNotContain(site("SMALL-SITE"));

        Map<String, Object> totals = Json.obj(report, "totals");
        long peakLive = Json.num(totals, "peakHeldBytes");
        assertThat(peakLive).isEqualTo(Json.num(peak, "estimatedBytes"));
        // the peak is the whole-heap collection after which the JVM had the most heap in use: only such a collection
        // says what is held (a young collection's figure also counts old garbage it did not examine)
        long jvmPeak = Json.list(report, "gc", "collections").stream()
                .filter(c -> "whole-heap".equals(c.get("examined")))
                .mapToLong(c -> Json.num(c, "heapUsedAfterBytes")).max().orElseThrow();
        assertThat(Json.num(peak, "heapUsedAfterGcBytes")).isEqualTo(jvmPeak)
                .isLessThanOrEqualTo(Json.num(Json.obj(report, "gc"), "maxHeapAfterGcBytes"));
        assertThat((double) peakLive).as("the JVM's own peak heap after GC: %d", jvmPeak)
                .isCloseTo(jvmPeak, within(jvmPeak * 0.3));

        long smallBytes = 40L << 20;
        long liveAtEnd = Json.num(totals, "heldAtEndBytes");
        assertThat((double) liveAtEnd).isCloseTo(smallBytes, within(smallBytes * 0.3));
        for (Map<String, Object> e : Json.list(report, "topLiveSites")) {
            if (site("SMALL-SITE").equals(e.get("site"))) {
                assertThat(Json.num(e, "peakBytes")).isGreaterThanOrEqualTo(Json.num(e, "liveBytes"));
            }
        }
        // the timeline's buckets add up to the totals
        long sum = 0;
        for (Map<String, Object> b : Json.list(report, "timeline", "buckets")) {
            sum += Json.num(b, "allocatedBytes");
        }
        assertThat(sum).isEqualTo(Json.num(totals, "allocatedBytes"));
        assertThat(Json.list(report, "timeline", "buckets").size()).isBetween(100, 200);
    }
}
