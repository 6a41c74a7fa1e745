package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.memscope.MemoryEventType;
import io.memscope.recording.EventSink;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The decoding thread's hand-off: every event in file order, a failing sink, an interrupted caller. */
class EventPipeTest {
    /** Many more events than the four chunks in flight, so that the decoder must wait for chunks to come back. */
    private static final int EVENTS = EventPipe.CHUNK * 12 + 123;

    @TempDir
    Path tmp;

    private Path recording() {
        TestRun run = TestRun.create(tmp.resolve("pipe.msrec"));
        for (int i = 0; i < EVENTS; i++) {
            run.alloc(1_000L * i, 16L * i, 64 + i % 7, 1 + i % 3);
        }
        run.close();
        return run.file();
    }

    /** Records each event's timestamp, address and size, in arrival order. */
    private static final class Trace implements EventSink, RecordingVisitor {
        final long[] seen = new long[EVENTS * 3];
        int n;

        @Override
        public void accept(io.memscope.recording.EventView e) {
            seen[n++] = e.timestampNanos();
            seen[n++] = e.address();
            seen[n++] = e.size();
        }
    }

    @Test
    void deliversEveryEventInFileOrder() {
        Path file = recording();
        Trace direct = new Trace();
        RecordingReader.stream(file, direct);
        Trace piped = new Trace();
        EventPipe.stream(file, Long.MAX_VALUE, piped);
        assertThat(piped.n).isEqualTo(EVENTS * 3);
        assertThat(Arrays.equals(piped.seen, direct.seen)).isTrue();

        Trace limited = new Trace();
        EventPipe.stream(file, 5000, limited);
        assertThat(limited.n).isEqualTo(5000 * 3);
        assertThat(Arrays.equals(limited.seen, 0, 15000, direct.seen, 0, 15000)).isTrue();
    }

    @Test
    void aFailingSinkStopsTheDecoderAndItsFailureIsRethrown() {
        Path file = recording();
        IllegalStateException boom = new IllegalStateException("sink failed");
        EventSink failing = new EventSink() {
            int n;

            @Override
            public void accept(io.memscope.recording.EventView e) {
                if (++n == EventPipe.CHUNK + 10) {
                    throw boom;
                }
            }
        };
        // without the chunks handed back after the failure, the decoder would wait for a free chunk for ever
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
                assertThatThrownBy(() -> EventPipe.stream(file, Long.MAX_VALUE, failing)).isSameAs(boom));
        Trace again = new Trace();
        EventPipe.stream(file, Long.MAX_VALUE, again);
        assertThat(again.n).isEqualTo(EVENTS * 3);
    }

    @Test
    void anInterruptedCallerStillGetsEveryEventAndKeepsItsInterrupt() {
        Path file = recording();
        Trace piped = new Trace();
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            Thread.currentThread().interrupt();
            try {
                EventPipe.stream(file, Long.MAX_VALUE, piped);
            } finally {
                assertThat(Thread.interrupted()).isTrue();
            }
        });
        assertThat(piped.n).isEqualTo(EVENTS * 3);
    }

    /**
     * Put in time order on the decoding thread ({@link TimeOrder} releasing runs straight into the chunks): every
     * field of every event as the old slot time order gives it, over many chunks, with events behind and ties.
     */
    @Test
    void timeOrderedEventsAreThoseOfTheSlotTimeOrder() {
        TestRun run = TestRun.create(tmp.resolve("order.msrec"));
        java.util.Random rnd = new java.util.Random(3);
        for (int i = 0; i < EVENTS; i++) {
            long t = 1_000L * i - (rnd.nextInt(10) == 0 ? rnd.nextInt(50_000) : 0);
            run.alloc(t, 16L * i, 64 + i % 7, 1 + i % 3, 1 + i % 5);
        }
        run.close();
        java.util.List<String> expected = new java.util.ArrayList<>();
        SlotTimeOrder reference = new SlotTimeOrder(e -> expected.add(e.toString()));
        RecordingReader.stream(run.file(), new RecordingVisitor() {
            @Override
            public void accept(io.memscope.recording.EventView e) {
                reference.accept(e);
            }
        });
        reference.finish();
        java.util.List<String> piped = new java.util.ArrayList<>();
        EventPipe.stream(run.file(), Long.MAX_VALUE, e -> piped.add(e.toString()), null, true);
        assertThat(piped).hasSize(EVENTS).isEqualTo(expected);
    }
}
