package io.memscope.bench.store;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.internal.store.ClockSource;
import io.memscope.internal.store.EventStore;
import io.memscope.internal.store.OverflowPolicy;
import jdk.jfr.Recording;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost of recording one memory event, at 1 and 2 threads: memscope's {@link EventStore} against memscope-rs's
 * design ({@link MemscopeRsEventStore}) and a JFR custom event commit with a recording running.
 *
 * <p>Every variant records the same stream: increasing addresses, 16 rotating sites (so the per-thread context
 * table is looked up, not only its last-hit cache). Stores are emptied between iterations, outside the
 * measurement, so that the unbounded ones do not exhaust the heap.
 *
 * <ul>
 * <li>{@code memscope}: bounded store (1M events, drop-oldest): the steady state of a long-running capture, chunks
 *     recycled, no allocation.</li>
 * <li>{@code memscopeUnbounded}: unbounded store growing through the iteration (allocates its 32-byte
 *     columns).</li>
 * <li>{@code memscopeCoarseClock}: as {@code memscope} with {@link ClockSource#COARSE}.</li>
 * <li>{@code memscopeRs}: {@code record(MemoryEvent.allocate(...))}, as memscope-rs's callers do.</li>
 * <li>{@code jfr}: {@code new AllocationJfrEvent(); fields; commit()} into a running in-memory recording.</li>
 * <li>{@code nanoTime}: the clock alone, to see how much of {@code record()} it is.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
public class RecordBenchmark {

    @State(Scope.Benchmark)
    public static class Stores {
        EventStore bounded;
        EventStore unbounded;
        EventStore coarse;
        MemscopeRsEventStore memscopeRs;
        Recording recording;

        @Setup(Level.Trial)
        public void setUp() {
            bounded = EventStore.builder().capacityEvents(1_000_000).overflow(OverflowPolicy.DROP_OLDEST).build();
            unbounded = EventStore.unbounded();
            coarse = EventStore.builder().capacityEvents(1_000_000).overflow(OverflowPolicy.DROP_OLDEST)
                    .clock(ClockSource.COARSE).build();
            memscopeRs = new MemscopeRsEventStore();
            recording = new Recording();
            recording.enable(AllocationJfrEvent.class).withoutStackTrace();
            recording.setToDisk(false); // in-memory ring: commit() writes the event, nothing floods the disk
            recording.start();
        }

        @Setup(Level.Iteration)
        public void empty() {
            unbounded.clear();
            memscopeRs.clear();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            recording.stop();
            recording.close();
        }
    }

    @State(Scope.Thread)
    public static class Producer {
        long address;
        long threadId;

        @Setup(Level.Trial)
        @SuppressWarnings("deprecation")
        public void setUp() {
            threadId = Thread.currentThread().getId();
            address = threadId << 40;
        }
    }

    // ---------------------------------------------------------------------------------------- 1 thread

    @Benchmark
    @Threads(1)
    public void memscope_1t(Stores s, Producer p) {
        long a = ++p.address;
        s.bounded.record(MemoryEventType.ALLOCATE, a, 64, 0, (int) (a & 15) + 1, a & 3, 0, 0);
    }

    @Benchmark
    @Threads(1)
    public void memscopeUnbounded_1t(Stores s, Producer p) {
        long a = ++p.address;
        s.unbounded.record(MemoryEventType.ALLOCATE, a, 64, 0, (int) (a & 15) + 1, a & 3, 0, 0);
    }

    @Benchmark
    @Threads(1)
    public void memscopeCoarseClock_1t(Stores s, Producer p) {
        long a = ++p.address;
        s.coarse.record(MemoryEventType.ALLOCATE, a, 64, 0, (int) (a & 15) + 1, a & 3, 0, 0);
    }

    @Benchmark
    @Threads(1)
    public void memscopeRs_1t(Stores s, Producer p) {
        long a = ++p.address;
        s.memscopeRs.record(MemoryEvent.allocate(a, 64, p.threadId).withSiteId((int) (a & 15) + 1)
                .withCallStackHash(a & 3));
    }

    @Benchmark
    @Threads(1)
    public void jfr_1t(Stores s, Producer p) { // Stores: starts the recording
        long a = ++p.address;
        AllocationJfrEvent e = new AllocationJfrEvent();
        e.address = a;
        e.size = 64;
        e.siteId = (int) (a & 15) + 1;
        e.stackId = a & 3;
        e.commit();
    }

    @Benchmark
    @Threads(1)
    public long nanoTime_1t() {
        return System.nanoTime();
    }

    // ---------------------------------------------------------------------------------------- 2 threads

    @Benchmark
    @Threads(2)
    public void memscope_2t(Stores s, Producer p) {
        memscope_1t(s, p);
    }

    @Benchmark
    @Threads(2)
    public void memscopeUnbounded_2t(Stores s, Producer p) {
        memscopeUnbounded_1t(s, p);
    }

    @Benchmark
    @Threads(2)
    public void memscopeCoarseClock_2t(Stores s, Producer p) {
        memscopeCoarseClock_1t(s, p);
    }

    @Benchmark
    @Threads(2)
    public void memscopeRs_2t(Stores s, Producer p) {
        memscopeRs_1t(s, p);
    }

    @Benchmark
    @Threads(2)
    public void jfr_2t(Stores s, Producer p) {
        jfr_1t(s, p);
    }
}
