package io.memscope.internal.store;

import io.memscope.recording.EventSink;
import io.memscope.internal.error.Failures;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;



import static io.memscope.MemoryEventType.ALLOCATE;
import static io.memscope.MemoryEventType.REALLOCATE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many recording threads (short-lived, in waves), with drains, snapshots and clears running at the same time.
 * Every event encodes (thread, sequence) in its address and derives its other fields from them, so a lost,
 * duplicated or half-written event is detected.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EventStoreStressTest {
    private static final int WRITERS = 6;
    private static final int WAVES = 20;
    private static final int PER_THREAD = 5_000;

    @BeforeEach
    void strict() {
        Failures.setStrict(false);
        Failures.reset();
    }

    private static long address(int writer, long seq) {
        return ((long) writer << 40) | seq;
    }

    private static void recordOne(EventStore store, int writer, long seq) {
        // several contexts per thread (site, stack), previous size sometimes above int range
        long previous = seq % 11 == 0 ? (1L << 33) + seq : seq;
        store.record(seq % 2 == 0 ? ALLOCATE : REALLOCATE, address(writer, seq), seq * 3 + writer, previous,
                (int) (seq % 7) + 1, seq % 5, 0, 0);
    }

    /** Checks an event is whole: every field derives from its address (plain code: it runs per event). */
    private static void checkWhole(long ts, io.memscope.MemoryEventType type, long a, long size, long previous,
                                   int site, long stack) {
        int writer = (int) (a >>> 40);
        long seq = a & ((1L << 40) - 1);
        if (type != (seq % 2 == 0 ? ALLOCATE : REALLOCATE) || size != seq * 3 + writer
                || previous != (seq % 11 == 0 ? (1L << 33) + seq : seq) || site != (int) (seq % 7) + 1
                || stack != seq % 5) {
            throw new AssertionError("half-written or mixed event: address " + Long.toHexString(a) + " type "
                    + type + " size " + size + " previous " + previous + " site " + site + " stack " + stack);
        }
    }

    /** Drained events by writer (address bits 40+) and sequence (low 40 bits), each checked whole; repeats counted. */
    private static final class Seen implements EventSink {
        final BitSet[] seen = new BitSet[WRITERS];
        long duplicates;

        Seen() {
            for (int w = 0; w < WRITERS; w++) {
                seen[w] = new BitSet();
            }
        }

        @Override
        public void accept(io.memscope.recording.EventView e) {
            long a = e.address();
            checkWhole(e.timestampNanos(), e.type(), a, e.size(), e.previousSize(), e.siteId(), e.stackId());
            int w = (int) (a >>> 40);
            int seq = (int) (a & ((1L << 40) - 1));
            if (seen[w].get(seq)) {
                duplicates++;
            }
            seen[w].set(seq);
        }
    }

    @Test
    void concurrentDrainsHandOutEveryEventExactlyOnce() throws Exception {
        EventStore store = EventStore.unbounded();
        Seen collector = new Seen();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] drained = new long[1];
        java.util.concurrent.atomic.AtomicLong rounds = new java.util.concurrent.atomic.AtomicLong();
        Thread drainer = new Thread(() -> {
            try {
                while (!done.get()) {
                    drained[0] += store.drainTo(collector);
                    if (rounds.incrementAndGet() % 16 != 0) {
                        continue;
                    }
                    Snapshot s = store.snapshot(); // snapshots meanwhile: sorted and whole
                    long prev = Long.MIN_VALUE;
                    for (int i = 0; i < s.size(); i++) {
                        assertThat(s.timestampAt(i)).isGreaterThanOrEqualTo(prev);
                        prev = s.timestampAt(i);
                    }
                    s.forEach(io.memscope.recording.FieldSink.of((ts, type, a, size, p, th, tn, vn, tyn, stack, site) ->
                            checkWhole(ts, type, a, size, p, site, stack)));
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        drainer.start();
        int waves = runWaves(store, null, () -> rounds.get() >= 1000);
        done.set(true);
        drainer.join();
        assertThat(failure.get()).isNull();
        drained[0] += store.drainTo(collector);
        long total = (long) WRITERS * waves * PER_THREAD;
        assertThat(rounds.get()).as("drains while recording").isGreaterThanOrEqualTo(100);
        assertThat(collector.duplicates).isZero();
        assertThat(drained[0]).isEqualTo(total);
        for (int w = 0; w < WRITERS; w++) {
            assertThat(collector.seen[w].cardinality()).isEqualTo(waves * PER_THREAD);
        }
        assertThat(store.size()).isZero();
        assertThat(store.dropped()).isZero();
        assertThat(store.registeredBuffers()).as("dead threads' buffers released").isZero();
        assertThat(Failures.total()).isZero();
    }

    @Test
    void boundedStoresAccountForEveryEventUnderConcurrentDrains() throws Exception {
        for (OverflowPolicy policy : OverflowPolicy.values()) {
            EventStore store = EventStore.builder().capacityEvents(5_000).overflow(policy).build();
            Seen collector = new Seen();
            long[] drained = new long[1];
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            java.util.concurrent.atomic.AtomicLong rounds = new java.util.concurrent.atomic.AtomicLong();
            Thread drainer = new Thread(() -> {
                try {
                    while (!done.get()) {
                        drained[0] += store.drainTo(collector);
                        long size = store.size();
                        if (size > 5_000) {
                            throw new AssertionError("bounded store holds " + size + " events");
                        }
                        rounds.incrementAndGet();
                        Thread.yield(); // let the writers fill it up
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            drainer.start();
            int waves = runWaves(store, null, () -> rounds.get() >= 300);
            done.set(true);
            drainer.join();
            assertThat(failure.get()).isNull();
            drained[0] += store.drainTo(collector);
            long total = (long) WRITERS * waves * PER_THREAD;
            assertThat(collector.duplicates).as(policy.name()).isZero();
            assertThat(drained[0] + store.dropped()).as(policy.name() + ": drained + dropped").isEqualTo(total);
            assertThat(store.dropped()).as(policy.name()).isGreaterThan(0);
            assertThat(store.size()).isZero();
        }
    }

    @Test
    void clearDuringRecordRemovesExactlyWhatCameBefore() throws Exception {
        EventStore store = EventStore.unbounded();
        AtomicLongArray progress = new AtomicLongArray(WRITERS); // events whose record() returned, per writer
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicLong clears = new java.util.concurrent.atomic.AtomicLong();
        Thread clearer = new Thread(() -> {
            try {
                while (!done.get()) {
                    long[] before = new long[WRITERS];
                    for (int w = 0; w < WRITERS; w++) {
                        before[w] = progress.get(w);
                    }
                    store.clear();
                    clears.incrementAndGet();
                    checkAfterClear(store.snapshot(), before);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        clearer.start();
        runWaves(store, progress, () -> clears.get() >= 1000);
        done.set(true);
        clearer.join();
        assertThat(failure.get()).isNull();
        assertThat(clears.get()).as("clears while recording").isGreaterThanOrEqualTo(100);
        // quiescent: what is left is, per writer, exactly a suffix of its sequence, and size() agrees
        Snapshot rest = store.snapshot();
        assertThat(store.size()).isEqualTo(rest.size());
        long[] ends = new long[WRITERS];
        for (int w = 0; w < WRITERS; w++) {
            ends[w] = progress.get(w);
        }
        long[] min = checkAfterClear(rest, new long[WRITERS]);
        long expected = 0;
        for (int w = 0; w < WRITERS; w++) {
            expected += min[w] == Long.MAX_VALUE ? 0 : ends[w] - min[w];
        }
        assertThat(rest.size()).isEqualTo(expected);
        store.clear();
        assertThat(store.size()).isZero();
        assertThat(store.snapshot().size()).isZero();
        assertThat(Failures.total()).isZero();
    }

    /**
     * Per writer, the surviving events must be a gap-free run of sequence numbers starting at or after what had
     * returned before the clear, each whole. @return per writer the smallest surviving sequence number
     */
    private static long[] checkAfterClear(Snapshot s, long[] before) {
        long[] min = new long[WRITERS];
        long[] max = new long[WRITERS];
        long[] count = new long[WRITERS];
        java.util.Arrays.fill(min, Long.MAX_VALUE);
        java.util.Arrays.fill(max, -1);
        s.forEach(io.memscope.recording.FieldSink.of((ts, type, a, size, p, th, tn, vn, tyn, stack, site) -> {
            checkWhole(ts, type, a, size, p, site, stack);
            int w = (int) (a >>> 40);
            long seq = a & ((1L << 40) - 1);
            min[w] = Math.min(min[w], seq);
            max[w] = Math.max(max[w], seq);
            count[w]++;
        }));
        for (int w = 0; w < WRITERS; w++) {
            if (count[w] > 0) {
                assertThat(min[w]).as("writer %d: an event recorded before clear() survived", w)
                        .isGreaterThanOrEqualTo(before[w]);
                assertThat(max[w] - min[w] + 1).as("writer %d: gap or duplicate", w).isEqualTo(count[w]);
            }
        }
        return min;
    }

    /**
     * At least WAVES waves of WRITERS fresh threads, more until {@code enough} says the concurrent remover has
     * run enough rounds (at most 50 * WAVES); writer w continues the sequence of the previous wave's writer w.
     *
     * @return the number of waves run
     */
    private static int runWaves(EventStore store, AtomicLongArray progress, java.util.function.BooleanSupplier enough)
            throws InterruptedException {
        int wave = 0;
        for (; wave < WAVES || (!enough.getAsBoolean() && wave < 50 * WAVES); wave++) {
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                long first = (long) wave * PER_THREAD;
                threads.add(new Thread(() -> {
                    for (long seq = first; seq < first + PER_THREAD; seq++) {
                        recordOne(store, writer, seq);
                        if (progress != null) {
                            progress.set(writer, seq + 1);
                        }
                    }
                }, "writer-" + w + "-wave-" + wave));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
        }
        return wave;
    }
}
