package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.agent.boot.SamplerNatives;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The library's counters and {@link SamplerCounter} are one list: the names the library answers equal the enum's
 * constants in order and count, so that adding a counter on one side only fails here. Platform: the JVMTI sampler
 * library is built for Linux x86_64 only; elsewhere the test is skipped.
 */
class SamplerCountersTest {
    @Test
    void theLibrarysCounterNamesAreTheEnumInOrder() throws Exception {
        SamplerLibraryInTests.load();

        String[] names = SamplerNatives.counterNames();

        assertThat(names).containsExactly(Arrays.stream(SamplerCounter.values()).map(Enum::name)
                .toArray(String[]::new));
        long[] counters = new long[SamplerCounter.COUNT + 1];
        counters[SamplerCounter.COUNT] = 42;
        SamplerNatives.counters(counters);
        assertThat(counters[SamplerCounter.COUNT]).as("the library fills exactly COUNT slots").isEqualTo(42);
        assertThat(counters[SamplerCounter.BUFFERS.ordinal()]).as("no capture open: no buffers").isZero();
    }
}
