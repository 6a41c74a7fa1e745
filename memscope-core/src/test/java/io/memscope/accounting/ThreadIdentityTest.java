package io.memscope.accounting;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.memscope.accounting.Column.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alloc fast path finds the current thread's record in a slot keyed by thread id instead of the ThreadLocal:
 * threads sharing a slot, a Thread subclass lying about its id, and ended threads must not mix up records.
 */
@Timeout(30)
class ThreadIdentityTest {
    private final MemoryAccounting acct = new MemoryAccounting();
    private final Instrument inst = acct.instrument("memory/identity/blocks");

    private static int slot(Thread t) {
        return (int) ThreadIds.of(t) & (ThreadRecords.RECORD_SLOTS - 1);
    }

    /** Thread {@code holder} allocates and parks until released; its record then owns its slot. */
    private final class Holder {
        final CountDownLatch allocated = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<Owner> owner = new AtomicReference<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread thread = new Thread(() -> {
            try {
                owner.set(acct.alloc(inst, 100));
                allocated.countDown();
                release.await(20, TimeUnit.SECONDS);
                acct.alloc(inst, 1);   // applies what was queued for it, then a local alloc
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "holder");

        void start() throws InterruptedException {
            thread.start();
            assertThat(allocated.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(acct.threads.slots[slot(thread)]).as("the holder owns its slot").isNotNull();
            assertThat(acct.threads.slots[slot(thread)].threadId).isEqualTo(ThreadIds.of(thread));
        }

        void finish() throws InterruptedException {
            release.countDown();
            thread.join(10_000);
            assertThat(thread.isAlive()).isFalse();
            assertThat(failure.get()).isNull();
        }
    }

    private SummaryRow row(String threadName) {
        List<SummaryRow> rows = new ArrayList<>();
        for (SummaryRow r : acct.summary(SummaryTable.THREAD)) {
            if (threadName.equals(r.threadName()) && r.eventName().equals(inst.name())) {
                rows.add(r);
            }
        }
        assertThat(rows).as("rows of " + threadName).hasSize(1);
        return rows.get(0);
    }

    /** Starts {@code t} (whose body ends by waiting on {@code release}) and waits for {@code done}. */
    private static void runUntilParked(Thread t, CountDownLatch done) throws InterruptedException {
        t.start();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private static void await(CountDownLatch release) {
        try {
            release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aThreadWhoseSlotIsTakenByAnotherLiveThreadUsesItsOwnRecord() throws Exception {
        Holder holder = new Holder();
        holder.start();
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread other = null;
        for (int i = 0; i < 4 * ThreadRecords.RECORD_SLOTS && other == null; i++) {
            Thread t = new Thread(() -> {
                Owner o = null;
                for (int n = 0; n < 7; n++) {
                    o = acct.alloc(inst, 10);
                }
                for (int n = 0; n < 3; n++) {
                    acct.free(inst, 10, o);
                }
                done.countDown();
                await(release);
            }, "colliding");
            if (slot(t) == slot(holder.thread)) {
                other = t;
            }
        }
        assertThat(other).as("a thread id in the holder's slot").isNotNull();
        runUntilParked(other, done);
        assertThat(acct.threads.slots[slot(holder.thread)].threadId).as("slot unchanged")
                .isEqualTo(ThreadIds.of(holder.thread));
        SummaryRow c = row("colliding");
        assertThat(c.threadId()).isEqualTo(ThreadIds.of(other));
        assertThat(c.get(COUNT_ALLOC)).isEqualTo(7);
        assertThat(c.get(COUNT_FREE)).isEqualTo(3);
        assertThat(c.get(HIGH_NUMBER_OF_BYTES_USED)).isEqualTo(70);
        assertThat(c.currentBytes()).isEqualTo(40);
        SummaryRow h = row("holder");
        assertThat(h.get(COUNT_ALLOC)).isEqualTo(1);
        assertThat(h.currentBytes()).isEqualTo(100);
        release.countDown();
        other.join(10_000);
        holder.finish();
    }

    @Test
    void aThreadThatOverridesGetIdCannotUseAnotherThreadsRecord() throws Exception {
        Holder holder = new Holder();
        holder.start();
        long victimId = ThreadIds.of(holder.thread);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        @SuppressWarnings("deprecation")
        Thread liar = new Thread("liar") {
            @Override
            public long getId() {
                return victimId;
            }

            @Override
            public void run() {
                try {
                    Owner o = acct.alloc(inst, 5);
                    acct.alloc(inst, 5);
                    acct.free(inst, 5, o);
                    acct.free(inst, 100, holder.owner.get());   // the victim's memory: a remote free
                } catch (Throwable e) {
                    failure.set(e);
                }
                done.countDown();
                await(release);
            }
        };
        runUntilParked(liar, done);
        assertThat(failure.get()).isNull();
        SummaryRow l = row("liar");
        assertThat(l.get(COUNT_ALLOC)).isEqualTo(2);
        assertThat(l.get(COUNT_FREE)).isEqualTo(1);
        assertThat(l.currentBytes()).isEqualTo(5);
        assertThat(l.get(HIGH_NUMBER_OF_BYTES_USED)).isEqualTo(10);
        SummaryRow h = row("holder");
        assertThat(h.get(COUNT_ALLOC)).isEqualTo(1);
        assertThat(h.get(COUNT_FREE)).as("queued to the holder, shown at once").isEqualTo(1);
        assertThat(h.currentBytes()).isZero();
        assertThat(h.get(HIGH_NUMBER_OF_BYTES_USED)).isEqualTo(100);
        release.countDown();
        liar.join(10_000);
        holder.finish();
        assertThat(inst.anomalies()).isZero();
    }

    @Test
    void anEndedThreadsSlotIsFreedWhenItsRecordIsAggregated() throws Exception {
        Thread[] self = new Thread[1];
        Rows.onThread("short-lived", () -> {
            self[0] = Thread.currentThread();
            acct.free(inst, 8, acct.alloc(inst, 8));
            acct.alloc(inst, 16);
        });
        int slot = slot(self[0]);
        assertThat(acct.threads.slots[slot]).isNotNull();
        assertThat(acct.threadCount()).isZero();   // reaps: aggregates the ended thread into the global row
        assertThat(acct.threads.slots[slot]).isNull();
        SummaryRow g = Rows.global(acct, inst.name());
        assertThat(g.get(COUNT_ALLOC)).isEqualTo(2);
        assertThat(g.currentBytes()).isEqualTo(16);
        assertThat(g.get(HIGH_NUMBER_OF_BYTES_USED)).isEqualTo(16);
    }
}
