package io.memscope.bench.events;

import io.memscope.events.Counter;
import io.memscope.events.EventType;
import io.memscope.events.EventsSettings;
import io.memscope.events.RuntimeEvents;
import io.memscope.events.Span;
import io.memscope.events.UserEvent;
import jdk.jfr.Recording;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastBufferDescriptor;
import org.agrona.concurrent.broadcast.BroadcastTransmitter;
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

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Cost of writing one event: a memscope ring record (span edge 16 B, counter 24 B, custom int 24 B) against
 * Agrona's BroadcastTransmitter (a 16-byte message: the same timestamp + value a counter carries, into a 1 MiB
 * direct broadcast buffer) and a JFR event commit (one long field, recording running, stack traces off).
 * Every variant stamps System.nanoTime(), as the ring does.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class EventWriteBenchmark {
    private Path dir;
    private Span span;
    private Counter counter;
    private UserEvent<Integer> custom;
    private BroadcastTransmitter transmitter;
    private UnsafeBuffer message;
    private Recording recording;
    private long i;

    /** The JFR peer: an event with one long field. */
    @jdk.jfr.Name("memscope.bench.Counter")
    @jdk.jfr.StackTrace(false)
    static final class JfrCounter extends jdk.jfr.Event {
        long value;
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("memscope-bench-events");
        RuntimeEvents.start(EventsSettings.fromEnvironment().withDirectory(dir).withRingSize(1 << 20));
        span = RuntimeEvents.span("bench.span");
        counter = RuntimeEvents.counter("bench.counter");
        custom = RuntimeEvents.register("bench.int", EventType.INT);
        int capacity = 1 << 20;
        transmitter = new BroadcastTransmitter(new UnsafeBuffer(
                ByteBuffer.allocateDirect(capacity + BroadcastBufferDescriptor.TRAILER_LENGTH)));
        message = new UnsafeBuffer(ByteBuffer.allocateDirect(16));
        recording = new Recording();
        recording.enable(JfrCounter.class).withoutStackTrace();
        recording.setToDisk(true);
        recording.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        recording.close();
        RuntimeEvents.stop();
        try (var s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }

    /** The clock every variant reads: what is left of a write once this is subtracted is the transport's own cost. */
    @Benchmark
    public long clockOnly() {
        return System.nanoTime();
    }

    @Benchmark
    public void ringSpanBegin() {
        span.begin();
    }

    @Benchmark
    public void ringCounter() {
        counter.set(i++);
    }

    @Benchmark
    public void ringCustomInt() {
        custom.writeInt((int) i++);
    }

    @Benchmark
    public void agronaBroadcast16() {
        message.putLong(0, System.nanoTime());
        message.putLong(8, i++);
        transmitter.transmit(1, message, 0, 16);
    }

    @Benchmark
    public void jfrCommit() {
        JfrCounter e = new JfrCounter();
        e.value = i++;
        e.commit();
    }
}
