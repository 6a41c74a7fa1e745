package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CaptureSettingsTest {
    /** auto: 16 times as often on JDK 24 and older, the interval itself on 25; never below 1 KiB unless asked. */
    @Test
    void theJvmsInterval() {
        CaptureSettings d = CaptureSettings.defaults(null);
        assertThat(d.jvmIntervalBytes(17)).isEqualTo(32 * 1024);
        assertThat(d.jvmIntervalBytes(24)).isEqualTo(32 * 1024);
        assertThat(d.jvmIntervalBytes(25)).isEqualTo(512 * 1024);
        CaptureSettings small = withInterval(d, 4096, 0);
        assertThat(small.jvmIntervalBytes(21)).as("at least 1 KiB").isEqualTo(1024);
        assertThat(withInterval(d, 512, 0).jvmIntervalBytes(21)).as("the interval when below 1 KiB").isEqualTo(512);
        assertThat(withInterval(d, 512 * 1024, 4).jvmIntervalBytes(25)).isEqualTo(128 * 1024);
        assertThat(withInterval(d, 512 * 1024, 1).jvmIntervalBytes(17)).isEqualTo(512 * 1024);
    }

    private static CaptureSettings withInterval(CaptureSettings d, long interval, int oversample) {
        return new CaptureSettings(d.exact(), interval, d.stackDepth(), d.nativeMemory(), d.gc(), d.recording(),
                d.flushMillis(), d.debug(), d.jvmti(), d.include(), d.exclude(), d.includeJdk(), d.queueBytes(),
                d.liveLimit(), d.stackWalk(), oversample, d.ownDistances());
    }
}
