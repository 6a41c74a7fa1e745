package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The end's figures written as text without {@code java.util.Formatter}: the same text {@code %.1f} writes. */
class CaptureEndTest {
    @Test
    void tenthsAreWrittenAsPercentPointOneFWritesThem() {
        for (long t : new long[] {0, 5, 10, 107, 1234, -12, 99_999_999L}) {
            assertThat(CaptureEnd.tenths(t)).isEqualTo(String.format(Locale.ROOT, "%.1f", t / 10.0));
        }
    }
}
