package io.memscope.bench.accounting;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One alloc + free pair on one per-owner instrument, by 1 and 2 threads, for memscope's accounting (thread-local
 * watermarks, after MySQL performance schema) and for a naive design (shared LongAdder counters, a shared AtomicLong
 * current and CAS loops for the high and low watermarks). Throughput in pairs per microsecond, summed over threads.
 *
 * <pre>java -jar memscope-bench/target/benchmarks.jar 'accounting.AccountingBenchmark' -prof gc</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class AccountingBenchmark {
    static final long SIZE = 64;

    final MemoryAccounting accounting = new MemoryAccounting();
    final Instrument instrument = accounting.instrument("memory/bench/blocks");
    final Naive naive = new Naive();

    @Benchmark
    @Threads(1)
    public Owner memscope_1thread() {
        return pair();
    }

    @Benchmark
    @Threads(2)
    public Owner memscope_2threads() {
        return pair();
    }

    @Benchmark
    @Threads(1)
    public long naive_1thread() {
        return naive.pair();
    }

    @Benchmark
    @Threads(2)
    public long naive_2threads() {
        return naive.pair();
    }

    private Owner pair() {
        Owner o = accounting.alloc(instrument, SIZE);
        accounting.free(instrument, SIZE, o);
        return o;
    }

    /** The naive peer: every call updates shared counters; watermarks by CAS loops on shared words. */
    static final class Naive {
        final LongAdder allocCount = new LongAdder();
        final LongAdder freeCount = new LongAdder();
        final LongAdder allocBytes = new LongAdder();
        final LongAdder freeBytes = new LongAdder();
        final AtomicLong current = new AtomicLong();
        final AtomicLong high = new AtomicLong();
        final AtomicLong low = new AtomicLong();

        long pair() {
            allocCount.increment();
            allocBytes.add(SIZE);
            long cur = current.addAndGet(SIZE);
            for (long h = high.get(); cur > h && !high.compareAndSet(h, cur); h = high.get()) {
                // retry
            }
            freeCount.increment();
            freeBytes.add(SIZE);
            cur = current.addAndGet(-SIZE);
            for (long l = low.get(); cur < l && !low.compareAndSet(l, cur); l = low.get()) {
                // retry
            }
            return cur;
        }
    }
}
