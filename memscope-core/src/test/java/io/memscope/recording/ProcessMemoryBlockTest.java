package io.memscope.recording;

import io.memscope.recording.Recording.ProcessMemorySamples;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.internal.recording.RecordingWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PROCESS_MEMORY blocks (format 1.5): samples round-trip block by block with their own part lists; impossible counts
 * and values are damage at the byte where they are; samples the writer cannot encode are refused, not written.
 */
class ProcessMemoryBlockTest {
    @TempDir
    Path dir;

    private static final ProcessMemorySamples FAST = new ProcessMemorySamples(List.of("rss", "heapUsed", "threads"),
            new long[] {-5_000, 95_000_000, 195_000_000},
            new long[] {100 << 20, 10 << 20, 12, 120 << 20, -1, 13, 110 << 20, 11 << 20, 12});
    private static final ProcessMemorySamples NMT = new ProcessMemorySamples(List.of("nmt.Thread.stack.committed"),
            new long[] {1_000_000_000}, new long[] {786_432});

    private Path write(ProcessMemorySamples... blocks) throws Exception {
        Path file = dir.resolve("pm.msrec");
        try (RecordingWriter w = RecordingWriter.builder(file).open()) {
            for (ProcessMemorySamples b : blocks) {
                w.processMemory(b);
            }
        }
        return file;
    }

    @Test
    void samplesRoundTripBlockByBlock() throws Exception {
        Recording rec = RecordingReader.readStrict(write(FAST, NMT));
        assertThat(rec.processMemory()).hasSize(2);
        ProcessMemorySamples a = rec.processMemory().get(0);
        assertThat(a.parts()).isEqualTo(FAST.parts());
        assertThat(a.timestamps()).isEqualTo(FAST.timestamps());
        assertThat(a.values()).isEqualTo(FAST.values());
        assertThat(a.value(1, a.part("heapUsed"))).isEqualTo(ProcessMemorySamples.UNKNOWN);
        assertThat(rec.processMemory().get(1).values()).containsExactly(786_432);
    }

    @Test
    void valuesBelowUnknownAndPartsNamedTwiceAreRefusedByTheWriter() throws Exception {
        ProcessMemorySamples bad = new ProcessMemorySamples(List.of("rss"), new long[] {1}, new long[] {-2});
        ProcessMemorySamples twice = new ProcessMemorySamples(List.of("rss", "rss"), new long[] {1}, new long[] {1, 2});
        Recording rec = RecordingReader.readStrict(write(bad, twice, FAST));
        assertThat(rec.processMemory()).hasSize(1);
    }

    @Test
    void aSampleCountBeyondThePayloadIsDamageAtItsByte() throws Exception {
        byte[] b = Files.readAllBytes(write(FAST));
        int at = indexOfBlock(b, 19);
        int len = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(at + 4);
        // the sample count follows the base timestamp, the part count and the three part names
        int p = at + 12;
        p = skipVarint(b, p); // base
        p = skipVarint(b, p); // part count
        for (int i = 0; i < 3; i++) {
            p = skipVarint(b, p);
        }
        b[p] = 0x7f; // 127 samples: more than the payload can hold
        fixCrc(b, at, len);
        Path file = dir.resolve("damaged.msrec");
        Files.write(file, b);
        Recording rec = RecordingReader.read(file);
        assertThat(rec.damage()).isPresent();
        assertThat(rec.damage().get().offset()).isEqualTo(p);
        assertThat(rec.damage().get().what()).contains("process memory sample count 127 impossible");
        assertThat(rec.processMemory()).isEmpty();
    }

    @Test
    void aValueBelowUnknownIsDamage() throws Exception {
        ProcessMemorySamples one = new ProcessMemorySamples(List.of("rss"), new long[] {0}, new long[] {1});
        byte[] b = Files.readAllBytes(write(one));
        int at = indexOfBlock(b, 19);
        int len = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(at + 4);
        b[at + 12 + len - 1] = 0x03; // zz(-2)
        fixCrc(b, at, len);
        Path file = dir.resolve("damaged.msrec");
        Files.write(file, b);
        Recording rec = RecordingReader.read(file);
        assertThat(rec.damage().get().what()).contains("part 'rss': value -2");
    }

    private static int indexOfBlock(byte[] b, int type) {
        int p = 52;
        while (p < b.length) {
            int len = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(p + 4);
            if ((b[p] & 0xff) == type) {
                return p;
            }
            p += 12 + len;
        }
        throw new AssertionError("no block of type " + type);
    }

    private static int skipVarint(byte[] b, int p) {
        while ((b[p] & 0x80) != 0) {
            p++;
        }
        return p + 1;
    }

    private static void fixCrc(byte[] b, int at, int len) {
        CRC32C crc = new CRC32C();
        crc.update(b, at, 8);
        crc.update(b, at + 12, len);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(at + 8, (int) crc.getValue());
    }
}
