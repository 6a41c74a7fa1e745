package io.memscope.events;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Memory ordering under stress: writers publish counters whose value equals their timestamp and whose sequence
 * is contiguous; several readers poll concurrently (in this process, read-only). A torn or stale record would
 * show as value != timestamp, a gap not reported as loss, or a repeat. Every reader must account for every
 * event exactly: delivered + lost == written, per writer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StressTest {
    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        RuntimeEvents.stop();
    }

    @Test
    void concurrentReadersSeeOnlyWholeRecordsAndCountEveryLoss() throws Exception {
        RuntimeEvents.start(EventsSettings.fromMap(Map.of()).withDirectory(tmp).withRingSize(4096).withSlots(8));
        Counter counter = RuntimeEvents.counter("stress");
        UserEvent<Long> custom = RuntimeEvents.register("stress.long", EventType.LONG);
        int writers = 2;
        int perWriter = 300_000;
        AtomicBoolean done = new AtomicBoolean();
        List<Thread> ws = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            Thread t = new Thread(() -> {
                for (long i = 0; i < perWriter; i++) {
                    if ((i & 7) == 7) {
                        custom.writeLong(i); // different record kind interleaved: same sequence numbers
                    } else {
                        counter.set(i, i);
                    }
                }
            }, "stress-writer-" + w);
            ws.add(t);
        }
        int readers = 3;
        List<Checker> checkers = new ArrayList<>();
        List<Thread> rs = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            Checker c = new Checker();
            checkers.add(c);
            Thread t = new Thread(() -> {
                try (EventCursor cursor = EventCursor.openCurrent()) {
                    while (!done.get()) {
                        cursor.poll(c);
                    }
                    cursor.poll(c);
                } catch (Throwable e) {
                    c.failure = e;
                }
            }, "stress-reader-" + r);
            rs.add(t);
        }
        rs.forEach(Thread::start);
        ws.forEach(Thread::start);
        for (Thread t : ws) {
            t.join();
        }
        done.set(true);
        for (Thread t : rs) {
            t.join();
        }
        for (Checker c : checkers) {
            assertThat(c.failure).isNull();
            assertThat(c.errors).isEmpty();
            assertThat(c.next).hasSize(writers);
            for (long tid : c.next.keySet()) {
                assertThat(c.next.get(tid)).as("events seen or lost by a reader").isEqualTo(perWriter);
            }
        }
    }

    /** Checks each thread's values arrive in order with gaps equal to reported losses. */
    static final class Checker implements EventCursor.Callbacks {
        final Map<Long, Long> next = new ConcurrentHashMap<>();
        final List<String> errors = new ArrayList<>();
        volatile Throwable failure;

        @Override
        public void counter(long tid, long ts, String name, long value) {
            if (ts != value) {
                errors.add("torn record: ts " + ts + " value " + value);
            }
            see(tid, value);
        }

        @Override
        public void custom(long tid, long ts, String name, String type, java.nio.ByteBuffer payload) {
            long v = payload.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0);
            see(tid, v);
        }

        @Override
        public void lost(long tid, long count) {
            next.merge(tid, count, Long::sum);
        }

        private void see(long tid, long value) {
            long expected = next.getOrDefault(tid, 0L);
            if (value != expected && errors.size() < 10) {
                errors.add("thread " + tid + ": value " + value + " where " + expected + " was expected");
            }
            next.put(tid, value + 1);
        }
    }
}
