package io.memscope.bench.ffm;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.ffm.TrackingArena;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of tracking an arena without the agent (production without memscope attached): one confined arena that
 * allocates {@code segments} segments of 256 bytes and closes, as {@link Arena#ofConfined()} and as
 * {@link TrackingArena#ofConfined(Instrument)} (accounting per segment, the agent bridge looked up at most once a
 * second). Time per arena life in nanoseconds; the difference over {@code segments} is the cost per segment.
 *
 * <pre>java -jar memscope-bench/target/benchmarks.jar 'ffm.TrackingArenaBenchmark'</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class TrackingArenaBenchmark {
    @Param({"1", "16"})
    int segments;

    final Instrument instrument = new MemoryAccounting().instrument("memory/bench/arena");

    @Benchmark
    public long plainArena() {
        long sum = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < segments; i++) {
                MemorySegment s = arena.allocate(256);
                sum += s.address();
            }
        }
        return sum;
    }

    @Benchmark
    public long trackingArena() {
        long sum = 0;
        try (Arena arena = TrackingArena.ofConfined(instrument)) {
            for (int i = 0; i < segments; i++) {
                MemorySegment s = arena.allocate(256);
                sum += s.address();
            }
        }
        return sum;
    }
}
