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

    @Test
    void stackIndexTellsApartPairsWhoseHashKeysCollide() {
        StackIndex index = new StackIndex();
        long mixA = 3 * 0xC2B2AE3D27D4EB4FL;
        long mixB = 5 * 0xC2B2AE3D27D4EB4FL;
        long stackA = 0x1234_5678_9ABC_DEF0L;
        long stackB = stackA ^ mixA ^ mixB; // (stackA, 3) and (stackB, 5) have the same word 0
        assertThat(index.indexOf(stackA, 3, 0)).isEqualTo(0);
        assertThat(index.indexOf(stackB, 5, 1)).isEqualTo(1);
        assertThat(index.indexOf(stackA, 5, 2)).isEqualTo(2);
        assertThat(index.indexOf(stackB, 5, 3)).isEqualTo(1);
        assertThat(index.indexOf(stackA, 3, 3)).isEqualTo(0);
        assertThat(index.size()).isEqualTo(3);
    }

    @Test
    void clearedTableStartsAfreshAndListsItsSlotsInTheSameOrderForTheSameOperations() {
        SampleTable table = new SampleTable();
        SampleTable twin = new SampleTable();
        for (SampleTable t : List.of(table, twin)) {
            for (long id = 0; id < 5000; id++) {
                t.put(id << 20, (int) id, 0); // colliding low bits, through growth
            }
            for (long id = 0; id < 5000; id += 3) {
                t.remove(t.find(id << 20));
            }
        }
        assertThat(table.occupied()).containsExactly(twin.occupied()).hasSize(3333);
        table.clear();
        assertThat(table.isEmpty()).isTrue();
        assertThat(table.occupied()).isEmpty();
        assertThat(table.find(1L << 20)).isEqualTo(-1);
        table.put(7, 1, 2);
        assertThat(table.epoch(table.find(7))).isEqualTo(2);
        assertThat(table.toString()).isEqualTo("SampleTable[1 of " + LongSlotTable.INITIAL_CAPACITY + "]");
    }
}
