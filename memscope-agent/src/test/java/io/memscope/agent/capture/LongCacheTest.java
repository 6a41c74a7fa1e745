package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The two-generation cache of the JVM sampler's resolved stacks and methods. */
class LongCacheTest {
    @Test
    void neverHoldsMoreThanItsBoundAndNeverFallsToNothing() {
        LongCache<String> c = new LongCache<>(100);
        int least = Integer.MAX_VALUE;
        for (long k = 0; k < 10_000; k++) {
            c.put(k, "v" + k);
            assertThat(c.size()).isLessThanOrEqualTo(100);
            if (k >= 100) {
                least = Math.min(least, c.size());
            }
        }
        assertThat(least).as("after the first rotation it holds at least half its bound").isGreaterThanOrEqualTo(50);
        // every entry put is held or counted as evicted
        assertThat(c.size() + c.evicted()).isEqualTo(10_000);
        assertThat(c.get(9_999)).isEqualTo("v9999");
        assertThat(c.get(0)).isNull();
    }

    @Test
    void anEntryInUseSurvivesRotations() {
        LongCache<String> c = new LongCache<>(10);
        c.put(-1, "hot");
        for (long k = 0; k < 1000; k++) {
            c.put(k, "cold");
            assertThat(c.get(-1)).as("looked up between every put").isEqualTo("hot");
            assertThat(c.size()).isLessThanOrEqualTo(10);
        }
        // the cold entries are evicted once each; the hot one, moved forward each time, never
        assertThat(c.size() + c.evicted()).isEqualTo(1001);
    }

    @Test
    void roomForAWholeStacksEntriesIsMadeBeforeTheyArePut() {
        LongCache<String> c = new LongCache<>(64);
        for (long k = 0; k < 30; k++) {
            c.put(k, "a");
        }
        c.makeRoom(8); // 30 + 8 > 32: the current generation becomes the previous one
        for (long k = 100; k < 108; k++) {
            c.put(k, "b");
        }
        assertThat(c.size()).isEqualTo(38);
        assertThat(c.evicted()).isZero();
        assertThat(c.get(5)).isEqualTo("a");
    }
}
