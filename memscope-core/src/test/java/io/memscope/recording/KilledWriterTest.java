package io.memscope.recording;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEvent;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

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
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                KilledWriterMain.class.getName(), file.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        long flushed = 0;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("FLUSHED ")) {
                    flushed = Long.parseLong(line.substring(8));
                    if (flushed >= 50_000) {
                        break;
                    }
                }
            }
            p.destroyForcibly();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        assertThat(flushed).as("the writer announced its progress").isGreaterThanOrEqualTo(50_000);

        Recording rec = RecordingReader.read(file);
        assertThat(rec.damage()).as("a killed writer leaves no END block").isPresent();
        assertThat(rec.totals()).isEmpty();
        assertThat(rec.metadata()).containsEntry("purpose", "killed writer test");
        assertThat((long) rec.eventCount()).isGreaterThanOrEqualTo(flushed);
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
