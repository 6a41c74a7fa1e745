package io.memscope.bench.scope;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One call of a small method that is not inlined: run once without an agent and once with the agent profiling it
 * ({@code functions=io.memscope.bench.scope.FunctionBenchmark$Target.*}); the difference is the cost of a profiled
 * call (entry and exit hooks, and the caller's call-site hook).
 *
 * <pre>
 * java -jar memscope-bench/target/benchmarks.jar 'scope.FunctionBenchmark'
 * java -jar memscope-bench/target/benchmarks.jar 'scope.FunctionBenchmark' -jvmArgsAppend \
 *   '-javaagent:memscope-agent/target/memscope-agent.jar=quiet=true,out=/tmp/bench-out,functions=io.memscope.bench.scope.FunctionBenchmark$Target.*'
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class FunctionBenchmark {
    private final Target target = new Target();
    private long x;

    @Benchmark
    public long call() {
        return x = target.work(x);
    }

    /** The same call with what a profiled call must read at least: the clock and the allocated-bytes counter twice. */
    @Benchmark
    public long floor() {
        long b0 = ScopeBenchmark.THREADS.getCurrentThreadAllocatedBytes();
        long t0 = System.nanoTime();
        x = target.work(x);
        long t1 = System.nanoTime();
        long b1 = ScopeBenchmark.THREADS.getCurrentThreadAllocatedBytes();
        return x + (t1 - t0) + (b1 - b0);
    }

    /** The profiled class. */
    public static final class Target {
        @CompilerControl(CompilerControl.Mode.DONT_INLINE)
        public long work(long v) {
            return v * 31 + 7;
        }
    }
}
