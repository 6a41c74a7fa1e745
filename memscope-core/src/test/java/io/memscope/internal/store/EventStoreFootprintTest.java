package io.memscope.internal.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static io.memscope.MemoryEventType.ALLOCATE;
import static io.memscope.MemoryEventType.DEALLOCATE;
import static org.assertj.core.api.Assertions.assertThat;

/** Allocation per recorded event and memory retained per stored event. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EventStoreFootprintTest {
    private static final int EVENTS = 100_000;

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }

    /** A typical allocation stream: 20 sites, 3 stacks each, their type names, allocate then free. */
    private static void recordStream(EventStore store, int n, long base) {
        for (int i = 0; i < n; i++) {
            int site = i % 20;
            store.record((i & 1) == 0 ? ALLOCATE : DEALLOCATE, base + i, 16 + site * 8L, 0, site + 1,
                    (site * 3 + i % 3) + 1, site + 1, 0);
        }
    }

    @Test
    void steadyStateRecordingAllocatesNothingWhenTheStoreIsDrained() {
        EventStore store = EventStore.unbounded();
        for (int i = 0; i < 20; i++) { // warm up: JIT, context table, chunk pool
            recordStream(store, EVENTS, 0);
            store.drainTo(io.memscope.recording.FieldSink.of((ts, type, a, s, p, th, tn, vn, tyn, st, si) -> { }));
        }
        long before = allocatedBytes();
        recordStream(store, EVENTS, 0);
        long perEvent100 = (allocatedBytes() - before) * 100 / EVENTS;
        assertThat(store.size()).isEqualTo(EVENTS);
        assertThat(perEvent100).as("allocated bytes per event x100").isLessThan(100); // < 1 byte per event
    }

    @Test
    void steadyStateRecordingAllocatesNothingInDropOldestMode() {
        EventStore store = EventStore.builder().capacityEvents(50_000).overflow(OverflowPolicy.DROP_OLDEST).build();
        for (int i = 0; i < 20; i++) {
            recordStream(store, EVENTS, 0);
        }
        long before = allocatedBytes();
        recordStream(store, EVENTS, 0);
        long perEvent100 = (allocatedBytes() - before) * 100 / EVENTS;
        assertThat(store.size()).isLessThanOrEqualTo(50_000);
        assertThat(store.size() + store.dropped()).isEqualTo(21L * EVENTS);
        assertThat(perEvent100).as("allocated bytes per event x100").isLessThan(100);
    }

    @Test
    void growingStoreAllocatesOnlyItsColumns() {
        EventStore store = EventStore.unbounded();
        recordStream(store, EVENTS, 0); // warm up
        store.clear();
        EventStore fresh = EventStore.unbounded();
        long before = allocatedBytes();
        recordStream(fresh, EVENTS, 0);
        double perEvent = (allocatedBytes() - before) / (double) EVENTS;
        assertThat(perEvent).as("allocated bytes per event").isLessThan(Chunk.BYTES_PER_EVENT + 2);
    }

    @Test
    void atMost32BytesRetainedPerStoredEvent() throws Exception {
        int n = 2_000_000;
        EventStore store = EventStore.unbounded();
        Thread other = new Thread(() -> recordStream(store, n / 2, 1L << 40));
        other.start();
        recordStream(store, n / 2, 0);
        other.join();
        assertThat(store.size()).isEqualTo(n);
        // counted: the array payloads of every chunk and context table
        // 32 bytes per event, plus per thread at most one partly filled chunk and its small context table
        long slack = 2L * Chunk.MAX_CAPACITY * Chunk.BYTES_PER_EVENT + 2 * 4096;
        assertThat(store.retainedBytes()).as("array bytes").isLessThanOrEqualTo(32L * n + slack);
        double counted = store.retainedBytes() / (double) n;
        System.out.println("array bytes per event: " + counted);
        // measured: heap growth of a second, identical store
        long base = usedHeapAfterGc();
        EventStore second = EventStore.unbounded();
        Thread t = new Thread(() -> recordStream(second, n / 2, 1L << 40));
        t.start();
        recordStream(second, n / 2, 0);
        t.join();
        double measured = (usedHeapAfterGc() - base) / (double) n;
        assertThat(second.size()).isEqualTo(n);
        System.out.println("heap bytes per event: " + measured);
        // array headers, partly filled chunks and GC measurement noise: well under 2 bytes per event
        assertThat(measured).as("heap bytes per event").isLessThanOrEqualTo(34.0);
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20); // a measurement, not a wait: the least of five readings a little apart
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }
}
