package io.memscope.internal.store;

import static io.memscope.MemoryEventType.ALLOCATE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The record() fast paths: the by-thread-id slot (threads whose ids collide in it share nothing), and the
 * context table's hash index (many contexts, rehashing, exact fields back).
 */
@Timeout(60)
class BufferLookupTest {

    @SuppressWarnings("deprecation")
    @Test
    void threadsWhoseIdsShareASlotKeepTheirOwnEvents() throws Exception {
        EventStore store = EventStore.unbounded();
        int perThread = 20_000;
        CountDownLatch go = new CountDownLatch(1);
        Runnable work = () -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            long id = Thread.currentThread().getId();
            for (int i = 0; i < perThread; i++) {
                store.record(ALLOCATE, id << 32 | i, 8, 0, 1 + (i & 7), 0, 0, 0);
            }
        };
        Thread a = new Thread(work, "slot-a");
        Thread b = new Thread(work, "slot-b");
        int made = 0;
        while ((b.getId() & 255) != (a.getId() & 255)) {   // thread ids are assigned at construction
            b = new Thread(work, "slot-b");
            assertThat(++made).isLessThan(10_000);
        }
        a.start();
        b.start();
        go.countDown();
        a.join();
        b.join();
        Snapshot s = store.snapshot();
        assertThat(s.size()).isEqualTo(2 * perThread);
        long[] next = new long[2];
        SnapshotCursor c = s.cursor();
        while (c.next()) {
            int who = c.threadId() == a.getId() ? 0 : 1;
            assertThat(c.threadId()).isIn(a.getId(), b.getId());
            assertThat(c.address()).isEqualTo(c.threadId() << 32 | next[who]);
            assertThat(c.siteId()).isEqualTo(1 + (int) (next[who] & 7));
            assertThat(c.threadName()).isEqualTo(who == 0 ? "slot-a" : "slot-b");
            next[who]++;
        }
        assertThat(next).containsExactly(perThread, perThread);

        // Both ended: their buffers are released (and their slot cleared) once drained.
        store.clear();
        assertThat(store.registeredBuffers()).isZero();
        Thread c2 = new Thread(() -> store.record(ALLOCATE, 1, 8, 0, 0, 0, 0, 0));
        c2.start();
        c2.join();
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void manyContextsRehashAndKeepEveryField() {
        EventStore store = EventStore.unbounded();
        int n = 5_000;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < n; i++) {
                store.record(ALLOCATE, i, 8, i % 3 == 0 ? (1L << 40) + i : i % 5, i, (long) i * 0x9E3779B97F4A7C15L,
                        i % 11, i % 13);
            }
        }
        Snapshot s = store.snapshot();
        assertThat(s.size()).isEqualTo(3 * n);
        SnapshotCursor c = s.cursor();
        int k = 0;
        while (c.next()) {
            int i = k++ % n;
            assertThat(c.address()).isEqualTo(i);
            assertThat(c.previousSize()).isEqualTo(i % 3 == 0 ? (1L << 40) + i : i % 5);
            assertThat(c.siteId()).isEqualTo(i);
            assertThat(c.stackId()).isEqualTo((long) i * 0x9E3779B97F4A7C15L);
            assertThat(c.typeNameId()).isEqualTo(i % 11);
            assertThat(c.variableNameId()).isEqualTo(i % 13);
        }
    }
}
