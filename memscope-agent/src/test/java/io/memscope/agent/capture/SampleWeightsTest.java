package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The remembered weights are {@link LiveSites#weight}'s, bit for bit, whatever order sizes come in. */
class SampleWeightsTest {
    @Test
    void everyWeightIsTheFormulasBitForBit() {
        double mean = 2048;
        SampleWeights weights = new SampleWeights(mean);
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 200_000; i++) {
            // mostly a few repeated sizes, some sizes sharing a slot (same size in words modulo the table), odd
            // sizes, huge arrays and 0
            long size = switch (i % 5) {
                case 0 -> 16 + 8 * random.nextInt(8);
                case 1 -> 16 + 8 * random.nextInt(100_000);
                case 2 -> 16 + 8 * random.nextInt(4) + 8L * 2048 * random.nextInt(4);
                case 3 -> random.nextLong(1L << 40);
                default -> random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(64);
            };
            assertThat(Double.doubleToRawLongBits(weights.weight(size)))
                    .as("size %d", size)
                    .isEqualTo(Double.doubleToRawLongBits(LiveSites.weight(size, mean)));
        }
    }

    @Test
    void theMeanIsTheSamplersOwn() {
        assertThat(new SampleWeights(512 * 1024).weight(1024)).isEqualTo(LiveSites.weight(1024, 512 * 1024));
        assertThat(new SampleWeights(1).weight(1024)).isEqualTo(LiveSites.weight(1024, 1));
    }
}
