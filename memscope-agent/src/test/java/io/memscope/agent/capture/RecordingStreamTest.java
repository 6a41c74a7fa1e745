package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.internal.recording.EventColumns;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.internal.store.EventStore;
import io.memscope.internal.store.StringTable;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM sampler's events reach the recording a drained batch at a time ({@link RecordingStream#acceptAll}): the
 * file is byte for byte the one the same events give one at a time, site and stack definitions included.
 */
class RecordingStreamTest {
    @TempDir
    Path dir;

    private final StackTable stacks = new StackTable();
    private final EventStore store = EventStore.unbounded();

    @Test
    void aBatchIsRecordedAsItsEventsOneByOne() throws Exception {
        StringTable strings = store.strings();
        long stack = stacks.capture(8);
        int orders = SiteTable.registerFrame("com.example.Orders", "load", "Orders.java", 12, "byte[]");
        int names = SiteTable.registerFrame("com.example.Orders", "name", "Orders.java", 20, "java.lang.String");
        int main = strings.intern("main");
        int drain = strings.intern("memscope-reaper");
        int bytes = strings.intern("byte[]");
        int string = strings.intern("java.lang.String");
        int allocate = MemoryEventType.ALLOCATE.code();
        int deallocate = MemoryEventType.DEALLOCATE.code();
        EventColumns batch = new EventColumns(2);
        batch.add(1_000, allocate, 1, 4096, 0, 1, main, 0, bytes, stack, orders);
        batch.add(1_100, allocate, 2, 48, 0, 1, main, 0, string, stack, names);
        batch.add(1_200, allocate, 0, 4096, 0, 7, main, 0, bytes, stack, orders); // not tracked: id 0
        batch.add(1_300, allocate, 3, 24, 0, 1, main, 0, string, 0, names); // no stack
        batch.add(2_000, deallocate, 1, 4096, 1_000, 2, drain, 0, 0, 0, orders);
        batch.add(2_000, deallocate, 2, 48, 900, 2, drain, 0, 0, 0, names);

        Path oneByOne = write("one-by-one.msrec", rs -> {
            io.memscope.recording.EventView view = new io.memscope.recording.EventView();
            for (int i = 0; i < batch.size; i++) {
                rs.accept(batch.view(i, view));
            }
        });
        Path batched = write("batched.msrec", rs -> assertThat(rs.acceptAll(batch, "test")).isZero());

        assertThat(Files.readAllBytes(batched)).isEqualTo(Files.readAllBytes(oneByOne));
        Recording r = RecordingReader.readStrict(batched);
        assertThat(r.eventCount()).isEqualTo(batch.size);
        MemoryEvent collected = r.event(4);
        assertThat(collected.type()).isEqualTo(MemoryEventType.DEALLOCATE);
        assertThat(collected.previousSize()).isEqualTo(1_000);
        assertThat(r.event(0).callStackHash()).isEqualTo(stack);
        assertThat(r.site(orders)).hasValueSatisfying(s -> assertThat(s.line()).isEqualTo(12));
        assertThat(r.site(names)).isPresent();
    }

    private Path write(String name, Consumer<RecordingStream> events) {
        Path file = dir.resolve(name);
        RecordingWriter w = RecordingWriter.builder(file).strings(store.strings()).process(42, 1_000)
                .clock(5_000_000, 1_000).open();
        RecordingStream rs = new RecordingStream(store, w, stacks);
        events.accept(rs);
        rs.drain(java.util.List.of());
        w.close();
        assertThat(rs.drained()).isEqualTo(6);
        return file;
    }
}
