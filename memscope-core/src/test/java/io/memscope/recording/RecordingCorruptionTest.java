package io.memscope.recording;

import io.memscope.internal.recording.BlockType;
import io.memscope.internal.recording.RecordingFormat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.memscope.MemoryEvent;
import io.memscope.error.CorruptFileException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class RecordingCorruptionTest {
    @TempDir
    Path dir;

    private byte[] good;
    private List<MemoryEvent> goodEvents;
    private List<TestFiles.BlockInfo> blocks;

    @BeforeEach
    void writeSmallFile() throws IOException {
        Path file = dir.resolve("small.msrec");
        RecordingRoundTripTest.Expected x = RecordingRoundTripTest.writeRandom(file, 99, 80, 256);
        good = Files.readAllBytes(file);
        goodEvents = x.events;
        blocks = TestFiles.blocks(good);
        assertThat(blocks.get(blocks.size() - 1).type()).isEqualTo(BlockType.END.code);
        assertThat(blocks.stream().filter(b -> b.type() == BlockType.EVENTS.code).count()).isGreaterThan(3);
    }

    private Path write(String name, byte[] bytes) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return p;
    }

    @Test
    void truncationAtEveryOffsetReturnsEveryCompleteBlockAndNamesTheOffset() throws IOException {
        for (int cut = 0; cut < good.length; cut++) {
            Path p = write("cut.msrec", Arrays.copyOf(good, cut));
            if (cut < RecordingFormat.HEADER_BYTES) {
                int at = cut;
                assertThatThrownBy(() -> RecordingReader.read(p)).isInstanceOf(CorruptFileException.class)
                        .hasMessageContaining("at offset " + (cut == 0 ? 0 : at));
                continue;
            }
            Recording rec = RecordingReader.read(p);
            int complete = 0;
            long lastCompleteEnd = RecordingFormat.HEADER_BYTES;
            for (TestFiles.BlockInfo b : blocks) {
                if (b.end() <= cut) {
                    complete += b.events();
                    lastCompleteEnd = b.end();
                }
            }
            assertThat(rec.eventCount()).as("events at cut %d", cut).isEqualTo(complete);
            assertThat(rec.events()).isEqualTo(goodEvents.subList(0, complete));
            assertThat(rec.damage()).as("damage at cut %d", cut).isPresent();
            assertThat(rec.damage().get().offset()).isEqualTo(lastCompleteEnd);
            assertThat(rec.totals()).isEmpty();
            assertThatThrownBy(() -> RecordingReader.readStrict(p)).isInstanceOf(CorruptFileException.class)
                    .hasMessageContaining("at offset " + lastCompleteEnd);
        }
    }

    @Test
    void killedWriterMessageSaysTheFileWasNotClosed() throws IOException {
        int endStart = blocks.get(blocks.size() - 1).start();
        Recording rec = RecordingReader.read(write("noend.msrec", Arrays.copyOf(good, endStart)));
        assertThat(rec.eventCount()).isEqualTo(goodEvents.size());
        assertThat(rec.damage().get().what()).contains("without an END block");
        assertThat(rec.damage().get().offset()).isEqualTo(endStart);
    }

    @Test
    void randomByteFlipsNeverThrowAnythingButCorruptFileException() throws IOException {
        SplittableRandom r = new SplittableRandom(2024);
        int damaged = 0;
        for (int i = 0; i < 3000; i++) {
            byte[] bad = good.clone();
            int flips = 1 + r.nextInt(4);
            for (int f = 0; f < flips; f++) {
                int at = r.nextInt(bad.length);
                bad[at] = (byte) (r.nextBoolean() ? bad[at] ^ (1 << r.nextInt(8)) : r.nextInt(256));
            }
            // Half of the mutations get valid CRCs, so that the payload decoders see garbage.
            boolean fixed = i % 2 == 0;
            if (fixed) {
                TestFiles.fixCrcs(bad);
            }
            Path p = write("fuzz.msrec", bad);
            try {
                Recording rec = RecordingReader.read(p);
                if (rec.damage().isPresent()) {
                    damaged++;
                    assertThat(rec.damage().get().offset()).isBetween(0L, (long) bad.length);
                    if (!fixed) {
                        // Without fixed CRCs, everything read is a prefix of what was written.
                        assertThat(rec.events()).isEqualTo(goodEvents.subList(0, rec.eventCount()));
                    }
                }
            } catch (CorruptFileException expected) {
                assertThat(expected.offset()).isBetween(0L, (long) RecordingFormat.HEADER_BYTES);
            }
        }
        assertThat(damaged).isGreaterThan(1000);
    }

    @Test
    void wrongMagic() throws IOException {
        byte[] bad = good.clone();
        bad[3] = 'X';
        assertThatThrownBy(() -> RecordingReader.read(write("magic.msrec", bad)))
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("at offset 3: not a memscope recording");
    }

    @Test
    void futureMajorVersionIsRejectedWithAClearMessage() throws IOException {
        Path p = write("v2.msrec", TestFiles.header(2, 0, 0));
        assertThatThrownBy(() -> RecordingReader.read(p)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("version 2.0 is not supported").hasMessageContaining("newer memscope");
    }

    @Test
    void futureMinorVersionSkipsUnknownSkippableBlocksButStopsAtUnknownRequiredOnes() throws IOException {
        byte[] end = TestFiles.block(BlockType.END.code, 0, TestFiles.concat(TestFiles.uleb(0, 0), new byte[] {1, 0}));
        Path p = write("v1_5.msrec", TestFiles.concat(TestFiles.header(1, 5, 1 << 20),
                TestFiles.block(99, RecordingFormat.BLOCK_FLAG_SKIPPABLE, new byte[] {1, 2, 3}), end));
        Recording rec = RecordingReader.readStrict(p);
        assertThat(rec.header().minorVersion()).isEqualTo(5);
        assertThat(rec.skippedBlocks()).isEqualTo(1);
        assertThat(rec.totals()).isPresent();

        Path q = write("required.msrec", TestFiles.concat(TestFiles.header(1, 5, 0),
                TestFiles.block(99, 0, new byte[] {1, 2, 3}), end));
        assertThat(RecordingReader.read(q).damage().get().what()).contains("unknown block type 99");
        assertThat(RecordingReader.read(q).damage().get().offset()).isEqualTo(RecordingFormat.HEADER_BYTES);
    }

    @Test
    void unknownRequiredHeaderFlagIsRejected() throws IOException {
        assertThatThrownBy(() -> RecordingReader.read(write("flags.msrec", TestFiles.header(1, 0, 4))))
                .hasMessageContaining("at offset 12: unknown required header flags");
    }

    @Test
    void headerCrcMismatch() throws IOException {
        byte[] bad = good.clone();
        bad[20] ^= 1;
        assertThatThrownBy(() -> RecordingReader.read(write("hcrc.msrec", bad)))
                .hasMessageContaining("at offset 48: file header CRC mismatch");
    }

    @Test
    void blockLongerThanTheLimitIsDamageBeforeAnyAllocation() throws IOException {
        byte[] huge = TestFiles.block(BlockType.STRINGS.code, 0, new byte[0]);
        java.nio.ByteBuffer.wrap(huge).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(4, -1);
        Recording rec = RecordingReader.read(write("huge.msrec", TestFiles.concat(TestFiles.header(1, 0, 0), huge)));
        assertThat(rec.damage().get().what()).contains("block length 4294967295 exceeds the limit");
    }

    @Test
    void blockCrcMismatchNamesTheBlock() throws IOException {
        TestFiles.BlockInfo third = blocks.get(2);
        byte[] bad = good.clone();
        bad[third.end() - 1] ^= 0x10;
        Recording rec = RecordingReader.read(write("crc.msrec", bad));
        assertThat(rec.damage().get().offset()).isEqualTo(third.start());
        assertThat(rec.damage().get().what()).contains("CRC mismatch");
    }

    @Test
    void stringIdOutOfRangeAndNonDenseStringsAreDamage() throws IOException {
        byte[] strings = TestFiles.block(BlockType.STRINGS.code, 0,
                TestFiles.concat(TestFiles.uleb(1, 1, 1), new byte[] {'a'}));
        byte[] badMeta = TestFiles.block(BlockType.METADATA.code, 0, TestFiles.uleb(1, 1, 2));
        Recording rec = RecordingReader.read(write("sid.msrec", TestFiles.concat(TestFiles.header(1, 0, 0),
                strings, badMeta)));
        assertThat(rec.damage().get().what()).contains("metadata value string id 2 is not defined");
        long metaPayload = RecordingFormat.HEADER_BYTES + strings.length + 12;
        assertThat(rec.damage().get().offset()).isEqualTo(metaPayload + 2);

        byte[] gap = TestFiles.block(BlockType.STRINGS.code, 0, TestFiles.concat(TestFiles.uleb(3, 1, 1),
                new byte[] {'b'}));
        Recording rec2 = RecordingReader.read(write("gap.msrec", TestFiles.concat(TestFiles.header(1, 0, 0),
                strings, gap)));
        assertThat(rec2.damage().get().what()).contains("string ids not dense");
        assertThat(rec2.stringCount()).isEqualTo(2);
    }

    @Test
    void hugeCountsAreRejectedBeforeAllocating() throws IOException {
        byte[] events = TestFiles.block(BlockType.EVENTS.code, 0, TestFiles.uleb(1_000_000, 0, 0, 0, 0, 0));
        Recording rec = RecordingReader.read(write("count.msrec", TestFiles.concat(TestFiles.header(1, 0, 0),
                events)));
        assertThat(rec.damage().get().what()).contains("event count 1000000 impossible");
    }

    @Test
    void endTotalsMustMatchTheEventsInTheFileAndNothingMayFollowEnd() throws IOException {
        byte[] end = TestFiles.block(BlockType.END.code, 0, TestFiles.concat(TestFiles.uleb(5, 0), new byte[] {1, 0}));
        Recording rec = RecordingReader.read(write("end.msrec", TestFiles.concat(TestFiles.header(1, 0, 0), end)));
        assertThat(rec.damage().get().what()).contains("END block says 5 events were written, the file holds 0");

        Recording rec2 = RecordingReader.read(write("after.msrec", TestFiles.concat(good, new byte[] {0, 0})));
        assertThat(rec2.damage().get().what()).contains("2 bytes after the END block");
        assertThat(rec2.eventCount()).isEqualTo(goodEvents.size());
        assertThat(rec2.totals()).isPresent();
    }
}
