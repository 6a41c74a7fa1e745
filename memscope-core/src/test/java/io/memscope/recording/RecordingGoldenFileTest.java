package io.memscope.recording;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worked example of docs/formats/recording.md, section 8, byte for byte: the document is the contract. */
class RecordingGoldenFileTest {
    static final String EXAMPLE =
            "4d535245430d0a1a" + "01000000" + "00000000" + "0000faed51728618" + "e803000000000000"
            + "9210000000000000" + "0000000000000000" + "584e5b05"
            + "010000000e0000000fb29815" + "0102" + "046d61696e" + "06627974655b5d"
            + "0400000013000000" + "87996b73" + "02" + "d00f" + "38" + "00" + "000101" + "8040" + "00" + "40" + "02"
            + "00" + "e807" + "8001" + "00"
            + "0f000000050000001d6887b0" + "020001b817";

    @TempDir
    Path dir;

    @Test
    void writerProducesTheDocumentedExampleAndTheReaderDecodesIt() throws Exception {
        Path file = dir.resolve("example.msrec");
        try (RecordingWriter w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, 1000)
                .process(4242, 0).open()) {
            int main = w.strings().intern("main");
            int type = w.strings().intern("byte[]");
            w.accept(1000, MemoryEventType.ALLOCATE, 0x1000, 64, 0, 1, main, 0, type, 0, 0);
            w.accept(1500, MemoryEventType.ALLOCATE, 0x1040, 64, 0, 1, main, 0, type, 0, 0);
        }
        assertThat(HexFormat.of().formatHex(Files.readAllBytes(file))).isEqualTo(EXAMPLE);

        Path golden = dir.resolve("golden.msrec");
        Files.write(golden, HexFormat.of().parseHex(EXAMPLE));
        Recording rec = RecordingReader.readStrict(golden);
        assertThat(rec.header().toInstant(1000).toString()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(rec.eventCount()).isEqualTo(2);
        assertThat(rec.event(1).address()).isEqualTo(0x1040);
        assertThat(rec.event(1).threadName()).isEqualTo("main");
        assertThat(rec.event(1).typeName()).isEqualTo("byte[]");
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
    }
}
