package io.memscope.accounting;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** {@link Budget#peakBytes()}, {@link Budget#resetPeak()}, {@link Budget#exceededCount()} and the budget list. */
class BudgetPeakTest {
    private final MemoryAccounting acct = new MemoryAccounting();
    private final Instrument cache = acct.instrument("memory/test/cache");

    @Test
    void thePeakIsTheMostUsedAtOnceAndRestartsFromTheCurrentBytes() {
        Owner a = acct.alloc(cache, 100);
        Budget b = acct.setBudget(cache, 1000);
        assertThat(b.peakBytes()).isEqualTo(100);
        Owner c = acct.alloc(cache, 700);
        acct.free(cache, 700, c);
        assertThat(b.usedBytes()).isEqualTo(100);
        assertThat(b.peakBytes()).isEqualTo(800);
        assertThat(b.resetPeak()).isEqualTo(800);
        assertThat(b.peakBytes()).isEqualTo(100);
        assertThat(acct.tryAlloc(cache, 300)).isNotNull();
        assertThat(b.peakBytes()).isEqualTo(400);
        acct.free(cache, 100, a);
        assertThat(b.peakBytes()).isEqualTo(400);
    }

    @Test
    void exceededCountsEachCrossingAboveTheLimit() {
        Budget b = acct.setBudget(cache, 1000);
        Owner o = acct.alloc(cache, 1500);
        acct.alloc(cache, 10); // still over: no new crossing
        acct.free(cache, 1500, o);
        acct.alloc(cache, 2000);
        assertThat(b.exceededCount()).isEqualTo(2);
    }

    @Test
    void thePeakIsExactUnderConcurrentCharges() throws Exception {
        Budget b = acct.setBudget(cache, MemoryAccounting.MAX_SIZE);
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            ts[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                Owner[] owners = new Owner[1000];
                for (int i = 0; i < owners.length; i++) {
                    owners[i] = acct.alloc(cache, 8);
                }
                for (Owner o : owners) {
                    acct.free(cache, 8, o);
                }
            });
            ts[t].start();
        }
        start.countDown();
        for (Thread t : ts) {
            t.join();
        }
        // every thread held 8000 bytes at its own peak; all at once at most 32000
        assertThat(b.peakBytes()).isBetween(8000L, 32_000L);
        assertThat(b.usedBytes()).isZero();
    }

    @Test
    void budgetsListsInstrumentUserAndHostBudgets() {
        Budget i = acct.setBudget(cache, 1);
        Budget u = acct.setUserBudget("alice", 2);
        Budget h = acct.setHostBudget("eu-1", 3);
        assertThat(acct.budgets()).containsExactly(i, u, h);
        acct.removeBudget(u);
        assertThat(acct.budgets()).containsExactly(i, h);
    }
}
