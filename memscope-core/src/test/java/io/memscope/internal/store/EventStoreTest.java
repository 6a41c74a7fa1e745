package io.memscope.internal.store;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.internal.error.Failures;
import io.memscope.error.MemscopeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.memscope.MemoryEventType.ALLOCATE;
import static io.memscope.MemoryEventType.DEALLOCATE;
import static io.memscope.MemoryEventType.REALLOCATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EventStoreTest {

    @BeforeEach
    void lenient() {
        Failures.setStrict(false);
        Failures.reset();
    }

    @AfterEach
    void reset() {
        Failures.reset();
    }

    @SuppressWarnings("deprecation")
    private static long currentThreadId() {
        return Thread.currentThread().getId();
    }

    @Test
    void keepsEveryFieldOfEveryEvent() {
        EventStore store = EventStore.unbounded();
        StringTable s = store.strings();
        int type = s.intern("byte[]");
        int variable = s.intern("buffer");
        store.record(ALLOCATE, 0x1000, 1024, 0, 7, 0xABCDEF0123L, type, variable);
        store.record(REALLOCATE, 0x2000, 4096, 1024, 7, 0xABCDEF0123L, type, variable);
        store.record(REALLOCATE, 0x3000, 1L << 40, 5_000_000_000L, 8, -1L, 0, 0); // previous size > int
        store.record(REALLOCATE, 0x4000, -5, -7, 0, 0, 0, 0);                     // odd input kept as given
        store.record(DEALLOCATE, 0x3000, 1L << 40, 0, 8, 0, 0, 0);

        assertThat(store.size()).isEqualTo(5);
        List<MemoryEvent> events = store.snapshot().asList();
        assertThat(events).hasSize(5);
        MemoryEvent a = events.get(0);
        assertThat(a.type()).isEqualTo(ALLOCATE);
        assertThat(a.address()).isEqualTo(0x1000);
        assertThat(a.size()).isEqualTo(1024);
        assertThat(a.siteId()).isEqualTo(7);
        assertThat(a.callStackHash()).isEqualTo(0xABCDEF0123L);
        assertThat(a.typeName()).isEqualTo("byte[]");
        assertThat(a.variableName()).isEqualTo("buffer");
        assertThat(a.threadId()).isEqualTo(currentThreadId());
        assertThat(a.threadName()).isEqualTo(Thread.currentThread().getName());
        assertThat(events.get(1).previousSize()).isEqualTo(1024);
        assertThat(events.get(2).previousSize()).isEqualTo(5_000_000_000L);
        assertThat(events.get(2).size()).isEqualTo(1L << 40);
        assertThat(events.get(2).callStackHash()).isEqualTo(-1L);
        assertThat(events.get(3).size()).isEqualTo(-5);
        assertThat(events.get(3).previousSize()).isEqualTo(-7);
        assertThat(events.get(4).type()).isEqualTo(DEALLOCATE);
        for (int i = 1; i < events.size(); i++) {
            assertThat(events.get(i).timestampNanos()).isGreaterThanOrEqualTo(events.get(i - 1).timestampNanos());
        }
    }

    @Test
    void manyDistinctContextsGrowTheContextTable() {
        EventStore store = EventStore.unbounded();
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            store.record(ALLOCATE, i, i, 0, i % 1000, i * 31L, i % 3, i % 7);
            store.record(DEALLOCATE, i, i, 0, i % 1000, i * 31L, i % 3, i % 7); // same context again
        }
        SnapshotCursor c = store.snapshot().cursor();
        int k = 0;
        while (c.next()) {
            int i = k++ / 2;
            assertThat(c.address()).isEqualTo(i);
            assertThat(c.siteId()).isEqualTo(i % 1000);
            assertThat(c.stackId()).isEqualTo(i * 31L);
            assertThat(c.typeNameId()).isEqualTo(i % 3);
            assertThat(c.variableNameId()).isEqualTo(i % 7);
        }
        assertThat(k).isEqualTo(2 * n);
    }

    @Test
    void recordsEventObjectsWithTheirOwnTimestampAndThread() {
        EventStore store = EventStore.unbounded();
        MemoryEvent e = new MemoryEvent(500, MemoryEventType.MOVE, 42, 8, 0, 99, "worker-9", "v", "T", 77, 3);
        store.record(e);
        store.record(e.withTimestamp(100).withThreadName(null));
        List<MemoryEvent> events = store.snapshot().asList();
        assertThat(events).containsExactly(e.withTimestamp(100).withThreadName(null), e);
    }

    @Test
    void sizeIsExactAsSoonAsRecordReturns() throws Exception {
        EventStore store = EventStore.unbounded();
        for (int i = 1; i <= 10_000; i++) {
            store.record(ALLOCATE, i, 16, 0, 1, 0, 0, 0);
            assertThat(store.size()).isEqualTo(i);
        }
        Thread t = new Thread(() -> {
            for (int i = 0; i < 5000; i++) {
                store.record(ALLOCATE, i, 16, 0, 1, 0, 0, 0);
            }
        });
        t.start();
        t.join();
        assertThat(store.size()).isEqualTo(15_000);
    }

    @Test
    void snapshotKeepsEventsInStoreAndIsImmutable() {
        EventStore store = EventStore.unbounded();
        for (int i = 0; i < 100; i++) {
            store.record(ALLOCATE, i, 16, 0, 1, 0, 0, 0);
        }
        Snapshot first = store.snapshot();
        assertThat(first.size()).isEqualTo(100);
        assertThat(store.size()).isEqualTo(100);
        store.record(DEALLOCATE, 1, 16, 0, 1, 0, 0, 0);
        store.clear();
        assertThat(first.size()).isEqualTo(100);
        assertThat(first.get(99).address()).isEqualTo(99);
        assertThat(store.snapshot().size()).isZero();
    }

    @Test
    void snapshotMergesThreadsInTimestampOrder() throws Exception {
        EventStore store = EventStore.unbounded();
        int threads = 4;
        int each = 20_000;
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts.add(new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    store.record(ALLOCATE, ((long) id << 32) | i, i, 0, id + 1, 0, 0, 0);
                }
            }));
        }
        ts.forEach(Thread::start);
        for (Thread t : ts) {
            t.join();
        }
        Snapshot s = store.snapshot();
        assertThat(s.size()).isEqualTo(threads * each);
        long[] next = new long[threads];
        long previous = Long.MIN_VALUE;
        SnapshotCursor c = s.cursor();
        while (c.next()) {
            assertThat(c.timestampNanos()).isGreaterThanOrEqualTo(previous);
            previous = c.timestampNanos();
            int thread = (int) (c.address() >>> 32);
            assertThat(c.address() & 0xFFFFFFFFL).isEqualTo(next[thread]++); // each thread's events in order
            assertThat(c.siteId()).isEqualTo(thread + 1);
        }
        assertThat(next).containsOnly(each);
    }

    @Test
    void outOfOrderTimestampsAreSortedInSnapshotAndDrain() {
        EventStore store = EventStore.unbounded();
        long[] stamps = {50, 10, 40, 40, 5, 70, 60, 1};
        for (long t : stamps) {
            store.record(new MemoryEvent(t, ALLOCATE, t, 1, 0, 1, null, null, null, 0, 0));
        }
        Snapshot s = store.snapshot();
        long[] sorted = stamps.clone();
        java.util.Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertThat(s.timestampAt(i)).isEqualTo(sorted[i]);
        }
        List<Long> drained = new ArrayList<>();
        assertThat(store.drainTo(io.memscope.recording.FieldSink.of((ts, type, a, sz, p, th, tn, vn, tyn, st, si) -> drained.add(ts))))
                .isEqualTo(stamps.length);
        assertThat(drained).isSorted().hasSize(stamps.length);
    }

    @Test
    void queriesFilterByTimeTypeThreadAddressAndSite() throws Exception {
        EventStore store = EventStore.unbounded();
        for (int i = 0; i < 1000; i++) {
            store.record(new MemoryEvent(i * 10L, i % 3 == 0 ? DEALLOCATE : ALLOCATE, i % 50, 8, 0,
                    i % 2 == 0 ? 1 : 2, null, null, null, 0, i % 5));
        }
        Snapshot s = store.snapshot();
        assertThat(s.between(100, 200).size()).isEqualTo(10);
        assertThat(s.between(100, 200).timestampAt(0)).isEqualTo(100);
        assertThat(s.between(200, 100).size()).isZero();
        assertThat(s.ofType(DEALLOCATE).size()).isEqualTo(334);
        assertThat(s.ofType(DEALLOCATE, ALLOCATE).size()).isEqualTo(1000);
        assertThat(s.onThread(2).size()).isEqualTo(500);
        assertThat(s.atAddress(7).size()).isEqualTo(20);
        assertThat(s.atSite(3).size()).isEqualTo(200);
        Snapshot combined = s.onThread(1).ofType(ALLOCATE).atSite(4).between(0, 5000);
        int expected = 0;
        for (int i = 0; i < 500; i++) {
            if (i % 2 == 0 && i % 3 != 0 && i % 5 == 4) {
                expected++;
            }
        }
        assertThat(combined.size()).isEqualTo(expected);
        combined.forEach(io.memscope.recording.FieldSink.of((ts, type, a, sz, p, th, tn, vn, tyn, st, si) -> {
            assertThat(ts).isLessThan(5000);
            assertThat(type).isEqualTo(ALLOCATE);
            assertThat(th).isEqualTo(1);
            assertThat(si).isEqualTo(4);
        }));
        assertThat(s.dropped()).isZero();
    }

    @Test
    void cursorIsAFlyweightMatchingGet() {
        EventStore store = EventStore.unbounded();
        int name = store.strings().intern("x");
        for (int i = 0; i < 5000; i++) {
            store.record(ALLOCATE, i, i * 2L, 0, i % 9, i % 4, name, 0);
        }
        Snapshot s = store.snapshot();
        SnapshotCursor c = s.cursor();
        assertThatThrownBy(c::address).isInstanceOf(IllegalStateException.class);
        int n = 0;
        while (c.next()) {
            MemoryEvent e = s.get(n);
            assertThat(c.toEvent()).isEqualTo(e);
            assertThat(c.index()).isEqualTo(n);
            assertThat(c.typeNameId()).isEqualTo(name);
            assertThat(c.stackId()).isEqualTo(e.callStackHash());
            n++;
        }
        assertThat(n).isEqualTo(5000);
        assertThat(c.next()).isFalse();
    }

    @Test
    void listViewIsRefusedForHugeSnapshots() {
        EventStore store = EventStore.unbounded();
        for (int i = 0; i <= Snapshot.MAX_LIST_EVENTS; i++) {
            store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
        }
        Snapshot s = store.snapshot();
        assertThatThrownBy(s::asList).isInstanceOf(MemscopeException.class)
                .hasMessageContaining("cursor()")
                .satisfies(e -> assertThat(((MemscopeException) e).category()).isEqualTo(MemscopeException.Category.ANALYSIS));
        assertThat(s.between(0, Long.MAX_VALUE).atAddress(5).asList()).hasSize(1);
    }

    @Test
    void drainHandsOutAndRemovesInOrder() {
        EventStore store = EventStore.unbounded();
        for (int i = 0; i < 10_000; i++) {
            store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
        }
        List<Long> addresses = new ArrayList<>();
        long n = store.drainTo(io.memscope.recording.FieldSink.of((ts, type, a, sz, p, th, tn, vn, tyn, st, si) -> addresses.add(a)));
        assertThat(n).isEqualTo(10_000);
        assertThat(addresses).hasSize(10_000).isSorted();
        assertThat(store.size()).isZero();
        store.record(ALLOCATE, 7, 1, 0, 0, 0, 0, 0);
        assertThat(store.snapshot().asList()).extracting(MemoryEvent::address).containsExactly(7L);
        assertThat(store.pooledChunks()).isGreaterThan(0); // full chunks freed for reuse
    }

    @Test
    void failingSinkRemovesNothing() {
        EventStore store = EventStore.unbounded();
        for (int i = 0; i < 100; i++) {
            store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
        }
        assertThatThrownBy(() -> store.drainTo(io.memscope.recording.FieldSink.of((ts, type, a, sz, p, th, tn, vn, tyn, st, si) -> {
            if (a == 50) {
                throw new IllegalStateException("disk full");
            }
        }))).hasMessage("disk full");
        assertThat(store.size()).isEqualTo(100);
        assertThat(store.drainTo(io.memscope.recording.FieldSink.of((ts, type, a, sz, p, th, tn, vn, tyn, st, si) -> { }))).isEqualTo(100);
    }

    @Test
    void clearRemovesEverythingAndResetsDropped() {
        EventStore store = EventStore.builder().capacityEvents(10).build();
        for (int i = 0; i < 15; i++) {
            store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
        }
        assertThat(store.dropped()).isEqualTo(5);
        store.clear();
        assertThat(store.size()).isZero();
        assertThat(store.dropped()).isZero();
        for (int i = 0; i < 10; i++) {
            store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
        }
        assertThat(store.size()).isEqualTo(10);
        assertThat(store.dropped()).isZero();
    }

    @Test
    void boundedDropNewestKeepsTheFirstAndCountsTheRest() {
        EventStore store = EventStore.builder().capacityEvents(1000).overflow(OverflowPolicy.DROP_NEWEST).build();
        for (int i = 0; i < 1500; i++) {
            store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
        }
        assertThat(store.size()).isEqualTo(1000);
        assertThat(store.dropped()).isEqualTo(500);
        Snapshot s = store.snapshot();
        assertThat(s.dropped()).isEqualTo(500);
        assertThat(s.get(0).address()).isZero();
        assertThat(s.get(999).address()).isEqualTo(999);
        // draining frees the capacity again
        store.drainTo(io.memscope.recording.FieldSink.of((ts, type, a, sz, p, th, tn, vn, tyn, st, si) -> { }));
        store.record(ALLOCATE, 5000, 1, 0, 0, 0, 0, 0);
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.dropped()).isEqualTo(500);
    }

    @Test
    void boundedDropOldestKeepsTheNewestAndCountsTheRest() {
        EventStore store = EventStore.builder().capacityEvents(1000).overflow(OverflowPolicy.DROP_OLDEST).build();
        for (int i = 0; i < 5000; i++) {
            store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
        }
        assertThat(store.size()).isLessThanOrEqualTo(1000).isGreaterThan(900);
        assertThat(store.size() + store.dropped()).isEqualTo(5000);
        Snapshot s = store.snapshot();
        assertThat(s.dropped()).isEqualTo(store.dropped());
        assertThat(s.get(s.size() - 1).address()).isEqualTo(4999);
        long first = s.get(0).address();
        for (int i = 0; i < s.size(); i++) {
            assertThat(s.get(i).address()).isEqualTo(first + i); // a contiguous newest suffix
        }
        assertThat(first).isEqualTo(store.dropped());
    }

    @Test
    void capacityInBytesIs32BytesPerEvent() {
        EventStore store = EventStore.builder().capacityBytes(32_000).build();
        assertThat(store.capacityEvents()).isEqualTo(1000);
        for (int i = 0; i < 1200; i++) {
            store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
        }
        assertThat(store.size()).isEqualTo(1000);
        assertThat(store.dropped()).isEqualTo(200);
        assertThatThrownBy(() -> EventStore.builder().capacityBytes(31)).isInstanceOf(MemscopeException.class);
        assertThatThrownBy(() -> EventStore.builder().capacityEvents(0)).isInstanceOf(MemscopeException.class);
    }

    @Test
    void boundedAcrossThreadsNeverExceedsCapacityAndCountsExactly() throws Exception {
        for (OverflowPolicy policy : OverflowPolicy.values()) {
            EventStore store = EventStore.builder().capacityEvents(10_000).overflow(policy).build();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                ts.add(new Thread(() -> {
                    for (int i = 0; i < 20_000; i++) {
                        store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
                    }
                }));
            }
            ts.forEach(Thread::start);
            for (Thread t : ts) {
                t.join();
            }
            // at most one lease (capacity / 16 = 625 events) per thread may be reserved but unused
            assertThat(store.size()).as(policy.name()).isLessThanOrEqualTo(10_000)
                    .isGreaterThanOrEqualTo(10_000 - 4 * 625);
            assertThat(store.size() + store.dropped()).as(policy.name()).isEqualTo(80_000);
            assertThat(store.snapshot().size()).isEqualTo(store.size());
        }
    }

    @Test
    void recordNeverThrowsIntoTheCaller() {
        EventStore store = EventStore.unbounded();
        store.record(null, 1, 1, 0, 0, 0, 0, 0);
        assertThat(Failures.count(MemscopeException.Category.INTERNAL)).isEqualTo(1);
        assertThat(store.size()).isZero();
    }

    @Test
    void clockPairAndDefaultPrecision() {
        long before = System.currentTimeMillis();
        EventStore store = EventStore.unbounded();
        long after = System.currentTimeMillis();
        assertThat(store.wallClockEpochNanos() / 1_000_000).isBetween(before, after);
        long t0 = System.nanoTime();
        store.record(ALLOCATE, 1, 1, 0, 0, 0, 0, 0);
        long t1 = System.nanoTime();
        Snapshot s = store.snapshot();
        assertThat(s.timestampAt(0)).isBetween(t0, t1);
        assertThat(s.toEpochNanos(s.timestampAt(0)) / 1_000_000).isBetween(before, System.currentTimeMillis());
    }

    @Test
    void coarseClockIsNanoTimeWithMillisecondResolution() throws Exception {
        EventStore store = EventStore.builder().clock(ClockSource.COARSE).build();
        assertThat(store.clock()).isEqualTo(ClockSource.COARSE);
        Thread.sleep(5); // the scenario: the coarse clock has ticked since the store was built
        for (int i = 0; i < 20; i++) {
            long t0 = System.nanoTime();
            store.record(ALLOCATE, i, 1, 0, 0, 0, 0, 0);
            long t1 = System.nanoTime();
            long ts = store.snapshot().timestampAt(i);
            assertThat(ts).isLessThanOrEqualTo(t1).isGreaterThan(t0 - 200_000_000L); // stale by a tick, not more
            Thread.sleep(2); // the scenario: records 2 ms apart, more than a tick of the coarse clock
        }
        Snapshot s = store.snapshot();
        assertThat(s.timestampAt(19)).isGreaterThan(s.timestampAt(0)); // it advances
    }
}
