package io.memscope.events;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread slot reused by several short-lived threads between two polls of a cursor: every event keeps the thread
 * that wrote it, or is counted lost, never attributed to another thread; and a reaper that acts on a thread that
 * ended long ago never retires the slot of the thread that owns it now.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SlotReuseTest {
    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        RuntimeEvents.stop();
    }

    private EventsSettings settings(int slots) {
        return EventsSettings.fromMap(Map.of()).withDirectory(tmp.resolve("ev")).withRingSize(4096)
                .withSlots(slots).withPreserve(true).withGraceMillis(0);
    }

    private static Thread run(Runnable r, String name) throws InterruptedException {
        Thread t = new Thread(r, name);
        t.start();
        t.join();
        return t;
    }

    /** Regression: the cursor kept one pending generation, so b's event (between a and d) was attributed to a. */
    @Test
    void aSlotReusedTwiceBetweenPollsKeepsEachEventsThread() throws Exception {
        RuntimeEvents.start(settings(1));
        Counter c = RuntimeEvents.counter("reuse");
        List<Long> tids = new ArrayList<>();
        EventCursor.Callbacks byThread = new EventCursor.Callbacks() {
            @Override
            public void counter(long tid, long ts, String name, long value) {
                tids.add(tid);
            }
        };
        try (EventCursor cursor = EventCursor.openCurrent()) {
            Thread a = run(() -> c.set(1), "writer-a");
            assertThat(cursor.poll(byThread)).isEqualTo(1);
            RuntimeEvents.reapOnce();
            Thread b = run(() -> c.set(2), "writer-b");
            RuntimeEvents.reapOnce(); // the slot goes from a to b to d before the cursor looks again
            Thread d = run(() -> c.set(3), "writer-d");
            assertThat(cursor.poll(byThread)).isEqualTo(2);
            assertThat(tids).containsExactly(a.getId(), b.getId(), d.getId());
            assertThat(cursor.threadName(b.getId())).isEqualTo("writer-b");
        }
    }

    /**
     * A new cursor opening a slot whose ring still holds records of the slot's earlier owners attributes them to
     * those owners (the previous one from the slot header) or counts them lost (older ones), never to the current one.
     */
    @Test
    void aNewCursorAttributesEarlierGenerationsRecordsToTheirThreads() throws Exception {
        RuntimeEvents.start(settings(1));
        Counter c = RuntimeEvents.counter("reuse");
        List<long[]> seen = new ArrayList<>();
        Thread a = run(() -> c.set(1), "writer-a");
        RuntimeEvents.reapOnce();
        Thread b = run(() -> c.set(2), "writer-b");
        RuntimeEvents.reapOnce();
        Thread d = run(() -> c.set(3), "writer-d");
        long[] lost = new long[1];
        try (EventCursor cursor = EventCursor.openCurrent()) {
            cursor.poll(new EventCursor.Callbacks() {
                @Override
                public void counter(long tid, long ts, String name, long value) {
                    seen.add(new long[] {tid, value});
                }

                @Override
                public void lost(long tid, long count) {
                    lost[0] += count;
                }
            });
        }
        assertThat(lost[0]).isEqualTo(1); // a's event: its generation is no longer described by the slot header
        assertThat(seen).hasSize(2);
        assertThat(seen.get(0)).containsExactly(b.getId(), 2);
        assertThat(seen.get(1)).containsExactly(d.getId(), 3);
        assertThat(a.getId()).isNotIn(b.getId(), d.getId());
    }

    /**
     * Regression: two reapers (the background one and a direct call, or the old and the new one across a restart)
     * both found a's ended thread and both retired its slot: the second retired b's slot while b was alive, and
     * with no grace period d was handed the ring b was writing.
     */
    @Test
    void aStaleRetireLeavesTheSlotsNewOwnerActive() throws Exception {
        RuntimeEvents.start(settings(1));
        EventsProducer p = RuntimeEvents.producer();
        Counter c = RuntimeEvents.counter("reuse");
        RingWriter[] wa = new RingWriter[1];
        run(() -> {
            c.set(1);
            wa[0] = p.writer();
        }, "writer-a");
        EventsFile f = wa[0].file;
        f.retire(wa[0]);
        f.freeExpired(0);
        RingWriter[] wb = new RingWriter[1];
        run(() -> {
            c.set(2);
            wb[0] = p.writer();
        }, "writer-b");
        assertThat(wb[0].slot).isEqualTo(wa[0].slot);
        f.retire(wa[0]); // a's retirement again, late
        f.freeExpired(0);
        long state = (long) RingLayout.LONG.getVolatile(f.buf, f.slotBase(wb[0].slot) + RingLayout.S_STATE);
        assertThat(state & 0xFF).isEqualTo(RingLayout.STATE_ACTIVE);
    }

    /**
     * Stress: short-lived threads, two slots, no grace period, two reapers racing and a cursor polling meanwhile;
     * each counter's value is the writing thread's id. Every event delivered must carry its writer's id, and
     * delivered + lost + dropped (no free slot) must equal written.
     */
    @Test
    void shortLivedThreadsRacingReapersAndAPollingCursorNeverMisattribute() throws Exception {
        RuntimeEvents.start(settings(2));
        Counter c = RuntimeEvents.counter("owner");
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong written = new AtomicLong();
        List<String> wrong = new ArrayList<>();
        long[] delivered = new long[1];
        long[] lost = new long[1];
        Throwable[] failure = new Throwable[1];
        EventCursor.Callbacks check = new EventCursor.Callbacks() {
            @Override
            public void counter(long tid, long ts, String name, long value) {
                delivered[0]++;
                if (tid != value && wrong.size() < 10) {
                    wrong.add("event of thread " + value + " attributed to " + tid);
                }
            }

            @Override
            public void lost(long tid, long count) {
                lost[0] += count;
            }
        };
        Thread reader = new Thread(() -> {
            try (EventCursor cursor = EventCursor.openCurrent()) {
                while (!done.get()) {
                    cursor.poll(check);
                    Thread.yield();
                }
                cursor.poll(check);
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, "reuse-reader");
        Thread reaper = new Thread(() -> {
            while (!done.get()) {
                RuntimeEvents.reapOnce();
                Thread.yield();
            }
        }, "reuse-reaper");
        reader.start();
        reaper.start();
        for (int round = 0; round < 1000; round++) {
            List<Thread> ts = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                Thread t = new Thread(() -> {
                    long id = Thread.currentThread().getId();
                    for (int i = 0; i < 3; i++) {
                        c.set(id);
                        written.incrementAndGet();
                        Thread.yield();
                    }
                }, "short-" + round + "-" + k);
                ts.add(t);
                t.start();
            }
            for (Thread t : ts) {
                t.join();
            }
        }
        done.set(true);
        reader.join();
        reaper.join();
        assertThat(failure[0]).isNull();
        assertThat(wrong).isEmpty();
        long dropped;
        try (EventCursor cursor = EventCursor.openCurrent()) {
            dropped = cursor.producerDropped();
        }
        assertThat(delivered[0] + lost[0] + dropped).isEqualTo(written.get());
        assertThat(delivered[0]).isPositive();
    }
}
