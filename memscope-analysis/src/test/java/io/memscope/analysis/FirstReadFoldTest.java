package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.internal.recording.ChunkPolicy;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.recording.Damage;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingReader.ChunkSet;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first read folds the events of EVENTS blocks in parts on several threads with a light decoder
 * ({@link RecordingReader#readTables(Path, io.memscope.recording.RecordingVisitor, RecordingReader.EventFold)}):
 * what {@link FirstReadStreams} learns that way (count, first and last timestamp, the sites' allocation windows
 * over the whole run and inside a report's window) and the damage must be what a plain read in file order, every
 * event decoded in full and delivered to {@link FirstReadStreams#accept}, gives: on recordings of many blocks,
 * damaged ones (a corrupt block, a truncated last block, a killed writer, a malformed block whose CRC matches), and
 * chunked ones (all chunks, a window's selection read from its carried state).
 */
class FirstReadFoldTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long START = 1_000 * SECOND;
    /** Small dense ids, ids past the dense table, and ids above 2^31 (negative as an int). */
    private static final int[] SITES = {1, 2, 3, 7, 40, 65_535, 65_536, 70_001, 1 << 30, -5};
    private static final TimeWindow[] WINDOWS = {TimeWindow.ALL, new TimeWindow(20.0, 45.0),
            new TimeWindow(null, null, 30.0), new TimeWindow(5.0, null)};

    @Test
    void manyBlocksGiveTheFiguresOfAReadInFileOrder(@TempDir Path dir) {
        Path file = dir.resolve("run.msrec");
        write(file, 60, 0, true);
        assertThat(blocks(file, 4).size()).as("EVENTS blocks").isGreaterThan(200);
        for (TimeWindow w : WINDOWS) {
            Figures folded = folded(file, w);
            assertThat(folded).isEqualTo(sequential(file, w));
            assertThat(folded.events()).isGreaterThan(100_000);
            assertThat(folded.damage()).isNull();
        }
        assertThat(folded(file, WINDOWS[1]).inWindow()).as("the window's allocation windows were learnt").isNotEmpty();
    }

    @Test
    void metadataAfterTheFirstEventsPlacesTheWindowByTheHeaderAsInOrder(@TempDir Path dir) {
        Path file = dir.resolve("late-metadata.msrec");
        write(file, 30, 0, false);
        for (TimeWindow w : WINDOWS) {
            assertThat(folded(file, w)).isEqualTo(sequential(file, w));
        }
    }

    @Test
    void damageEndsTheFoldWhereItEndsTheReadInOrder(@TempDir Path dir) throws Exception {
        Path sound = dir.resolve("sound.msrec");
        write(sound, 40, 0, true);
        byte[] bytes = Files.readAllBytes(sound);
        List<int[]> events = blocks(sound, 4);
        int[] middle = events.get(events.size() / 2);
        int[] later = events.get(events.size() * 3 / 4);

        Path corrupt = dir.resolve("corrupt.msrec"); // a payload byte flipped: CRC mismatch
        byte[] c = bytes.clone();
        c[middle[1] + 12 + middle[2] / 2] ^= 0x5A;
        Files.write(corrupt, c);

        Path truncated = dir.resolve("truncated.msrec"); // cut inside the last EVENTS block
        int[] last = events.get(events.size() - 1);
        Files.write(truncated, Arrays.copyOf(bytes, last[1] + 12 + last[2] / 3));

        Path killed = dir.resolve("killed.msrec"); // killed between two blocks: no END
        Files.write(killed, Arrays.copyOf(bytes, later[1]));

        Path malformed = dir.resolve("malformed.msrec"); // the last varint runs past the payload, the CRC matches
        Files.write(malformed, malformed(bytes, middle));

        Path malformedTwice = dir.resolve("malformed-twice.msrec"); // the first one in file order is the damage
        Files.write(malformedTwice, malformed(malformed(bytes, later), middle));

        Path malformedFirst = dir.resolve("malformed-first.msrec"); // no event readable at all
        Files.write(malformedFirst, malformed(bytes, events.get(0)));

        for (Path p : List.of(corrupt, truncated, killed, malformed, malformedTwice, malformedFirst)) {
            for (TimeWindow w : WINDOWS) {
                Figures folded = folded(p, w);
                assertThat(folded).as(p.getFileName() + " " + w).isEqualTo(sequential(p, w));
                assertThat(folded.damage()).as(p.getFileName().toString()).isNotNull();
            }
        }
        assertThat(folded(malformed, TimeWindow.ALL).damage().what()).contains("EVENTS block at " + middle[1])
                .contains("runs past the end");
        assertThat(folded(malformedTwice, TimeWindow.ALL).damage().what()).contains("EVENTS block at " + middle[1]);
        assertThat(folded(malformedFirst, TimeWindow.ALL).events()).isZero();
        assertThat(folded(killed, TimeWindow.ALL).damage().what()).contains("without an END block");
    }

    @Test
    void aChunkedRecordingFoldsAsItReadsInOrder(@TempDir Path dir) {
        Path folder = dir.resolve("run");
        try {
            Files.createDirectories(folder);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        write(folder.resolve("recording.msrec"), 60, 5, true);
        ChunkSet all = ChunkSet.of(folder);
        assertThat(all.count()).isGreaterThanOrEqualTo(10);
        ChunkSet some = all.select(START + 20 * SECOND, START + 40 * SECOND, SECOND);
        assertThat(some.count()).isLessThan(all.count());
        for (TimeWindow w : WINDOWS) {
            assertThat(folded(folder, w)).isEqualTo(sequential(folder, w));
            assertThat(foldedChunks(some, w)).isEqualTo(sequentialChunks(some, w));
        }
        assertThat(foldedChunks(some, TimeWindow.ALL).events()).as("the carried allocations are counted").isPositive();
    }

    /** What the first read learnt, and what the read found. */
    record Figures(long events, long first, long last, List<String> all, List<String> inWindow, Damage damage,
                   int skippedBlocks, int sites, int gcs, int strings) {
    }

    private static Figures folded(Path file, TimeWindow w) {
        FirstReadStreams s = new FirstReadStreams(w);
        return figures(s, RecordingReader.readTables(file, s, s));
    }

    private static Figures sequential(Path file, TimeWindow w) {
        FirstReadStreams s = new FirstReadStreams(w);
        return figures(s, RecordingReader.readTables(file, s));
    }

    private static Figures foldedChunks(ChunkSet chunks, TimeWindow w) {
        FirstReadStreams s = new FirstReadStreams(w);
        return figures(s, RecordingReader.readTables(chunks, s, s));
    }

    private static Figures sequentialChunks(ChunkSet chunks, TimeWindow w) {
        FirstReadStreams s = new FirstReadStreams(w);
        return figures(s, RecordingReader.readTables(chunks, s));
    }

    private static Figures figures(FirstReadStreams s, Recording r) {
        return new Figures(s.eventCount, s.firstNanos, s.lastNanos, windows(s.all),
                s.inWindow == null ? null : windows(s.inWindow), r.damage().orElse(null), r.skippedBlocks(),
                r.sites().size(), r.gcRecords().size(), r.stringCount());
    }

    private static List<String> windows(AllocationWindows w) {
        List<String> out = new ArrayList<>();
        for (int site : SITES) {
            long[] x = w.window(site);
            out.add(site + "=" + (x == null ? "-" : x[0] + ".." + x[1]));
        }
        out.add("from=" + w.from() + " to=" + w.to() + " covers=" + w.covers(w.from(), w.to()));
        return out;
    }

    /**
     * {@code seconds} of events at random sites (allocations, frees, reallocations) with times that go back a little
     * now and then, small blocks, a collection every 3 s; a chunk every {@code chunkSeconds} (0: one file). The run's
     * start is in the metadata before the first events or ({@code startFirst} false) only after them.
     */
    private static void write(Path file, int seconds, int chunkSeconds, boolean startFirst) {
        SplittableRandom r = new SplittableRandom(11);
        var builder = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, START).process(42, 0)
                .maxEventsPerBlock(500);
        if (chunkSeconds > 0) {
            builder.chunks(ChunkPolicy.of(0, 0, ChunkPolicy.MIN_CHUNK_BYTES, Long.MAX_VALUE));
        }
        try (RecordingWriter w = builder.open()) {
            RecordingWriter.ChunkDefinitions defs = (writer, siteIds, stackIds, stacksDefined) -> {
                for (int s : siteIds) {
                    define(writer, s);
                }
                for (long k : stackIds) {
                    writer.stack(k, List.of("f" + k + ".run(F.java:1)"));
                }
            };
            w.metadata("mode", "sample");
            if (startFirst) {
                w.metadata("startNanos", Long.toString(START));
            }
            int thread = w.strings().intern("worker");
            for (int s : SITES) {
                define(w, s);
                w.stack(stackOf(s), List.of("f" + s + ".run(F.java:1)"));
            }
            long t = START;
            long end = START + seconds * SECOND;
            long nextGc = START + 3 * SECOND;
            long nextChunk = START + chunkSeconds * SECOND;
            long id = 1;
            List<long[]> live = new ArrayList<>();
            while (t < end) {
                t += 1 + r.nextLong(400_000);
                if (t >= nextGc) {
                    w.flush();
                    w.gc(nextGc, 1_000_000, "G1 Young Generation", "Allocation Failure", 1L << 30, 1L << 29,
                            4L << 30, "end of minor GC", GcRecord.Examined.YOUNG, nextGc, nextGc);
                    nextGc += 3 * SECOND;
                }
                if (chunkSeconds > 0 && t >= nextChunk) {
                    w.flush();
                    w.rotate(defs);
                    nextChunk += chunkSeconds * SECOND;
                }
                long at = r.nextInt(20) == 0 ? t - r.nextLong(50_000_000) : t; // a little late now and then
                int site = SITES[(int) Math.min(SITES.length - 1, Math.floor(Math.pow(r.nextDouble(), 2)
                        * SITES.length))];
                int kind = r.nextInt(10);
                if (kind < 6 || live.isEmpty()) {
                    long size = 16 + r.nextInt(4096);
                    w.accept(at, MemoryEventType.ALLOCATE, id, size, 0, 1 + r.nextInt(3), thread, 0, 0,
                            stackOf(site), site);
                    live.add(new long[] {id++, size, site});
                } else {
                    long[] x = live.remove(r.nextInt(live.size()));
                    MemoryEventType type = kind < 9 ? MemoryEventType.DEALLOCATE : MemoryEventType.REALLOCATE;
                    w.accept(at, type, x[0], x[1], 0, 1, thread, 0, 0, 0, (int) x[2]);
                }
            }
            if (!startFirst) {
                w.metadata("startNanos", Long.toString(START));
            }
        }
    }

    private static long stackOf(int site) {
        return (site & 0xFFFF_FFFFL) + 1;
    }

    private static void define(RecordingWriter w, int s) {
        w.site(s, "com.example.S" + (s & 0xFFFF), "call", "S.java", 1, "byte[]");
    }

    /** @return {type, offset, payload length} of each block of {@code type} (top level), in file order */
    private static List<int[]> blocks(Path file, int type) {
        try {
            byte[] b = Files.readAllBytes(file);
            ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            List<int[]> out = new ArrayList<>();
            int at = 52;
            while (at + 12 <= b.length) {
                int len = bb.getInt(at + 4);
                if ((b[at] & 0xFF) == type) {
                    out.add(new int[] {type, at, len});
                }
                at += 12 + len;
            }
            return out;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** @return {@code bytes} with the block's last payload byte made a continuation byte, its CRC made to match */
    private static byte[] malformed(byte[] bytes, int[] block) {
        byte[] b = bytes.clone();
        int payload = block[1] + 12;
        b[payload + block[2] - 1] |= (byte) 0x80;
        CRC32C crc = new CRC32C();
        crc.update(b, block[1], 8);
        crc.update(b, payload, block[2]);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(block[1] + 8, (int) crc.getValue());
        return b;
    }
}
