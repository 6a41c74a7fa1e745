package io.memscope.events.jvm;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** JFR's generic "GC Pause" (JDK 21+) named as -Xlog:gc names it, from the collection it belongs to. */
class PauseNameTest {
    @Test
    void namesFollowTheGcLog() {
        assertThat(JfrEventMapper.pauseName(new String[] {"G1New", "G1 Evacuation Pause"}, "Mixed"))
                .isEqualTo("Pause Young (Mixed) (G1 Evacuation Pause)");
        assertThat(JfrEventMapper.pauseName(new String[] {"G1New", "G1 Evacuation Pause"}, null))
                .isEqualTo("Pause Young (G1 Evacuation Pause)");
        assertThat(JfrEventMapper.pauseName(new String[] {"G1Full", "System.gc()"}, null))
                .isEqualTo("Pause Full (System.gc())");
        assertThat(JfrEventMapper.pauseName(new String[] {"ParallelScavenge", "Allocation Failure"}, null))
                .isEqualTo("Pause Young (Allocation Failure)");
        assertThat(JfrEventMapper.pauseName(new String[] {"SerialOld", "Allocation Failure"}, null))
                .isEqualTo("Pause Full (Allocation Failure)");
        assertThat(JfrEventMapper.pauseName(new String[] {"Z", "Warmup"}, null)).isEqualTo("GC Pause");
        assertThat(JfrEventMapper.pauseName(null, "Normal")).isEqualTo("GC Pause");
    }

    /**
     * A pause waits for its collection's name over more than two flushes and two seconds: flushes in a row (a stream
     * catching up, the last chunk read at exit) are not time, and its collection may come a segment later.
     */
    @Test
    void aPauseIsWrittenUnnamedOnlyAfterMoreThanTwoFlushesAndTwoSeconds() {
        long ms = 1_000_000L;
        assertThat(JfrEventMapper.stale(3, 50 * ms)).as("three flushes in a row").isFalse();
        assertThat(JfrEventMapper.stale(2, 5_000 * ms)).as("two flushes").isFalse();
        assertThat(JfrEventMapper.stale(3, 2_000 * ms)).isTrue();
    }
}
