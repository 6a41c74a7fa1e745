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
}
