package io.memscope.bench.events;

import io.memscope.events.Counter;
import io.memscope.events.EventCursor;
import io.memscope.events.EventsSettings;
import io.memscope.events.RuntimeEvents;
import io.memscope.events.Span;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Reader throughput: a fresh cursor reads a preserved ring file holding {@value #EVENTS} events (counters and span
 * edges, one 16 MiB ring, no lapping) and passes each to callbacks that consume every field. Score = events/s.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class EventReadBenchmark {
    static final int EVENTS = 800_000;
    private Path dir;
    private Path file;
    private EventCursor cursor;
    private Sink sink;

    static final class Sink implements EventCursor.Callbacks {
        Blackhole bh;

        @Override
        public void counter(long tid, long ts, String name, long value) {
            bh.consume(ts + value + tid);
            bh.consume(name);
        }

        @Override
        public void spanBegin(long tid, long ts, String name) {
            bh.consume(ts + tid);
            bh.consume(name);
        }

        @Override
        public void spanEnd(long tid, long ts, String name) {
            bh.consume(ts + tid);
            bh.consume(name);
        }
    }

    @Setup(Level.Trial)
    public void setUp(Blackhole bh) throws Exception {
        dir = Files.createTempDirectory("memscope-bench-read");
        RuntimeEvents.start(EventsSettings.fromEnvironment().withDirectory(dir).withRingSize(16 << 20)
                .withSlots(2).withPreserve(true));
        file = RuntimeEvents.file();
        Counter c = RuntimeEvents.counter("bench.read.counter");
        Span s = RuntimeEvents.span("bench.read.span");
        for (int i = 0; i < EVENTS / 4; i++) {
            s.begin();
            c.set(i);
            c.set(-i);
            s.end();
        }
        RuntimeEvents.stop();
        sink = new Sink();
        sink.bh = bh;
    }

    @Setup(Level.Invocation)
    public void open() {
        cursor = EventCursor.open(file);
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public int pollAll() {
        int n = cursor.poll(sink);
        if (n != EVENTS) {
            throw new IllegalStateException("read " + n + " events, expected " + EVENTS);
        }
        return n;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }
}
