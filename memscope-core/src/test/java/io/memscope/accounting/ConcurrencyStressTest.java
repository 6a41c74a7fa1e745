package io.memscope.accounting;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.memscope.accounting.Column.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads allocate, free their own and each other's memory, change accounts and end mid-way (leaving memory
 * allocated) while a reader reads the tables; at the end every total is conserved in the global row.
 */
@Timeout(60)
class ConcurrencyStressTest {
    private static final String[] USERS = {"t1", "t2", "t3", null};

    @Test
    void totalsAreConservedWhileThreadsComeAndGo() throws Exception {
        MemoryAccounting acct = new MemoryAccounting();
        Instrument inst = acct.instrument("memory/stress/blocks");
        Instrument shared = acct.globalInstrument("memory/stress/shared");
        ConcurrentLinkedQueue<Object[]> handedOver = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Object[]> leftBehind = new ConcurrentLinkedQueue<>();
        AtomicLong allocs = new AtomicLong();
        AtomicLong allocBytes = new AtomicLong();
        AtomicLong frees = new AtomicLong();
        AtomicLong freeBytes = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();

        Thread reader = new Thread(() -> {
            while (!stop.get()) {
                try {
                    for (SummaryTable t : SummaryTable.values()) {
                        for (SummaryRow r : acct.summary(t)) {
                            assertThat(r.get(COUNT_ALLOC)).isNotNegative();
                            assertThat(r.get(SUM_NUMBER_OF_BYTES_FREE)).isNotNegative();
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }
        });
        reader.start();

        int generations = 6;
        int perGeneration = 3;
        for (int g = 0; g < generations; g++) {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < perGeneration; i++) {
                long seed = g * 100L + i;
                threads.add(new Thread(() -> {
                    try {
                        Random rnd = new Random(seed);
                        List<Object[]> mine = new ArrayList<>();
                        OwnerScope scope = acct.scope(USERS[rnd.nextInt(USERS.length)], "h" + rnd.nextInt(2));
                        for (int n = 0; n < 20_000; n++) {
                            int op = rnd.nextInt(10);
                            if (op < 4 || mine.isEmpty()) {
                                long size = rnd.nextInt(512);
                                Owner o = acct.alloc(inst, size);
                                allocs.incrementAndGet();
                                allocBytes.addAndGet(size);
                                mine.add(new Object[] {o, size});
                            } else if (op < 7) {
                                Object[] a = mine.remove(mine.size() - 1);
                                acct.free(inst, (Long) a[1], (Owner) a[0]);
                                frees.incrementAndGet();
                                freeBytes.addAndGet((Long) a[1]);
                            } else if (op < 8) {
                                Object[] a = mine.remove(rnd.nextInt(mine.size()));
                                handedOver.add(a);
                            } else if (op < 9) {
                                Object[] h = handedOver.poll();
                                if (h != null) {
                                    acct.free(inst, (Long) h[1], (Owner) h[0]);
                                    frees.incrementAndGet();
                                    freeBytes.addAndGet((Long) h[1]);
                                }
                            } else if (rnd.nextInt(50) == 0) {
                                scope.close();
                                scope = acct.scope(USERS[rnd.nextInt(USERS.length)], "h" + rnd.nextInt(2));
                            } else {
                                acct.free(shared, 0, acct.alloc(shared, 64));
                            }
                        }
                        leftBehind.addAll(mine); // this thread ends holding memory
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "stress-" + g + "-" + i));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(30_000);
                assertThat(t.isAlive()).isFalse();
            }
        }
        stop.set(true);
        reader.join(10_000);
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertThat(acct.threadCount()).isZero();
        long held = 0;
        for (Object[] a : leftBehind) {
            held += (Long) a[1];
        }
        for (Object[] h : handedOver) {
            held += (Long) h[1];
        }
        SummaryRow g = Rows.global(acct, inst.name());
        assertThat(inst.anomalies()).as(io.memscope.internal.error.Failures.messages().toString()).isZero();
        assertThat(g.get(COUNT_ALLOC)).isEqualTo(allocs.get());
        assertThat(g.get(COUNT_FREE)).isEqualTo(frees.get());
        assertThat(g.get(SUM_NUMBER_OF_BYTES_ALLOC)).isEqualTo(allocBytes.get());
        assertThat(g.get(SUM_NUMBER_OF_BYTES_FREE)).isEqualTo(freeBytes.get());
        assertThat(g.currentBytes()).isEqualTo(held);
        assertThat(g.get(CURRENT_COUNT_USED)).isEqualTo(leftBehind.size() + handedOver.size());
        assertThat(g.highBytes()).isGreaterThanOrEqualTo(held);
        assertThat(inst.anomalies()).isZero();
        // the tables add up: hosts h0 + h1 are every owner
        long hostsCurrent = acct.summary(SummaryTable.HOST).stream().mapToLong(SummaryRow::currentBytes).sum();
        assertThat(hostsCurrent).isEqualTo(held);
        // free what the ended threads left behind, from this thread, through their handles
        for (Object[] a : leftBehind) {
            acct.free(inst, (Long) a[1], (Owner) a[0]);
        }
        for (Object[] h : handedOver) {
            acct.free(inst, (Long) h[1], (Owner) h[0]);
        }
        g = Rows.global(acct, inst.name());
        assertThat(g.currentBytes()).isZero();
        assertThat(g.get(CURRENT_COUNT_USED)).isZero();
        assertThat(inst.anomalies()).isZero();
        for (SummaryRow r : acct.summary(SummaryTable.USER)) {
            assertThat(r.currentBytes()).as(r.toString()).isZero();
        }
        SummaryRow s = Rows.global(acct, shared.name());
        assertThat(s.get(COUNT_ALLOC)).isEqualTo(s.get(COUNT_FREE));
        assertThat(s.get(HIGH_COUNT_USED)).isBetween(1L, (long) perGeneration);
    }
}
