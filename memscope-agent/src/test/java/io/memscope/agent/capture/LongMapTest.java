package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LongMapTest {
    @Test
    void behavesAsAHashMapOfLongKeysThroughGrowth() {
        LongMap<String> m = new LongMap<>(4);
        Map<Long, String> truth = new HashMap<>();
        SplittableRandom rnd = new SplittableRandom(11);
        for (int i = 0; i < 50_000; i++) {
            long k = i % 3 == 0 ? rnd.nextLong() : rnd.nextInt(1000) - 500; // 0 and negative keys included
            String v = "v" + i;
            m.put(k, v);
            truth.put(k, v);
        }
        assertThat(m.size()).isEqualTo(truth.size());
        for (Map.Entry<Long, String> e : truth.entrySet()) {
            assertThat(m.get(e.getKey())).isEqualTo(e.getValue());
        }
        assertThat(m.get(Long.MIN_VALUE + 17)).isNull();
        m.clear();
        assertThat(m.size()).isZero();
        assertThat(m.get(0)).isNull();
    }
}
