package io.memscope.recording;

import io.memscope.recording.Recording.ProcessMemorySamples;

import io.memscope.internal.recording.RecordingWriter;
import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worked example of docs/formats/recording.md, section 8, byte for byte (format 1.7): the document is the
 * contract. And the examples of formats 1.0 to 1.5 the earlier versions documented, which readers still
 * read.
 */
class RecordingGoldenFileTest {
    /** The worked example of format 1.2, as that version of the document had it. */
    static final String EXAMPLE_1_2 =
            "4d535245430d0a1a" + "01000200" + "00000000" + "0000faed51728618" + "e803000000000000"
            + "9210000000000000" + "0000000000000000" + "180e4482"
            // STRINGS
            + "0100000051000000" + "805209a8" + "0107" + "046d61696e" + "06627974655b5d"
            + "13" + hex("G1 Young Generation") + "13" + hex("G1 Evacuation Pause") + "0f" + hex("end of minor GC")
            + "07" + hex("request") + "02" + hex("db")
            // EVENTS
            + "0400000013000000" + "87996b73" + "02" + "d00f" + "38" + "00" + "000101" + "8040" + "00" + "40" + "02"
            + "00" + "e807" + "8001" + "00"
            // GC
            + "050000000e000000" + "6f763d61" + "01" + "a01f" + "c0843d" + "03" + "04" + "8020" + "8008" + "8040"
            // GC_DETAILS (skippable)
            + "0901000002000000" + "209ab067" + "01" + "05"
            // SCOPE_PATHS (skippable)
            + "0a01000004000000" + "ce60282f" + "01" + "01" + "00" + "06"
            // SCOPE_EDGES (skippable)
            + "0b0100000f000000" + "4bd34305" + "02" + "9811" + "02" + "00" + "000101" + "01" + "09" + "b009" + "01"
            + "8001"
            // API_EVENTS (skippable)
            + "0c0100000c000000" + "6e5667a2" + "01" + "e012" + "8c02" + "00" + "000101" + "0e" + "00" + "07"
            // END
            + "0f000000050000001d6887b0" + "020001b817";

    /** The worked example of format 1.7 (docs/formats/recording.md, section 8). */
    static final String EXAMPLE =
            "4d535245430d0a1a" + "01000700" + "00000000" + "0000faed51728618" + "e803000000000000"
            + "9210000000000000" + "0000000000000000" + "495819ca"
            // STRINGS
            + "010000006c000000" + "29e476b3" + "0109" + "046d61696e" + "06627974655b5d"
            + "13" + hex("G1 Young Generation") + "13" + hex("G1 Evacuation Pause") + "0f" + hex("end of minor GC")
            + "07" + hex("request") + "02" + hex("db") + "05" + hex("carol") + "14" + hex("memory/cache/entries")
            // ACCOUNTING (skippable)
            + "0e01000017000000" + "f0a71a02" + "901c" + "01" + "02" + "01" + "00" + "08" + "00" + "09"
            + "04" + "02" + "c001" + "40" + "00" + "02" + "04" + "40" + "8001" + "c001" + "00"
            // STRINGS of the walk
            + "010000001c000000" + "9130d496" + "0a04" + "03" + hex("end") + "05" + hex("Cache") + "0b"
            + hex("class Cache") + "03" + hex("BUF")
            // RETENTION (skippable)
            + "1101000026000000" + "79aae841" + "d81d" + "c0843d" + "c08db701" + "00" + "0a" + "00" + "03" + "05"
            + "8020" + "02" + "00" + "2d" + "0b" + "0c" + "00" + "01" + "10" + "02" + "0d" + "00"
            + "02" + "8020" + "00" + "40" + "02" + "c020" + "00" + "40" + "00"
            // STRINGS of the process memory
            + "0100000014000000" + "85aa3462" + "0e02" + "03" + hex("rss") + "0d" + hex("heapCommitted")
            // PROCESS_MEMORY (skippable)
            + "1301000013000000" + "f6e4435d" + "bc1e" + "02" + "0e" + "0f" + "02" + "00" + "80c001" + "808001"
            + "c801" + "808002" + "01"
            // EVENTS
            + "0400000013000000" + "87996b73" + "02" + "d00f" + "38" + "00" + "000101" + "8040" + "00" + "40" + "02"
            + "00" + "e807" + "8001" + "00"
            // GC
            + "050000000e000000" + "6f763d61" + "01" + "a01f" + "c0843d" + "03" + "04" + "8020" + "8008" + "8040"
            // GC_DETAILS (skippable)
            + "0901000002000000" + "209ab067" + "01" + "05"
            // SCOPE_PATHS (skippable)
            + "0a01000004000000" + "ce60282f" + "01" + "01" + "00" + "06"
            // SCOPE_EDGES (skippable)
            + "0b0100000f000000" + "4bd34305" + "02" + "9811" + "02" + "00" + "000101" + "01" + "09" + "b009" + "01"
            + "8001"
            // API_EVENTS (skippable)
            + "0c0100000c000000" + "6e5667a2" + "01" + "e012" + "8c02" + "00" + "000101" + "0e" + "00" + "07"
            // END
            + "0f000000050000001d6887b0" + "020001b817";

    /** The worked example of format 1.5, as that version of the document had it. */
    static final String EXAMPLE_1_5 =
            "4d535245430d0a1a" + "01000500" + "00000000" + "0000faed51728618" + "e803000000000000"
            + "9210000000000000" + "0000000000000000" + "0918064d"
            // STRINGS
            + "010000006c000000" + "29e476b3" + "0109" + "046d61696e" + "06627974655b5d"
            + "13" + hex("G1 Young Generation") + "13" + hex("G1 Evacuation Pause") + "0f" + hex("end of minor GC")
            + "07" + hex("request") + "02" + hex("db") + "05" + hex("carol") + "14" + hex("memory/cache/entries")
            // ACCOUNTING (skippable)
            + "0e01000017000000" + "f0a71a02" + "901c" + "01" + "02" + "01" + "00" + "08" + "00" + "09"
            + "04" + "02" + "c001" + "40" + "00" + "02" + "04" + "40" + "8001" + "c001" + "00"
            // STRINGS of the walk
            + "010000001c000000" + "9130d496" + "0a04" + "03" + hex("end") + "05" + hex("Cache") + "0b"
            + hex("class Cache") + "03" + hex("BUF")
            // RETENTION (skippable)
            + "1101000026000000" + "79aae841" + "d81d" + "c0843d" + "c08db701" + "00" + "0a" + "00" + "03" + "05"
            + "8020" + "02" + "00" + "2d" + "0b" + "0c" + "00" + "01" + "10" + "02" + "0d" + "00"
            + "02" + "8020" + "00" + "40" + "02" + "c020" + "00" + "40" + "00"
            // STRINGS of the process memory
            + "0100000014000000" + "85aa3462" + "0e02" + "03" + hex("rss") + "0d" + hex("heapCommitted")
            // PROCESS_MEMORY (skippable)
            + "1301000013000000" + "f6e4435d" + "bc1e" + "02" + "0e" + "0f" + "02" + "00" + "80c001" + "808001"
            + "c801" + "808002" + "01"
            // EVENTS
            + "0400000013000000" + "87996b73" + "02" + "d00f" + "38" + "00" + "000101" + "8040" + "00" + "40" + "02"
            + "00" + "e807" + "8001" + "00"
            // GC
            + "050000000e000000" + "6f763d61" + "01" + "a01f" + "c0843d" + "03" + "04" + "8020" + "8008" + "8040"
            // GC_DETAILS (skippable)
            + "0901000002000000" + "209ab067" + "01" + "05"
            // SCOPE_PATHS (skippable)
            + "0a01000004000000" + "ce60282f" + "01" + "01" + "00" + "06"
            // SCOPE_EDGES (skippable)
            + "0b0100000f000000" + "4bd34305" + "02" + "9811" + "02" + "00" + "000101" + "01" + "09" + "b009" + "01"
            + "8001"
            // API_EVENTS (skippable)
            + "0c0100000c000000" + "6e5667a2" + "01" + "e012" + "8c02" + "00" + "000101" + "0e" + "00" + "07"
            // END
            + "0f000000050000001d6887b0" + "020001b817";

    /** The worked example of format 1.4, as that version of the document had it. */
    static final String EXAMPLE_1_4 =
            "4d535245430d0a1a" + "01000400" + "00000000" + "0000faed51728618" + "e803000000000000"
            + "9210000000000000" + "0000000000000000" + "29b8890e"
            // STRINGS
            + "010000006c000000" + "29e476b3" + "0109" + "046d61696e" + "06627974655b5d"
            + "13" + hex("G1 Young Generation") + "13" + hex("G1 Evacuation Pause") + "0f" + hex("end of minor GC")
            + "07" + hex("request") + "02" + hex("db") + "05" + hex("carol") + "14" + hex("memory/cache/entries")
            // ACCOUNTING (skippable)
            + "0e01000017000000" + "f0a71a02" + "901c" + "01" + "02" + "01" + "00" + "08" + "00" + "09"
            + "04" + "02" + "c001" + "40" + "00" + "02" + "04" + "40" + "8001" + "c001" + "00"
            // STRINGS of the walk
            + "010000001c000000" + "9130d496" + "0a04" + "03" + hex("end") + "05" + hex("Cache") + "0b"
            + hex("class Cache") + "03" + hex("BUF")
            // RETENTION (skippable)
            + "1101000026000000" + "79aae841" + "d81d" + "c0843d" + "c08db701" + "00" + "0a" + "00" + "03" + "05"
            + "8020" + "02" + "00" + "2d" + "0b" + "0c" + "00" + "01" + "10" + "02" + "0d" + "00"
            + "02" + "8020" + "00" + "40" + "02" + "c020" + "00" + "40" + "00"
            // EVENTS
            + "0400000013000000" + "87996b73" + "02" + "d00f" + "38" + "00" + "000101" + "8040" + "00" + "40" + "02"
            + "00" + "e807" + "8001" + "00"
            // GC
            + "050000000e000000" + "6f763d61" + "01" + "a01f" + "c0843d" + "03" + "04" + "8020" + "8008" + "8040"
            // GC_DETAILS (skippable)
            + "0901000002000000" + "209ab067" + "01" + "05"
            // SCOPE_PATHS (skippable)
            + "0a01000004000000" + "ce60282f" + "01" + "01" + "00" + "06"
            // SCOPE_EDGES (skippable)
            + "0b0100000f000000" + "4bd34305" + "02" + "9811" + "02" + "00" + "000101" + "01" + "09" + "b009" + "01"
            + "8001"
            // API_EVENTS (skippable)
            + "0c0100000c000000" + "6e5667a2" + "01" + "e012" + "8c02" + "00" + "000101" + "0e" + "00" + "07"
            // END
            + "0f000000050000001d6887b0" + "020001b817";

    /** The worked example of format 1.3, as that version of the document had it. */
    static final String EXAMPLE_1_3 =
            "4d535245430d0a1a" + "01000300" + "00000000" + "0000faed51728618" + "e803000000000000"
            + "9210000000000000" + "0000000000000000" + "38aecbc1"
            // STRINGS
            + "010000006c000000" + "29e476b3" + "0109" + "046d61696e" + "06627974655b5d"
            + "13" + hex("G1 Young Generation") + "13" + hex("G1 Evacuation Pause") + "0f" + hex("end of minor GC")
            + "07" + hex("request") + "02" + hex("db") + "05" + hex("carol") + "14" + hex("memory/cache/entries")
            // ACCOUNTING (skippable)
            + "0e01000017000000" + "f0a71a02" + "901c" + "01" + "02" + "01" + "00" + "08" + "00" + "09"
            + "04" + "02" + "c001" + "40" + "00" + "02" + "04" + "40" + "8001" + "c001" + "00"
            // EVENTS
            + "0400000013000000" + "87996b73" + "02" + "d00f" + "38" + "00" + "000101" + "8040" + "00" + "40" + "02"
            + "00" + "e807" + "8001" + "00"
            // GC
            + "050000000e000000" + "6f763d61" + "01" + "a01f" + "c0843d" + "03" + "04" + "8020" + "8008" + "8040"
            // GC_DETAILS (skippable)
            + "0901000002000000" + "209ab067" + "01" + "05"
            // SCOPE_PATHS (skippable)
            + "0a01000004000000" + "ce60282f" + "01" + "01" + "00" + "06"
            // SCOPE_EDGES (skippable)
            + "0b0100000f000000" + "4bd34305" + "02" + "9811" + "02" + "00" + "000101" + "01" + "09" + "b009" + "01"
            + "8001"
            // API_EVENTS (skippable)
            + "0c0100000c000000" + "6e5667a2" + "01" + "e012" + "8c02" + "00" + "000101" + "0e" + "00" + "07"
            // END
            + "0f000000050000001d6887b0" + "020001b817";

    /** The worked example of format 1.1 (two events, a GC with its action), as that version of the document had it. */
    static final String EXAMPLE_1_1 =
            "4d535245430d0a1a" + "01000100" + "00000000" + "0000faed51728618" + "e803000000000000"
            + "9210000000000000" + "0000000000000000" + "78eed446"
            // STRINGS
            + "0100000046000000" + "15dbbbe6" + "0105" + "046d61696e" + "06627974655b5d"
            + "13" + hex("G1 Young Generation") + "13" + hex("G1 Evacuation Pause") + "0f" + hex("end of minor GC")
            // EVENTS
            + "0400000013000000" + "87996b73" + "02" + "d00f" + "38" + "00" + "000101" + "8040" + "00" + "40" + "02"
            + "00" + "e807" + "8001" + "00"
            // GC
            + "050000000e000000" + "6f763d61" + "01" + "a01f" + "c0843d" + "03" + "04" + "8020" + "8008" + "8040"
            // GC_DETAILS (skippable)
            + "0901000002000000" + "209ab067" + "01" + "05"
            // END
            + "0f000000050000001d6887b0" + "020001b817";

    /** The worked example of format 1.0 (two events, no GC), as the first version of the document had it. */
    static final String EXAMPLE_1_0 =
            "4d535245430d0a1a" + "01000000" + "00000000" + "0000faed51728618" + "e803000000000000"
            + "9210000000000000" + "0000000000000000" + "584e5b05"
            + "010000000e0000000fb29815" + "0102" + "046d61696e" + "06627974655b5d"
            + "0400000013000000" + "87996b73" + "02" + "d00f" + "38" + "00" + "000101" + "8040" + "00" + "40" + "02"
            + "00" + "e807" + "8001" + "00"
            + "0f000000050000001d6887b0" + "020001b817";

    @TempDir
    Path dir;

    private static String hex(String ascii) {
        return HexFormat.of().formatHex(ascii.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Test
    void writerProducesTheDocumentedExampleAndTheReaderDecodesIt() throws Exception {
        Path file = dir.resolve("example.msrec");
        try (RecordingWriter w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, 1000)
                .process(4242, 0).open()) {
            int main = w.strings().intern("main");
            int type = w.strings().intern("byte[]");
            w.accept(1000, MemoryEventType.ALLOCATE, 0x1000, 64, 0, 1, main, 0, type, 0, 0);
            w.accept(1500, MemoryEventType.ALLOCATE, 0x1040, 64, 0, 1, main, 0, type, 0, 0);
            w.gc(2000, 1_000_000, "G1 Young Generation", "G1 Evacuation Pause", 4096, 1024, 8192, "end of minor GC");
            w.scopePath(1, 0, "request");
            w.scopeEdge(1100, 1, main, false, 1, 0, -1);
            w.scopeEdge(1700, 1, main, true, 1, 0, 128);
            w.apiEvent(1200, MemoryEventType.BORROW, 7, 0, 0, 1, main, w.strings().intern("db"), 0, 0, 0);
            w.accounting(new AccountingSnapshot(1800, List.of(CAROL)));
            w.retention(WALK);
            w.processMemory(PROCESS);
        }
        assertThat(HexFormat.of().formatHex(Files.readAllBytes(file))).isEqualTo(EXAMPLE);

        Path golden = dir.resolve("golden.msrec");
        Files.write(golden, HexFormat.of().parseHex(EXAMPLE));
        Recording rec = RecordingReader.readStrict(golden);
        assertThat(rec.header().majorVersion()).isEqualTo(1);
        assertThat(rec.header().minorVersion()).isEqualTo(7);
        // the same bytes as format 1.6 (a file that is not a chunk after the first is the same in both)
        Path v16 = dir.resolve("golden-1.6.msrec");
        Files.write(v16, HexFormat.of().parseHex(EXAMPLE.replace("0100070000000000", "0100060000000000")
                .replace("495819ca", "69f89689")));
        Recording rec16 = RecordingReader.readStrict(v16);
        assertThat(rec16.header().minorVersion()).isEqualTo(6);
        assertThat(rec16.events()).isEqualTo(rec.events());
        assertThat(rec.accounting()).isEqualTo(new AccountingSnapshot(1800, List.of(CAROL)));
        assertThat(rec.retentionWalks()).containsExactly(WALK);
        assertThat(rec.processMemory()).singleElement().satisfies(p -> {
            assertThat(p.parts()).containsExactly("rss", "heapCommitted");
            assertThat(p.timestamps()).containsExactly(1950, 2050);
            assertThat(p.values()).containsExactly(12288, 8192, 16384, -1);
        });
        assertThat(rec.header().toInstant(1000).toString()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(rec.eventCount()).isEqualTo(2);
        assertThat(rec.event(1).address()).isEqualTo(0x1040);
        assertThat(rec.event(1).threadName()).isEqualTo("main");
        assertThat(rec.event(1).typeName()).isEqualTo("byte[]");
        assertThat(rec.gcRecords()).containsExactly(new GcRecord(2000, 1_000_000, "G1 Young Generation",
                "G1 Evacuation Pause", 4096, 1024, 8192, "end of minor GC"));
        assertThat(rec.skippedBlocks()).isZero();
        assertThat(rec.scopePaths()).containsExactly(java.util.Map.entry(1, new ScopePath(1, 0, "request")));
        assertThat(rec.scopeEdges()).containsExactly(new ScopePath.Edge(1100, 1, "main", false, 1, 0, -1),
                new ScopePath.Edge(1700, 1, "main", true, 1, 0, 128));
        assertThat(rec.apiEvents()).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(MemoryEventType.BORROW);
            assertThat(e.address()).isEqualTo(7);
            assertThat(e.variableName()).isEqualTo("db");
            assertThat(e.timestampNanos()).isEqualTo(1200);
        });
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
        assertThat(RecordingReader.isClosed(golden)).isTrue();
    }

    /** One row of the accounting table by user: carol's cache entries, 96 bytes allocated, 32 freed. */
    static final io.memscope.accounting.SummaryRow CAROL = new io.memscope.accounting.SummaryRow(
            io.memscope.accounting.SummaryTable.USER, -1, null, "carol", null, "memory/cache/entries",
            new long[] {2, 1, 96, 32, 0, 1, 2, 32, 64, 96, 0});

    /** The example's walk: Cache.BUF holds the first sample; the second one was not reached. */
    static final RetentionWalk WALK = new RetentionWalk(1900, 1_000_000, 3_000_000, RetentionWalk.Outcome.COMPLETE,
            "end", null, 3, 5, 4096,
            List.of(new RetentionWalk.Node(-1, RetentionWalk.Kind.SYSTEM_CLASS, true, "Cache", "class Cache", 0),
                    new RetentionWalk.Node(0, RetentionWalk.Kind.STATIC_FIELD, false, "byte[]", "BUF", 0)),
            List.of(new RetentionWalk.Sample(0x1000, 0, 64, 1), new RetentionWalk.Sample(0x1040, 0, 64, -1)));

    /** The example's process memory: two samples of RSS and the committed heap, the second heap figure unknown. */
    static final ProcessMemorySamples PROCESS = new ProcessMemorySamples(List.of("rss", "heapCommitted"),
            new long[] {1950, 2050}, new long[] {12288, 8192, 16384, -1});

    @Test
    void theExampleOf15IsStillRead() throws Exception {
        Path golden = dir.resolve("golden-1.5.msrec");
        Files.write(golden, HexFormat.of().parseHex(EXAMPLE_1_5));
        Recording rec = RecordingReader.readStrict(golden);
        assertThat(rec.header().minorVersion()).isEqualTo(5);
        assertThat(rec.retentionWalks()).containsExactly(WALK);
        assertThat(rec.processMemory()).hasSize(1);
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
    }

    @Test
    void theExampleOf14IsStillRead() throws Exception {
        Path golden = dir.resolve("golden-1.4.msrec");
        Files.write(golden, HexFormat.of().parseHex(EXAMPLE_1_4));
        Recording rec = RecordingReader.readStrict(golden);
        assertThat(rec.header().minorVersion()).isEqualTo(4);
        assertThat(rec.retentionWalks()).containsExactly(WALK);
        assertThat(rec.processMemory()).isEmpty();
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
    }

    @Test
    void aReaderThatDoesNotKnowProcessMemorySkipsIt() throws Exception {
        // What a reader of 1.4 sees: an unknown type marked SKIPPABLE. Simulate it by renumbering the block.
        byte[] b = HexFormat.of().parseHex(EXAMPLE);
        int at = EXAMPLE.indexOf("1301000013000000") / 2;
        int len = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(at + 4);
        b[at] = (byte) 201;
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b, at, 8);
        crc.update(b, at + 12, len);
        java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(at + 8, (int) crc.getValue());
        Path file = dir.resolve("old-reader-1.4.msrec");
        Files.write(file, b);
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.skippedBlocks()).isOne();
        assertThat(rec.processMemory()).isEmpty();
        assertThat(rec.retentionWalks()).containsExactly(WALK);
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
    }

    @Test
    void theExampleOf13IsStillRead() throws Exception {
        Path golden = dir.resolve("golden-1.3.msrec");
        Files.write(golden, HexFormat.of().parseHex(EXAMPLE_1_3));
        Recording rec = RecordingReader.readStrict(golden);
        assertThat(rec.header().minorVersion()).isEqualTo(3);
        assertThat(rec.accounting()).isEqualTo(new AccountingSnapshot(1800, List.of(CAROL)));
        assertThat(rec.retentionWalks()).isEmpty();
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
    }

    @Test
    void aReaderThatDoesNotKnowRetentionSkipsIt() throws Exception {
        // What a reader of 1.3 sees: an unknown type marked SKIPPABLE. Simulate it by renumbering the block.
        byte[] b = HexFormat.of().parseHex(EXAMPLE);
        int at = EXAMPLE.indexOf("1101000026000000") / 2;
        b[at] = (byte) 200;
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b, at, 8);
        crc.update(b, at + 12, 0x26);
        java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(at + 8, (int) crc.getValue());
        Path file = dir.resolve("old-reader-1.3.msrec");
        Files.write(file, b);
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.skippedBlocks()).isOne();
        assertThat(rec.retentionWalks()).isEmpty();
        assertThat(rec.accounting()).isEqualTo(new AccountingSnapshot(1800, List.of(CAROL)));
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
    }

    @Test
    void theExampleOf12IsStillRead() throws Exception {
        Path golden = dir.resolve("golden-1.2.msrec");
        Files.write(golden, HexFormat.of().parseHex(EXAMPLE_1_2));
        Recording rec = RecordingReader.readStrict(golden);
        assertThat(rec.header().minorVersion()).isEqualTo(2);
        assertThat(rec.accounting()).isNull();
        assertThat(rec.eventCount()).isEqualTo(2);
        assertThat(rec.scopeEdges()).hasSize(2);
        assertThat(rec.apiEvents()).hasSize(1);
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
    }

    @Test
    void aReaderThatKnowsNoneOfTheBlocksOf12SkipsThemAndReadsTheRest() throws Exception {
        // What a reader of 1.0 or 1.1 sees: three unknown types marked SKIPPABLE. Simulate it by renumbering them.
        byte[] b = HexFormat.of().parseHex(EXAMPLE);
        for (String block : List.of("0a01000004000000", "0b0100000f000000", "0c0100000c000000")) {
            int at = EXAMPLE.indexOf(block) / 2;
            int len = b[at + 4];
            b[at] = (byte) (200 + b[at]);
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(b, at, 8);
            crc.update(b, at + 12, len);
            java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(at + 8, (int) crc.getValue());
        }
        Path file = dir.resolve("old-reader.msrec");
        Files.write(file, b);
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.skippedBlocks()).isEqualTo(3);
        assertThat(rec.eventCount()).isEqualTo(2);
        assertThat(rec.scopeEdges()).isEmpty();
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
    }

    @Test
    void theFormat11ExampleStillReads() throws Exception {
        Path golden = dir.resolve("golden-1.1.msrec");
        Files.write(golden, HexFormat.of().parseHex(EXAMPLE_1_1));
        Recording rec = RecordingReader.readStrict(golden);
        assertThat(rec.header().minorVersion()).isEqualTo(1);
        assertThat(rec.gcRecords()).singleElement().satisfies(g -> assertThat(g.action()).isEqualTo("end of minor GC"));
        assertThat(rec.scopePaths()).isEmpty();
    }

    @Test
    void aReaderOfTheMajorVersionThatDoesNotKnowGcDetailsSkipsIt() throws Exception {
        // What a 1.0 reader sees: GC_DETAILS is an unknown type marked SKIPPABLE (flags byte 01). Simulate it by
        // renumbering the block to a type no reader knows, keeping its flags and fixing its CRC.
        byte[] b = HexFormat.of().parseHex(EXAMPLE_1_1);
        int at = EXAMPLE_1_1.indexOf("0901000002000000") / 2;
        b[at] = (byte) 200;
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b, at, 8);
        crc.update(b, at + 12, 2);
        java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(at + 8, (int) crc.getValue());
        Path file = dir.resolve("unknown-block.msrec");
        Files.write(file, b);
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.skippedBlocks()).isOne();
        assertThat(rec.gcRecords()).singleElement().satisfies(g -> {
            assertThat(g.heapUsedAfter()).isEqualTo(1024);
            assertThat(g.action()).isNull();
        });
    }

    @Test
    void theFormat10ExampleStillReads() throws Exception {
        Path golden = dir.resolve("golden-1.0.msrec");
        Files.write(golden, HexFormat.of().parseHex(EXAMPLE_1_0));
        Recording rec = RecordingReader.readStrict(golden);
        assertThat(rec.header().minorVersion()).isZero();
        assertThat(rec.eventCount()).isEqualTo(2);
        assertThat(rec.event(0).typeName()).isEqualTo("byte[]");
        assertThat(rec.totals().get()).isEqualTo(new Totals(2, 0, true, 1500));
    }

    @Test
    void gcDetailsMustFollowItsGcBlock() throws Exception {
        // A GC_DETAILS block with no GC block right before it is damage, reported at the entry.
        String misplaced = EXAMPLE_1_1.replace("0901000002000000209ab0670105", "");
        int eventsAt = misplaced.indexOf("0400000013000000");
        byte[] details = TestFiles.block(9, 1, new byte[] {1, 5});
        String moved = misplaced.substring(0, eventsAt) + HexFormat.of().formatHex(details)
                + misplaced.substring(eventsAt);
        Path file = dir.resolve("misplaced.msrec");
        Files.write(file, HexFormat.of().parseHex(moved));
        Recording rec = RecordingReader.read(file);
        assertThat(rec.damage()).hasValueSatisfying(d ->
                assertThat(d.what()).contains("GC_DETAILS block without a GC block right before it"));
        assertThat(rec.eventCount()).isZero();

        // Streaming delivers a GC record once, completed by its details.
        List<GcRecord> seen = new ArrayList<>();
        Path good = dir.resolve("good.msrec");
        Files.write(good, HexFormat.of().parseHex(EXAMPLE_1_1));
        RecordingReader.stream(good, new RecordingVisitor() {
            @Override
            public void gc(GcRecord record) {
                seen.add(record);
            }
        });
        assertThat(seen).extracting(GcRecord::action).containsExactly("end of minor GC");
    }

    @Test
    void isClosedLooksAtTheTailOnly() throws Exception {
        byte[] b = HexFormat.of().parseHex(EXAMPLE);
        Path truncated = dir.resolve("truncated.msrec");
        Files.write(truncated, java.util.Arrays.copyOf(b, b.length - 17));
        assertThat(RecordingReader.isClosed(truncated)).isFalse();
        b[b.length - 1] ^= 1;
        Path flipped = dir.resolve("flipped.msrec");
        Files.write(flipped, b);
        assertThat(RecordingReader.isClosed(flipped)).isFalse();
        assertThat(RecordingReader.isClosed(dir.resolve("missing.msrec"))).isFalse();
    }
}
