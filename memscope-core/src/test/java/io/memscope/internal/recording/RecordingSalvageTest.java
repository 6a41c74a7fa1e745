package io.memscope.internal.recording;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recording whose writes start failing (a full disk) is ended at its last whole block: every event is either in the
 * file or counted as dropped, and the file says why it stopped.
 */
class RecordingSalvageTest {

    /** Accepts writes until {@code room} bytes are taken, then refuses the next one whole, once; later ones pass. */
    static final class FillingUp extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long room;
        boolean refused;

        FillingUp(long room) {
            this.room = room;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (!refused && bytes.size() + len > room) {
                refused = true;
                throw new IOException("No space left on device");
            }
            bytes.write(b, off, len);
        }
    }

    @Test
    void aWriterWhoseOutputFillsUpEndsAtItsLastWholeBlockAndCountsEveryEvent(@TempDir Path dir) throws Exception {
        FillingUp out = new FillingUp(6000);
        RecordingWriter w = RecordingWriter.builder(dir.resolve("r.msrec")).output(out).blockBytes(512)
                .clock(1_000_000L, 1_000).process(1, 0).open();
        w.site(1, "a.B", "c", "B.java", 3, "byte[]");
        int main = w.strings().intern("main");
        int total = 3000;
        for (int i = 0; i < total; i++) {
            w.accept(1_000 + i, MemoryEventType.ALLOCATE, i + 1, 64, 0, 1, main, 0, 0, 0, 1);
            if (i % 100 == 0) {
                w.site(2 + i, "a.B", "d" + i, "B.java", i, "byte[]"); // side tables after the failure: discarded
                w.metadata("progress", Integer.toString(i));
            }
        }
        assertThat(w.failure()).hasMessage("No space left on device");
        long inFile = w.eventsInFile();
        assertThat(inFile).isPositive().isLessThan(total);
        assertThat(w.salvage(Map.of("recordingFailure", "No space left on device"))).isTrue();
        Path file = Files.write(dir.resolve("salvaged.msrec"), out.bytes.toByteArray());
        assertThat(RecordingReader.isClosed(file)).isTrue();
        Recording r = RecordingReader.readStrict(file);
        assertThat(r.eventCount()).isEqualTo(inFile);
        assertThat(r.totals().orElseThrow().eventsWritten()).isEqualTo(inFile);
        assertThat(r.totals().orElseThrow().eventsDropped()).isEqualTo(total - inFile);
        assertThat(r.totals().orElseThrow().clean()).isFalse();
        assertThat(r.metadata()).containsEntry("recordingFailure", "No space left on device");
    }

    @Test
    void aFileIsCutBackToItsLastWholeBlock(@TempDir Path dir) throws Exception {
        // a file output: the failed write may have left part of a block; salvage truncates it away
        Path file = dir.resolve("f.msrec");
        RecordingWriter w = RecordingWriter.builder(file).blockBytes(512).clock(1_000_000L, 1_000).process(1, 0)
                .open();
        int main = w.strings().intern("main");
        for (int i = 0; i < 500; i++) {
            w.accept(1_000 + i, MemoryEventType.ALLOCATE, i + 1, 64, 0, 1, main, 0, 0, 0, 0);
        }
        w.flush();
        long whole = w.bytesWritten();
        Files.write(file, new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND); // a torn block
        java.lang.reflect.Field recording = RecordingWriter.class.getDeclaredField("recording");
        recording.setAccessible(true);
        ((RecordingFile) recording.get(w)).failedWith(new IOException("No space left on device"));
        assertThat(w.salvage(Map.of("recordingFailure", "No space left on device"))).isTrue();
        assertThat(RecordingReader.readStrict(file).eventCount()).isEqualTo(500);
        assertThat(Files.size(file)).isGreaterThan(whole);
    }
}
