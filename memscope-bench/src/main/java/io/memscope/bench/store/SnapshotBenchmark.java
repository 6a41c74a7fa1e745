package io.memscope.bench.store;

import io.memscope.MemoryEventType;
import io.memscope.internal.store.EventStore;
import io.memscope.internal.store.Snapshot;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link EventStore#snapshot()} of 10 million events recorded by 1 thread (one run: bulk copies) or by 2 and 8
 * threads at once (interleaved timestamps: the k-way merge does the work). Target: under 1 s.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@State(Scope.Benchmark)
public class SnapshotBenchmark {
    static final int EVENTS = 10_000_000;

    @Param({"1", "2", "8"})
    int recordingThreads;

    EventStore store;

    @Setup(Level.Trial)
    public void fill() throws InterruptedException {
        store = EventStore.unbounded();
        int each = EVENTS / recordingThreads;
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < recordingThreads; t++) {
            long base = (long) t << 40;
            threads.add(new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    store.record(MemoryEventType.ALLOCATE, base + i, 64, 0, (i & 15) + 1, i & 3, 0, 0);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        if (store.size() != (long) each * recordingThreads) {
            throw new IllegalStateException("store has " + store.size() + " events");
        }
    }

    @Benchmark
    public Snapshot snapshot10M() {
        return store.snapshot();
    }
}
