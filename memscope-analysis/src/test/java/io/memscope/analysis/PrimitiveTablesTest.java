package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The replay's open-addressing tables against maps, through growth, colliding ids and deletions. */
class PrimitiveTablesTest {

    @Test
    void sampleTableAgreesWithAMap() {
        SampleTable table = new SampleTable();
        Map<Long, long[]> expected = new HashMap<>();
        List<Long> live = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(42);
        for (int i = 0; i < 200_000; i++) {
            if (live.isEmpty() || r.nextInt(10) < 6) {
                // ids of a real heap: aligned addresses, reused after a free; some far apart (colliding low bits)
                long id = r.nextInt(4) == 0 ? (long) r.nextInt(1 << 20) << 32 : 16L * r.nextInt(150_000);
                int stack = r.nextInt(1 << 20);
                int epoch = r.nextInt(1000);
                if (expected.put(id, new long[] {stack, epoch}) == null) {
                    live.add(id);
                }
                table.put(id, stack, epoch);
            } else {
                long id = live.remove(r.nextInt(live.size()));
                int slot = table.find(id);
                assertThat(slot).isNotNegative();
                long[] e = expected.remove(id);
                assertThat(table.stack(slot)).isEqualTo((int) e[0]);
                assertThat(table.epoch(slot)).isEqualTo((int) e[1]);
                table.remove(slot);
                assertThat(table.find(id)).isEqualTo(-1);
            }
            assertThat(table.size()).isEqualTo(expected.size());
        }
        for (Map.Entry<Long, long[]> e : expected.entrySet()) {
            int slot = table.find(e.getKey());
            assertThat(slot).isNotNegative();
            assertThat(table.stack(slot)).isEqualTo((int) e.getValue()[0]);
            assertThat(table.epoch(slot)).isEqualTo((int) e.getValue()[1]);
        }
        assertThat(table.find(7)).isEqualTo(-1);
    }

    @Test
    void stackIndexNumbersPairsDenselyInOrderOfFirstUse() {
        StackIndex index = new StackIndex();
        Map<List<Long>, Integer> expected = new HashMap<>();
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long stack = r.nextInt(5) == 0 ? 0 : r.nextLong(); // stack ids are hashes; 0 for none
            stack = r.nextBoolean() && !expected.isEmpty() ? stack & 0xFFF : stack;
            int site = r.nextInt(3) - 1 + r.nextInt(200);
            int next = expected.size();
            Integer want = expected.computeIfAbsent(List.of(stack, (long) site), k -> next);
            assertThat(index.indexOf(stack, site, next)).isEqualTo(want);
        }
        assertThat(expected).hasSizeGreaterThan(1024); // grew several times
    }
}
