package io.memscope.bench.scope;

import io.memscope.Memscope;
import io.memscope.scope.MemoryScope;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * One scope entered and exited ({@code try (MemoryScope s = Memscope.scope("work")) {}}): {@code memscope}
 * nested in an open scope (a request's part), {@code memscope_root} with none open (a request), against, in the same
 * run:
 * <ul>
 * <li>{@code floor_clock}: two {@code System.nanoTime()} reads (what any duration costs);</li>
 * <li>{@code floor_clockAndAllocatedBytes}: two clock and two {@code ThreadMXBean.getCurrentThreadAllocatedBytes()}
 *     reads: the least a scope with exact time and allocated bytes can cost;</li>
 * <li>{@code memscopeRs}: memscope-rs's scope tracker design (lock-protected maps of scope infos and of per-thread
 * stacks
 *     keyed by a formatted thread id, a scope info object per entry);</li>
 * <li>{@code jfr}: a JFR event with {@code begin()} / {@code commit()} while a recording runs (stack traces off), the
 *     JDK's own way to mark a region (the recording runs during that benchmark only).</li>
 * </ul>
 * With the agent, the same JVM options plus {@code -javaagent}: scopes are then also recorded.
 *
 * <pre>
 * java -jar memscope-bench/target/benchmarks.jar 'scope.ScopeBenchmark' -prof gc
 * java -jar memscope-bench/target/benchmarks.jar 'scope.ScopeBenchmark.memscope' \
 *      -jvmArgsAppend -javaagent:memscope-agent/target/memscope-agent.jar=quiet=true,out=/tmp/bench-out
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ScopeBenchmark {
    static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final MemscopeRsScopeTracker memscopeRs = new MemscopeRsScopeTracker();

    /** An open scope around the measured one. */
    @State(Scope.Thread)
    public static class Nested {
        MemoryScope outer;

        @Setup(Level.Iteration)
        public void open() {
            outer = Memscope.scope("bench");
        }

        @TearDown(Level.Iteration)
        public void close() {
            outer.close();
        }
    }

    /** A JFR recording with the region event enabled. */
    @State(Scope.Thread)
    public static class Jfr {
        Recording recording;

        @Setup(Level.Iteration)
        public void start() {
            recording = new Recording();
            recording.enable(RegionJfrEvent.class);
            recording.start();
        }

        @TearDown(Level.Iteration)
        public void stop() {
            recording.stop();
            recording.close();
        }
    }

    @Benchmark
    public MemoryScope memscope(Nested nested) {
        try (MemoryScope s = Memscope.scope("work")) {
            return s;
        }
    }

    @Benchmark
    public MemoryScope memscope_root() {
        try (MemoryScope s = Memscope.scope("work")) {
            return s;
        }
    }

    @Benchmark
    public long floor_clock() {
        long t0 = System.nanoTime();
        return System.nanoTime() - t0;
    }

    @Benchmark
    public long floor_clockAndAllocatedBytes() {
        long b0 = THREADS.getCurrentThreadAllocatedBytes();
        long t0 = System.nanoTime();
        long t1 = System.nanoTime();
        long b1 = THREADS.getCurrentThreadAllocatedBytes();
        return (t1 - t0) + (b1 - b0);
    }

    @Benchmark
    public long memscopeRs() {
        long id = memscopeRs.enter("work");
        memscopeRs.exit(id);
        return id;
    }

    @Benchmark
    public RegionJfrEvent jfr(Jfr recording) {
        RegionJfrEvent e = new RegionJfrEvent();
        e.begin();
        e.name = "work";
        e.commit();
        return e;
    }
}
