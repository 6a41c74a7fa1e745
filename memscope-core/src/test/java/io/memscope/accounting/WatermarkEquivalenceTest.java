package io.memscope.accounting;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.Random;

import static io.memscope.accounting.Stats.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Stats}' thread form (LOW and HIGH kept directly, two stores per call) against the performance schema's
 * capacity algorithm ({@link PerformanceSchemaStats}) on random sequences: after every operation the thread form,
 * converted with {@link Stats#toCapacities}, equals the performance schema's stat in all eight longs, and both return
 * the same "carry" flag and the same deltas, so the carry chain above sees identical input.
 */
class WatermarkEquivalenceTest {
    private static final int INSTRUMENTS = 3;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void threadFormMatchesThePerformanceSchemasCapacities(long seed) {
        Random rnd = new Random(seed);
        long[] schemaStats = new long[INSTRUMENTS * WIDTH];
        long[] thread = new long[threadLength(INSTRUMENTS)];
        long[] schemaDelta = new long[2];
        long[] delta = new long[2];
        long[] converted = new long[WIDTH];
        long[] expected = new long[WIDTH];
        int carries = 0;
        for (int step = 0; step < 20_000; step++) {
            int k = rnd.nextInt(INSTRUMENTS);
            int sb = k * WIDTH;
            int tb = threadBase(k);
            int op = rnd.nextInt(100);
            long count = rnd.nextInt(4) == 0 ? rnd.nextInt(4) : 1;              // batches and 0 (folded queues)
            long size = rnd.nextInt(10) == 0 ? 0 : rnd.nextInt(6) == 0 ? rnd.nextInt(1 << 20) : rnd.nextInt(200);
            long curCount = schemaStats[sb + ALLOC_COUNT] - schemaStats[sb + FREE_COUNT];
            long curBytes = schemaStats[sb + ALLOC_SIZE] - schemaStats[sb + FREE_SIZE];
            Arrays.fill(schemaDelta, -1);
            Arrays.fill(delta, -1);
            long r1;
            long r2;
            String what;
            if (op < 52 || curCount < count || curBytes < size) {
                what = "alloc " + count + " x " + size;
                r1 = PerformanceSchemaStats.countAlloc(schemaStats, sb, count, size, schemaDelta);
                r2 = countAlloc(thread, tb, count, size, delta);
            } else if (op < 99) {
                what = "free " + count + " x " + size;
                r1 = PerformanceSchemaStats.countFree(schemaStats, sb, count, size, schemaDelta);
                r2 = countFree(thread, tb, count, size, delta);
            } else {
                what = "truncate";
                PerformanceSchemaStats.rebase(schemaStats, sb);
                rebase(thread, tb);
                r1 = 0;
                r2 = 0;
            }
            String at = "seed " + seed + " step " + step + " instrument " + k + ": " + what;
            assertThat(r2).as(at).isEqualTo(r1);
            if (r1 != 0) {
                carries++;
                assertThat(delta).as(at + " deltas").containsExactly(schemaDelta);
            }
            toCapacities(thread, tb, converted, 0);
            System.arraycopy(schemaStats, sb, expected, 0, WIDTH);
            assertThat(converted).as(at).containsExactly(expected);
            long[] racy = new long[WIDTH];
            readThread(thread, tb, racy, 0);   // a quiescent read is exact
            assertThat(racy).as(at).containsExactly(Arrays.copyOfRange(thread, tb, tb + WIDTH));
        }
        for (int i = 0; i < PAD; i++) {
            assertThat(thread[i]).isZero();
            assertThat(thread[thread.length - 1 - i]).isZero();
        }
        assertThat(carries).as("the sequences push the watermarks (the performance schema's cases 2-4) often")
                .isGreaterThan(1000);
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24})
    void registryThreadRowsMatchThePerformanceSchemasCapacities(long seed) {
        Random rnd = new Random(seed);
        MemoryAccounting acct = new MemoryAccounting();
        Instrument inst = acct.instrument("memory/equivalence/blocks");
        long[] schemaStats = new long[WIDTH];
        long[] d = new long[2];
        java.util.ArrayDeque<Long> held = new java.util.ArrayDeque<>();
        java.util.ArrayList<Owner> owners = new java.util.ArrayList<>();
        for (int step = 0; step < 3_000; step++) {
            int op = rnd.nextInt(100);
            if (op < 55 || held.isEmpty()) {
                long size = rnd.nextInt(300);
                owners.add(acct.alloc(inst, size));
                held.addLast(size);
                PerformanceSchemaStats.countAlloc(schemaStats, 0, 1, size, d);
            } else if (op < 99) {
                long size = rnd.nextBoolean() ? held.pollFirst() : held.pollLast();
                acct.free(inst, size, owners.get(0));
                PerformanceSchemaStats.countFree(schemaStats, 0, 1, size, d);
            } else {
                acct.truncate();
                PerformanceSchemaStats.rebase(schemaStats, 0);
            }
            if (step % 50 == 0 || step == 2_999) {
                java.util.List<SummaryRow> rows = Rows.thread(acct, Thread.currentThread().getId(), inst.name());
                if (Arrays.stream(schemaStats).allMatch(v -> v == 0)) {
                    assertThat(rows).as("step " + step).isEmpty();
                    continue;
                }
                SummaryRow expected =
                        SummaryRow.of(SummaryTable.THREAD, -1, null, null, null, inst.name(), schemaStats, 0, 0);
                assertThat(rows).as("step " + step).hasSize(1);
                assertThat(Rows.values(rows.get(0))).as("step " + step).containsExactly(Rows.values(expected));
            }
        }
        assertThat(inst.anomalies()).isZero();
    }
}
