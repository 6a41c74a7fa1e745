package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * When the process sampler asks the resident check for a pass: the resident set changed by a few percent and
 * megabytes since the figures were measured, where "since" starts at the last sample at or before the pass.
 */
class ResidentStalenessTest {
    private static final long MIB = 1L << 20;
    private static final long MS = 1_000_000L;

    @Test
    void aChangeOfAFewPercentAndMegabytesIsMuch() {
        assertThat(ResidentStaleness.grewMuch(100 * MIB, 103 * MIB)).as("3 MiB: below the minimum").isFalse();
        assertThat(ResidentStaleness.grewMuch(100 * MIB, 105 * MIB)).isTrue();
        assertThat(ResidentStaleness.grewMuch(1000 * MIB, 1020 * MIB)).as("2%").isFalse();
        assertThat(ResidentStaleness.grewMuch(1000 * MIB, 1040 * MIB)).isTrue();
        assertThat(ResidentStaleness.grewMuch(100 * MIB, 50 * MIB)).as("shrunk").isFalse();
        assertThat(ResidentStaleness.grewMuch(-1, 50 * MIB)).as("unknown").isFalse();
    }

    /**
     * A pass in the middle of a fast growth, first carried by a sample already near the peak: what grew between the
     * pass and that sample is growth since the figures, and the sample asks at once (measured from that sample, the
     * 15 MiB still to come were below 3% and no pass came before the peak).
     */
    @Test
    void growthBetweenThePassAndTheSampleThatFirstCarriesItAsksAtOnce() {
        ResidentStaleness s = new ResidentStaleness();
        assertThat(s.sample(0, 100 * MS, 60 * MIB)).as("the first figures, flat").isFalse();
        assertThat(s.sample(0, 200 * MS, 300 * MIB)).as("growth since them").isTrue();
        assertThat(s.sample(0, 300 * MS, 400 * MIB)).as("once per pass").isFalse();
        // the pass at 320 ms: the sample at 300 ms (400 MiB) is the last one before it
        assertThat(s.sample(320 * MS, 400 * MS, 540 * MIB)).isTrue();
        assertThat(s.sample(320 * MS, 500 * MS, 555 * MIB)).as("asked already").isFalse();
        // the next pass after the growth ended: nothing changed since
        assertThat(s.sample(520 * MS, 600 * MS, 555 * MIB)).isFalse();
        assertThat(s.sample(520 * MS, 700 * MS, 556 * MIB)).isFalse();
    }

    @Test
    void aFallBelowTheHighestTheFiguresMayHaveSeenAsks() {
        ResidentStaleness s = new ResidentStaleness();
        assertThat(s.sample(0, 100 * MS, 500 * MIB)).isFalse();
        assertThat(s.sample(50 * MS, 200 * MS, 500 * MIB)).isFalse();
        assertThat(s.sample(50 * MS, 300 * MS, 495 * MIB)).as("1%").isFalse();
        assertThat(s.sample(50 * MS, 400 * MS, 372 * MIB)).as("direct buffers let go").isTrue();
    }

    @Test
    void aPassOlderThanEveryKeptSampleSpansThemAllAndUnknownRssNeverAsks() {
        ResidentStaleness s = new ResidentStaleness();
        for (int i = 0; i < 40; i++) {
            assertThat(s.sample(0, (i + 1) * 100 * MS, (i < 30 ? 100 : 200) * MIB)).isEqualTo(i == 30);
        }
        // figures from before all the samples kept: they span 100..200 MiB, so 200 now is growth since the lowest
        assertThat(s.sample(-5 * MS, 4100 * MS, 200 * MIB)).isTrue();
        ResidentStaleness unknown = new ResidentStaleness();
        assertThat(unknown.sample(0, 100 * MS, -1)).isFalse();
        assertThat(unknown.sample(0, 200 * MS, -1)).isFalse();
        assertThat(unknown.sample(0, 300 * MS, 500 * MIB)).as("nothing known to grow from").isFalse();
    }
}
