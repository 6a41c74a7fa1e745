package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pending-sample table against a plain map, through growth and backward-shift deletions. */
class PendingSamplesTest {
    @Test
    void behavesLikeAMapThroughGrowthAndDeletions() {
        PendingSamples table = new PendingSamples();
        Map<Long, long[]> expected = new HashMap<>(); // id -> allocated, bytes, collected, stack key, placement
        List<Long> ids = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(7);
        for (int step = 0; step < 200_000; step++) {
            int op = r.nextInt(10);
            if (op < 5 || ids.isEmpty()) {
                // ids that collide: multiples of the table size land in the same home slots
                long id = r.nextBoolean() ? r.nextLong() : (long) r.nextInt(4096) << 12;
                int key = r.nextInt(1000);
                int slot = table.put(id, step, r.nextInt(1 << 20), key);
                long[] v = {step, 0, Long.MIN_VALUE, key, PendingSamples.WAITING};
                v[1] = table.bytes(slot);
                if (expected.put(id, v) == null) {
                    ids.add(id);
                }
            } else {
                int at = r.nextInt(ids.size());
                long id = ids.get(at);
                int slot = table.find(id);
                assertThat(slot).isNotNegative();
                long[] v = expected.get(id);
                assertThat(table.allocated(slot)).isEqualTo(v[0]);
                assertThat(table.bytes(slot)).isEqualTo(v[1]);
                assertThat(table.collected(slot)).isEqualTo(v[2]);
                assertThat(table.stackKey(slot)).isEqualTo((int) v[3]);
                assertThat(table.placement(slot)).isEqualTo((int) v[4]);
                if (op < 7) {
                    table.collected(slot, step);
                    v[2] = step;
                    int placement = r.nextInt(3) - 1; // OUTSIDE, or cells 0 and 1
                    table.place(slot, placement);
                    v[4] = placement;
                } else {
                    table.remove(slot);
                    expected.remove(id);
                    ids.set(at, ids.get(ids.size() - 1));
                    ids.remove(ids.size() - 1);
                    assertThat(table.find(id)).isEqualTo(-1);
                }
            }
        }
        assertThat(table.occupied()).hasSize(expected.size());
        for (long id : ids) {
            assertThat(table.find(id)).isNotNegative();
        }
        assertThat(table.isEmpty()).isEqualTo(expected.isEmpty());
    }
}
