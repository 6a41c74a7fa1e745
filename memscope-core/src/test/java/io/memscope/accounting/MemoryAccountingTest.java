package io.memscope.accounting;

import io.memscope.internal.error.Failures;
import io.memscope.error.MemscopeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static io.memscope.accounting.Column.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(30)
class MemoryAccountingTest {
    private final MemoryAccounting acct = new MemoryAccounting();
    private final Instrument cache = acct.instrument("memory/cache/entries");

    @AfterEach
    void tidy() {
        Failures.setStrict(false);
        Failures.reset();
    }

    @SuppressWarnings("deprecation")
    private static long tid() {
        return Thread.currentThread().getId();
    }

    @Test
    void threadRowIsExact() {
        Owner a = acct.alloc(cache, 100);
        Owner b = acct.alloc(cache, 300);
        acct.free(cache, 100, a);
        Owner c = acct.alloc(cache, 50);
        SummaryRow r = Rows.thread(acct, tid(), cache.name()).get(0);
        assertThat(Rows.values(r)).containsExactly(3, 1, 450, 100, 0, 2, 2, 0, 350, 400, 0);
        assertThat(b).isSameAs(c).isSameAs(a);
        assertThat(r.threadName()).isEqualTo(Thread.currentThread().getName());
        assertThat(r.user()).isNull();
    }

    @Test
    void carriesDeltasToAccountUserHostAndGlobal_andAggregatesWhenTheThreadEnds() {
        long[] id = new long[1];
        Rows.onThread("worker", () -> {
            id[0] = tid();
            try (OwnerScope s = acct.scope("alice", "eu")) {
                Owner o = acct.alloc(cache, 1000);
                acct.free(cache, 1000, o);
                acct.alloc(cache, 200);
                assertThat(Rows.account(acct, "alice", "eu", cache.name()).highBytes()).isEqualTo(1000);
            }
        });
        // The thread ended: its rows moved into alice@eu, nothing is lost.
        assertThat(Rows.thread(acct, id[0], cache.name())).isEmpty();
        for (SummaryRow r : List.of(Rows.account(acct, "alice", "eu", cache.name()),
                Rows.user(acct, "alice", cache.name()), Rows.host(acct, "eu", cache.name()),
                Rows.global(acct, cache.name()))) {
            assertThat(Rows.values(r)).as(r.toString()).containsExactly(2, 1, 1200, 1000, 0, 1, 1, 0, 200, 1000, 0);
        }
    }

    @Test
    void noSharedWriteWhileAThreadStaysWithinItsWatermarks() {
        Owner o = acct.alloc(cache, 4096);
        acct.free(cache, 4096, o);
        long before = acct.carries.sum();
        for (int i = 0; i < 10_000; i++) {
            Owner x = acct.alloc(cache, 1 + i % 4096);
            acct.free(cache, 1 + i % 4096, x);
        }
        assertThat(acct.carries.sum()).isEqualTo(before);
        acct.alloc(cache, 5000); // above the high watermark: one carry
        assertThat(acct.carries.sum()).isEqualTo(before + 1);
    }

    @Test
    void freeFromAnotherThreadIsChargedToTheOwner() {
        Owner[] o = new Owner[1];
        long[] ownerId = new long[1];
        java.util.concurrent.CountDownLatch allocated = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch freed = new java.util.concurrent.CountDownLatch(1);
        Thread owner = new Thread(() -> {
            ownerId[0] = tid();
            try (OwnerScope s = acct.scope("bob", "us")) {
                o[0] = acct.alloc(cache, 700);
                allocated.countDown();
                freed.await();
                // the queued free is applied before this alloc: LOW reaches 0, HIGH stays 700
                acct.alloc(cache, 10);
                SummaryRow r = Rows.thread(acct, ownerId[0], cache.name()).get(0);
                assertThat(Rows.values(r)).containsExactly(2, 1, 710, 700, 0, 1, 1, 0, 10, 700, 0);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        owner.start();
        try {
            allocated.await();
            acct.free(cache, 700, o[0]); // from the test thread
            SummaryRow viewed = Rows.thread(acct, ownerId[0], cache.name()).get(0);
            assertThat(viewed.currentBytes()).isZero();
            assertThat(Rows.thread(acct, tid(), cache.name())).isEmpty();
            freed.countDown();
            owner.join(10_000);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertThat(Rows.user(acct, "bob", cache.name()).currentBytes()).isEqualTo(10);
        // after the owner ended, its handle still works: charged to its account
        acct.free(cache, 10, o[0]);
        assertThat(Rows.account(acct, "bob", "us", cache.name()).currentBytes()).isZero();
        assertThat(Rows.global(acct, cache.name()).get(COUNT_FREE)).isEqualTo(2);
        assertThat(cache.anomalies()).isZero();
    }

    @Test
    void scopeSetsAndRestoresUserAndHost() {
        Owner outer = acct.alloc(cache, 1);
        try (OwnerScope s1 = acct.scope("alice", "h1")) {
            Owner a = acct.alloc(cache, 10);
            assertThat(a.user()).isEqualTo("alice");
            assertThat(a.host()).isEqualTo("h1");
            try (OwnerScope s2 = acct.scope("bob", null)) {
                Owner b = acct.alloc(cache, 20);
                assertThat(b.user()).isEqualTo("bob");
                assertThat(b.host()).isNull();
                acct.free(cache, 10, a); // alice's memory, freed while working for bob: charged to alice
            }
            assertThat(acct.currentOwner().user()).isEqualTo("alice");
        }
        assertThat(acct.currentOwner().user()).isNull();
        assertThat(Rows.user(acct, "alice", cache.name()).currentBytes()).isZero();
        assertThat(Rows.user(acct, "bob", cache.name()).currentBytes()).isEqualTo(20);
        assertThat(Rows.account(acct, "bob", null, cache.name()).currentBytes()).isEqualTo(20);
        assertThat(Rows.global(acct, cache.name()).currentBytes()).isEqualTo(21);
        acct.free(cache, 1, outer);
        assertThat(Rows.global(acct, cache.name()).currentBytes()).isEqualTo(20);
    }

    @Test
    void reallocKeepsTheOwner_claimMovesToTheCurrentThread() throws Exception {
        Owner[] o = new Owner[1];
        Rows.onThread("loader", () -> {
            try (OwnerScope s = acct.scope("carol", "h")) {
                o[0] = acct.alloc(cache, 100);
                o[0] = acct.realloc(cache, 100, 400, o[0]);
            }
        });
        assertThat(o[0].user()).isEqualTo("carol");
        Owner again = acct.realloc(cache, 400, 500, o[0]); // from another thread: still carol's
        assertThat(again).isSameAs(o[0]);
        assertThat(Rows.user(acct, "carol", cache.name()).currentBytes()).isEqualTo(500);
        try (OwnerScope s = acct.scope("dave", "h")) {
            Owner mine = acct.claim(cache, 500, o[0]);
            assertThat(mine.user()).isEqualTo("dave");
            assertThat(mine.threadId()).isEqualTo(tid());
            assertThat(Rows.user(acct, "carol", cache.name()).currentBytes()).isZero();
            assertThat(Rows.user(acct, "dave", cache.name()).currentBytes()).isEqualTo(500);
            assertThat(Rows.host(acct, "h", cache.name()).currentBytes()).isEqualTo(500);
            assertThat(acct.claim(cache, 500, mine)).isSameAs(mine);
            acct.free(cache, 500, mine);
        }
        assertThat(Rows.global(acct, cache.name()).currentBytes()).isZero();
        assertThat(cache.anomalies()).isZero();
    }

    @Test
    void globalInstrumentUsesSharedStatsOnly() {
        Instrument pool = acct.globalInstrument("memory/pool/arena");
        Owner g = acct.alloc(pool, 1 << 20);
        assertThat(g).isSameAs(Owner.GLOBAL);
        Rows.onThread("other", () -> acct.free(pool, 1 << 20, g));
        acct.alloc(pool, 10);
        SummaryRow r = Rows.global(acct, pool.name());
        assertThat(Rows.values(r)).containsExactly(2, 1, (1 << 20) + 10, 1 << 20, 0, 1, 1, 0, 10, 1 << 20, 0);
        assertThat(acct.summary(SummaryTable.THREAD)).noneMatch(x -> x.eventName().equals(pool.name()));
        assertThatThrownBy(() -> acct.instrument("memory/pool/arena")).isInstanceOf(MemscopeException.class)
                .hasMessageContaining("already registered as global");
    }

    @Test
    void disabledRecordsNothing_butFreesOfRecordedMemoryStillCount() {
        Owner o = acct.alloc(cache, 10);
        cache.setEnabled(false);
        assertThat(acct.alloc(cache, 99)).isSameAs(Owner.NONE);
        acct.free(cache, 10, o);
        acct.free(cache, 99, Owner.NONE);
        cache.setEnabled(true);
        acct.setThreadEnabled(false);
        assertThat(acct.alloc(cache, 5)).isSameAs(Owner.NONE);
        acct.setThreadEnabled(true);
        acct.setEnabled(false);
        assertThat(acct.alloc(cache, 5)).isSameAs(Owner.NONE);
        acct.setEnabled(true);
        assertThat(Rows.values(Rows.global(acct, cache.name()))).containsExactly(1, 1, 10, 10, 0, 0, 1, 0, 0, 10, 0);
    }

    @Test
    void accountingForAnotherThreadCanBeSwitchedOff() throws Exception {
        java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch switched = new java.util.concurrent.CountDownLatch(1);
        Owner[] after = new Owner[1];
        Thread worker = new Thread(() -> {
            acct.alloc(cache, 1);
            ready.countDown();
            try {
                switched.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            after[0] = acct.alloc(cache, 1);
        });
        worker.start();
        ready.await();
        assertThat(acct.setThreadEnabled(worker, false)).isTrue();
        assertThat(acct.setThreadEnabled(new Thread(() -> { }), false)).isFalse();
        switched.countDown();
        worker.join(10_000);
        assertThat(after[0]).isSameAs(Owner.NONE);
        assertThat(Rows.global(acct, cache.name()).get(COUNT_ALLOC)).isEqualTo(1);
    }

    @Test
    void instrumentNamesAreValidated_andTheMaximumIsEnforced() {
        assertThatThrownBy(() -> acct.instrument("mem/cache/x")).hasMessageContaining("starts with 'mem'");
        assertThatThrownBy(() -> acct.instrument("memory/cache")).hasMessageContaining("expected memory/<component>/<what>");
        assertThatThrownBy(() -> acct.instrument("memory//x")).hasMessageContaining("empty component");
        assertThatThrownBy(() -> acct.instrument("memory/cache/a b")).hasMessageContaining("what part 'a b'");
        assertThatThrownBy(() -> acct.instrument(null)).hasMessageContaining("null");
        assertThat(acct.instrument("memory/sql/THD::main_mem_root").name()).isEqualTo("memory/sql/THD::main_mem_root");
        assertThat(acct.instrument("memory/cache/entries")).isSameAs(cache);
        MemoryAccounting full = new MemoryAccounting();
        for (int i = 1; i < MemoryAccounting.MAX_INSTRUMENTS; i++) {
            full.instrument("memory/many/i" + i);
        }
        assertThatThrownBy(() -> full.instrument("memory/many/one_more"))
                .isInstanceOf(MemscopeException.class).hasMessageContaining("maximum of 1024 instruments");
        assertThat(full.instruments()).hasSize(MemoryAccounting.MAX_INSTRUMENTS - 1);
    }

    @Test
    void truncateMovesCountsToANewBaselineAndWatermarksToCurrent() {
        Owner[] held = new Owner[1];
        Rows.onThread("gone", () -> {
            try (OwnerScope s = acct.scope("u", "h")) {
                Owner o = acct.alloc(cache, 1000);
                acct.free(cache, 1000, o);
                held[0] = acct.alloc(cache, 300);
            }
        });
        Owner mine = acct.alloc(cache, 50);
        acct.alloc(cache, 25);
        acct.free(cache, 25, mine);
        acct.truncate();
        // counts: common part of ALLOC/FREE removed; CURRENT kept; LOW = CURRENT = HIGH
        for (SummaryRow r : List.of(Rows.account(acct, "u", "h", cache.name()), Rows.user(acct, "u", cache.name()))) {
            assertThat(Rows.values(r)).as(r.toString()).containsExactly(1, 0, 300, 0, 1, 1, 1, 300, 300, 300, 0);
        }
        assertThat(Rows.values(Rows.thread(acct, tid(), cache.name()).get(0)))
                .containsExactly(1, 0, 50, 0, 1, 1, 1, 50, 50, 50, 0);
        assertThat(Rows.values(Rows.global(acct, cache.name()))).containsExactly(2, 0, 350, 0, 2, 2, 2, 350, 350, 350, 0);
        // the thread applies the truncate to itself on its next call, and watermarks move from the new baseline
        acct.free(cache, 50, mine);
        assertThat(Rows.values(Rows.thread(acct, tid(), cache.name()).get(0)))
                .containsExactly(1, 1, 50, 50, 0, 0, 1, 0, 0, 50, 0);
        acct.free(cache, 300, held[0]);
        assertThat(Rows.values(Rows.global(acct, cache.name()))).containsExactly(2, 2, 350, 350, 0, 0, 2, 0, 0, 350, 0);
    }

    @Test
    void budgets_listenersUpAndDown_tryAllocRefuses_throwingListenerIsContained() {
        Budget perInstrument = acct.setBudget(cache, 1000);
        Budget alice = acct.setUserBudget("alice", 500);
        List<String> events = new ArrayList<>();
        acct.addBudgetListener((b, exceeded, used) -> events.add(b.kind() + ":" + b.target() + ":" + exceeded + ":" + used));
        acct.addBudgetListener((b, exceeded, used) -> {
            throw new IllegalStateException("listener bug");
        });
        try (OwnerScope s = acct.scope("alice", "h")) {
            Owner o1 = acct.alloc(cache, 400);
            Owner o2 = acct.alloc(cache, 200);            // alice over 500
            assertThat(alice.isExceeded()).isTrue();
            assertThat(acct.tryAlloc(cache, 1)).isNull(); // refused, nothing charged
            assertThat(alice.refusals()).isEqualTo(1);
            acct.free(cache, 200, o2);                    // back to 400
            assertThat(alice.isExceeded()).isFalse();
            Owner o3 = acct.tryAlloc(cache, 100);
            assertThat(o3).isNotNull();
            assertThat(acct.tryAlloc(cache, 1)).isNull();
            acct.free(cache, 100, o3);
            acct.free(cache, 400, o1);
        }
        try (OwnerScope s = acct.scope("bob", "h")) {
            Owner big = acct.alloc(cache, 1500);          // instrument over 1000
            assertThat(perInstrument.isExceeded()).isTrue();
            acct.free(cache, 1500, big);
        }
        assertThat(events).containsExactly("USER:alice:true:600", "USER:alice:false:400",
                "INSTRUMENT:memory/cache/entries:true:1500", "INSTRUMENT:memory/cache/entries:false:0");
        assertThat(alice.usedBytes()).isZero();
        // accounting intact despite the throwing listener
        SummaryRow g = Rows.global(acct, cache.name());
        assertThat(g.get(COUNT_ALLOC)).isEqualTo(4);
        assertThat(g.currentBytes()).isZero();
        // An aggregate HIGH is an upper bound: alice's ended owner left its capacity (600) on alice@h, bob's 1500
        // went to other nodes, so the global row says 2100 although at most 1500 were in use at once.
        assertThat(g.highBytes()).isEqualTo(2100);
        assertThat(Failures.messages()).anyMatch(m -> m.contains("listener bug"));
    }

    @Test
    void budgetStartsFromCurrentUsage() {
        try (OwnerScope s = acct.scope(null, "db")) {
            acct.alloc(cache, 300);
        }
        Budget host = acct.setHostBudget("db", 250);
        assertThat(host.usedBytes()).isEqualTo(300);
        try (OwnerScope s = acct.scope(null, "db")) {
            assertThat(acct.tryAlloc(cache, 1)).isNull();
        }
        assertThatThrownBy(() -> acct.setHostBudget("db", -1)).hasMessageContaining("must be 0..");
    }

    @Test
    void badInputIsCountedNeverThrown() {
        MemoryAccounting other = new MemoryAccounting();
        Instrument foreign = other.instrument("memory/x/y");
        Owner o = acct.alloc(cache, 10);
        assertThat(acct.alloc(cache, -1)).isSameAs(Owner.NONE);
        assertThat(acct.alloc(cache, MemoryAccounting.MAX_SIZE + 1)).isSameAs(Owner.NONE);
        acct.free(cache, 11, o);                 // more than allocated
        acct.free(cache, 1, null);               // unknown owner
        acct.free(cache, 1, other.alloc(foreign, 1)); // foreign owner
        acct.free(cache, 1, Owner.GLOBAL);       // global owner on a per-owner instrument
        assertThat(acct.alloc(foreign, 1)).isSameAs(Owner.NONE);  // unregistered here
        assertThat(acct.alloc(null, 1)).isSameAs(Owner.NONE);
        SummaryRow g = Rows.global(acct, cache.name());
        assertThat(g.get(COUNT_ANOMALIES)).isEqualTo(6);
        assertThat(g.currentBytes()).isEqualTo(10);
        assertThat(Rows.global(acct, MemoryAccounting.INVALID_INSTRUMENT).get(COUNT_ANOMALIES)).isEqualTo(2);
        Rows.onThread("t", () -> acct.free(cache, 11, o)); // remote over-free: counted when the owner applies it
        acct.alloc(cache, 1);
        assertThat(cache.anomalies()).isEqualTo(7);
        assertThat(Rows.global(acct, cache.name()).currentBytes()).isEqualTo(11);
    }

    @Test
    void strictModeThrowsWithAClearMessage() {
        Owner o = acct.alloc(cache, 10);
        acct.setStrict(true);
        assertThatThrownBy(() -> acct.free(cache, 11, o)).isInstanceOf(MemscopeException.class)
                .hasMessageContaining("free of 11 bytes").hasMessageContaining("holds only 10 bytes");
        acct.setStrict(false);
        Failures.setStrict(true);
        assertThatThrownBy(() -> acct.alloc(cache, -5)).isInstanceOf(MemscopeException.class)
                .hasMessageContaining("alloc of -5 bytes on memory/cache/entries");
        assertThatThrownBy(() -> acct.free(cache, 1, null)).hasMessageContaining("null owner");
    }

    @Test
    void threadEndIsDetectedWithoutExplicitCalls() {
        AtomicReference<Owner> o = new AtomicReference<>();
        for (int i = 0; i < 200; i++) {
            Rows.onThread("short-" + i, () -> o.set(acct.alloc(cache, 1)));
        }
        assertThat(acct.threadCount()).isZero(); // all 200 ended and were aggregated
        assertThat(Rows.global(acct, cache.name()).get(CURRENT_COUNT_USED)).isEqualTo(200);
        acct.free(cache, 1, o.get());
        assertThat(Rows.global(acct, cache.name()).get(CURRENT_COUNT_USED)).isEqualTo(199);
    }
}
