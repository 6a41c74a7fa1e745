package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A ledger keeping only the figures of stacks ({@link HeldLedger#figuresOfStacksOnly}) gives, fed the same
 * operations as a full one, the same figures at the end, at the peak and at every collection, bit for bit; and
 * {@link HeldLedger#warm} reads without changing anything.
 */
class HeldLedgerTest {
    private record Sample(int key, double b, double n, double v, int epoch) {}

    @Test
    void aStacksOnlyLedgerGivesTheFullLedgersFiguresOfStacks() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int collections = 40 + r.nextInt(60);
            int windowFirst = r.nextInt(10);
            int end = collections - 1 - r.nextInt(5);
            HeldLedger full = new HeldLedger(windowFirst, end);
            HeldLedger stacks = new HeldLedger(windowFirst, end);
            stacks.figuresOfStacksOnly();
            int keys = 1 + r.nextInt(300);
            List<Sample> live = new ArrayList<>();
            int boundary = 0;
            int epoch = 0;
            int toMeasure = -1;
            for (int k = 0; k < collections; k++) {
                // events: allocations and frees in any order
                int events = r.nextInt(200);
                for (int e = 0; e < events; e++) {
                    if (!live.isEmpty() && r.nextInt(3) > 0) {
                        Sample s = live.remove(r.nextInt(live.size()));
                        full.collected(s.key, s.b, s.n, s.v, s.epoch);
                        stacks.collected(s.key, s.b, s.n, s.v, s.epoch);
                    } else {
                        double p = 1 / (1 + r.nextDouble() * 100);
                        long size = 16 + r.nextInt(1 << 20);
                        Sample s = new Sample(r.nextInt(keys), size / p, 1 / p,
                                (double) size * size * (1 - p) / (p * p), epoch);
                        live.add(s);
                        full.allocated(s.key, s.b, s.n, s.v);
                        stacks.allocated(s.key, s.b, s.n, s.v);
                    }
                }
                int[] some = r.ints(20, 0, Math.max(1, Math.min(keys, full.keys()))).toArray();
                if (full.keys() > 0) {
                    full.warm(some, some.length);
                    stacks.warm(some, some.length);
                }
                // the previous point is measured at the next boundary; a whole-heap collection's snapshot first
                if (toMeasure >= 0) {
                    if (full.pendingMark() >= 0 && r.nextBoolean()) {
                        full.confirm();
                        stacks.confirm();
                    }
                    full.measure(toMeasure);
                    stacks.measure(toMeasure);
                    assertSameHeld(full, stacks);
                    if (r.nextInt(4) == 0) {
                        full.takePeak();
                        stacks.takePeak();
                    }
                }
                if (r.nextInt(5) == 0) {
                    full.crossMark(boundary);
                    stacks.crossMark(boundary);
                    epoch = ++boundary;
                }
                full.crossPoint(boundary);
                stacks.crossPoint(boundary);
                toMeasure = k;
                epoch = ++boundary;
            }
            full.measure(toMeasure);
            stacks.measure(toMeasure);
            assertSameHeld(full, stacks);
            assertThat(stacks.keys()).isEqualTo(full.keys());
            for (int key = 0; key < full.keys(); key++) {
                assertThat(stacks.endBytes(key)).isEqualTo(full.endBytes(key));
                assertThat(stacks.endCount(key)).isEqualTo(full.endCount(key));
                assertThat(stacks.endSamples(key)).isEqualTo(full.endSamples(key));
                assertThat(stacks.endUnconfirmedBytes(key)).isEqualTo(full.endUnconfirmedBytes(key));
                assertThat(stacks.atPeakBytes(key)).isEqualTo(full.atPeakBytes(key));
                assertThat(stacks.atPeakCount(key)).isEqualTo(full.atPeakCount(key));
                assertThat(stacks.atPeakSamples(key)).isEqualTo(full.atPeakSamples(key));
                assertThat(stacks.atPeakUnconfirmedBytes(key)).isEqualTo(full.atPeakUnconfirmedBytes(key));
            }
        }
    }

    private static void assertSameHeld(HeldLedger full, HeldLedger stacks) {
        for (int key = 0; key < full.keys(); key++) {
            assertThat(stacks.heldBytes(key)).isEqualTo(full.heldBytes(key));
        }
    }

    @Test
    void onlyANewLedgerDropsItsLeakMeasures() {
        HeldLedger l = new HeldLedger(0, 3);
        l.allocated(0, 100, 1, 0);
        assertThatThrownBy(l::figuresOfStacksOnly).isInstanceOf(IllegalStateException.class);
    }
}
