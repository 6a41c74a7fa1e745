package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A diff compares the sites that have some of its metric in either run. A new user's {@code diff --metric native}
 * of two Netty runs listed every heap site (Jackson's parser, byte[] temporaries) as "0 B, 0 B, same" below the
 * two native sites and counted them in "N of 66 sites changed"; a diff of held bytes did the same with every
 * temporary, each also widening the family of tests that sets the noise threshold.
 */
class DiffComparedSitesTest {
    private static SiteProfile heap(String site, long allocated, long allocatedSamples, long live, long liveSamples) {
        return new SiteProfile(site, "byte[]", false, allocated, allocated / 64, allocatedSamples, live, live / 64,
                liveSamples, live, live, live / 64, liveSamples, 0, -1, -1, false, false, List.of(site), 0, 0, 0, null);
    }

    private static SiteProfile direct(String site, long bytes, long blocks) {
        return new SiteProfile(site, "native:direct-buffer", true, bytes, blocks, 0, bytes, blocks, 0, bytes, 0, 0, 0,
                0, -1, -1, false, false, List.of(site), 0, 0, 0, null);
    }

    private static Report run(SiteProfile... sites) {
        return DiffSignificanceTest.report(List.of(sites), new Report.Totals(1L << 30, 1L << 24, 0, 0, 2048, 1000,
                false, Double.NaN, null, 0, 0, 0, Double.NaN));
    }

    @Test
    void eachMetricComparesTheSitesThatHaveSomeOfIt() {
        Report base = run(heap("app.Parse.read(Parse.java:10)", 900L << 20, 1800, 0, 0),
                heap("app.Cache.put(Cache.java:20)", 40L << 20, 80, 38L << 20, 76),
                direct("app.Pool.newChunk(Pool.java:30)", 4L << 20, 1));
        Report newer = run(heap("app.Parse.read(Parse.java:10)", 950L << 20, 1900, 0, 0),
                heap("app.Cache.put(Cache.java:20)", 80L << 20, 160, 78L << 20, 156),
                direct("app.Pool.newChunk(Pool.java:30)", 8L << 20, 2));

        RunDiff nativeDiff = DiffBuilder.diff(base, newer, DiffMetric.NATIVE, false, null);
        assertThat(nativeDiff.sites()).extracting(RunDiff.Entry::site)
                .containsExactly("app.Pool.newChunk(Pool.java:30)");
        assertThat(nativeDiff.significance().tests()).isEqualTo(2);
        assertThat(DiffText.format(nativeDiff, 20)).contains("1 of 1 sites changed (exact figures: no sampling noise)")
                .doesNotContain("more than sampling noise");

        RunDiff live = DiffBuilder.diff(base, newer, DiffMetric.LIVE, false, null);
        assertThat(live.sites()).extracting(RunDiff.Entry::site).containsExactly("app.Cache.put(Cache.java:20)");
        assertThat(live.significance().tests()).isEqualTo(2);
        assertThat(DiffText.format(live, 20)).contains("1 of 1 sites changed by more than sampling noise");

        RunDiff allocated = DiffBuilder.diff(base, newer, DiffMetric.ALLOCATED, false, null);
        assertThat(allocated.sites()).extracting(RunDiff.Entry::site)
                .containsExactlyInAnyOrder("app.Parse.read(Parse.java:10)", "app.Cache.put(Cache.java:20)");
    }

    @Test
    void aSiteThatHadSomeInOneRunOnlyIsStillCompared() {
        Report base = run(heap("app.Cache.put(Cache.java:20)", 40L << 20, 80, 38L << 20, 76));
        Report newer = run(heap("app.Cache.put(Cache.java:20)", 40L << 20, 80, 0, 0));

        RunDiff live = DiffBuilder.diff(base, newer, DiffMetric.LIVE, false, null);

        assertThat(live.sites()).singleElement().satisfies(e -> {
            assertThat(e.verdict(DiffMetric.LIVE)).isEqualTo("gone");
            assertThat(e.base().liveBytes()).isEqualTo(38L << 20);
        });
    }
}
