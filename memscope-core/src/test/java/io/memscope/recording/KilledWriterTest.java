package io.memscope.recording;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEvent;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class KilledWriterTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void recordingOfAKilledProcessKeepsEveryCompleteBlock() throws Exception {
        Path file = dir.resolve("killed.msrec");
        long[] flushed = {0};
        KilledChild.runUntilKilled("64m", KilledWriterMain.class, file, line -> {
            if (line.startsWith("FLUSHED ")) {
                flushed[0] = Long.parseLong(line.substring(8));
            }
            return flushed[0] >= 50_000;
        });
        assertThat(flushed[0]).as("the writer announced its progress").isGreaterThanOrEqualTo(50_000);

        Recording rec = RecordingReader.read(file);
        assertThat(rec.damage()).as("a killed writer leaves no END block").isPresent();
        assertThat(rec.totals()).isEmpty();
        assertThat(rec.metadata()).containsEntry("purpose", "killed writer test");
        assertThat((long) rec.eventCount()).isGreaterThanOrEqualTo(flushed[0]);
        for (int i = 0; i < rec.eventCount(); i++) {
            MemoryEvent e = rec.event(i);
            assertThat(e.address()).isEqualTo(KilledWriterMain.expectedAddress(i));
            assertThat(e.size()).isEqualTo(KilledWriterMain.expectedSize(i));
            assertThat(e.timestampNanos()).isEqualTo(1_000_000 + i * 100L);
            assertThat(e.threadName()).isEqualTo("killed-writer-main");
            assertThat(e.typeName()).isEqualTo("byte[]");
        }
        // The damage is where the complete blocks end: either the file's end (killed between blocks) or the
        // start of the block being written.
        long size = Files.size(file);
        assertThat(rec.damage().get().offset()).isBetween(size - 4096 - 200, size);
        System.out.println("killed writer: " + rec.eventCount() + " events read, " + size + " bytes, damage: "
                + rec.damage().get().message());
    }
}
