package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class RawStackCacheTest {
    @Test
    void getsWhatWasPut() {
        RawStackCache<String> c = new RawStackCache<>(1024);
        SplittableRandom rnd = new SplittableRandom(1);
        long[] keys = new long[500];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = rnd.nextLong();
            c.put(keys[i], "v" + i);
        }
        for (int i = 0; i < keys.length; i++) {
            assertThat(c.get(keys[i])).isEqualTo("v" + i);
        }
        assertThat(c.get(42L)).isNull();
        assertThat(c.get(0L)).isNull();
    }

    @Test
    void putReplacesTheValueOfTheSameKey() {
        RawStackCache<String> c = new RawStackCache<>(16);
        c.put(5, "a");
        c.put(5, "b");
        assertThat(c.get(5)).isEqualTo("b");
    }

    @Test
    void staysBoundedAndEvictsWhenFull() {
        RawStackCache<Long> c = new RawStackCache<>(64);
        for (long k = 1; k <= 10_000; k++) {
            c.put(k * 0x9E3779B97F4A7C15L, k);
        }
        int found = 0;
        for (long k = 1; k <= 10_000; k++) {
            Long v = c.get(k * 0x9E3779B97F4A7C15L);
            if (v != null) {
                assertThat(v).isEqualTo(k); // never another key's value
                found++;
            }
        }
        assertThat(found).isBetween(1, 64);
        // The latest key is always there (it takes its home slot when the probes are full).
        assertThat(c.get(10_000 * 0x9E3779B97F4A7C15L)).isEqualTo(10_000L);
        c.clear();
        assertThat(c.get(10_000 * 0x9E3779B97F4A7C15L)).isNull();
    }

    @Test
    void rejectsACapacityThatIsNotAPowerOfTwo() {
        assertThatThrownBy(() -> new RawStackCache<>(100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RawStackCache<>(4)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Timeout(30)
    void concurrentReadersNeverSeeAnotherKeysValue() throws Exception {
        RawStackCache<long[]> c = new RawStackCache<>(256);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                results.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    int hits = 0;
                    for (int i = 0; i < 200_000; i++) {
                        long k = rnd.nextInt(2000);
                        long[] v = c.get(k);
                        if (v == null) {
                            c.put(k, new long[] {k});
                        } else {
                            if (v[0] != k) {
                                throw new AssertionError("key " + k + " gave the value of " + v[0]);
                            }
                            hits++;
                        }
                    }
                    return hits;
                }));
            }
            int hits = 0;
            for (Future<Integer> f : results) {
                hits += f.get(30, TimeUnit.SECONDS);
            }
            assertThat(hits).isPositive();
        } finally {
            pool.shutdownNow();
        }
    }
}
