package io.memscope.recording;

import io.memscope.internal.recording.BlockType;
import io.memscope.internal.recording.ChunkSet;
import io.memscope.internal.recording.RecordingFormat;
import io.memscope.internal.recording.RecordingParser;
import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads recording files (layout: {@code docs/formats/recording.md}).
 *
 * <ul>
 *   <li>{@link #read(Path)}: the whole recording in memory; a damaged file gives what could be read plus
 *       {@link Recording#damage()}.</li>
 *   <li>{@link #readStrict(Path)}: the same, but any damage (including a missing END block) throws.</li>
 *   <li>{@link #readTables(Path, RecordingVisitor)}: one pass that keeps everything but the events, API events and
 *       scope edges in memory, and hands the whole file to a visitor as it is read: for an analysis of a file of
 *       any size.</li>
 *   <li>{@link #stream(Path, RecordingVisitor)}: block by block to a visitor, in memory only the string table
 *       and one block: for files of any size.</li>
 * </ul>
 *
 * <p>Reading never throws anything but {@link CorruptFileException} (header missing, damaged, wrong magic, or a
 * version this reader does not support; any damage for the strict variant) and {@link MemscopeException} of
 * category SYSTEM (file missing or unreadable). Every length is checked before allocating, so damaged input
 * cannot cause an {@code OutOfMemoryError} or a hang.
 *
 * <p>Each method takes a recording file or the folder of a chunked recording (read as one recording: the chunk set,
 * {@code io.memscope.internal.recording.ChunkSet}). The work is shared out: {@link RecordingParser} decodes a file's
 * blocks, {@code ChunkSet} lists and joins the chunks of a folder, {@code RecordingCollector} keeps what is read as a
 * {@link Recording}.
 */
public final class RecordingReader {
    private RecordingReader() {
    }

    /**
     * Reads a recording, tolerating damage after the header.
     *
     * @throws CorruptFileException if the header is missing, damaged or of an unsupported version
     */
    public static Recording read(Path file) {
        RecordingCollector c = new RecordingCollector(null);
        int[] skipped = new int[1];
        Optional<Damage> damage = parse(file, c, skipped);
        return c.build(damage.orElse(null), size(file), skipped[0]);
    }

    /** Parses a file, or a folder's chunk set ({@link ChunkSet}) as one recording. */
    private static Optional<Damage> parse(Path file, RecordingVisitor visitor, int[] skipped) {
        if (Files.isDirectory(file)) {
            return ChunkSet.of(file).stream(visitor, skipped);
        }
        RecordingParser parser = new RecordingParser(file, visitor);
        Optional<Damage> damage = parser.run();
        skipped[0] = parser.skippedBlocks();
        return damage;
    }

    /**
     * Reads a recording in one pass, keeping its tables and handing everything to {@code streams} as it is read:
     * for analyses of files of any size that need the tables (strings, sites, stacks, collections, counts, metadata,
     * anomalies, function statistics, accounting, retention walks, totals) and see each event once. {@code streams}
     * gets exactly what {@link #stream} would deliver, in file order; the recording returned keeps all of it but the
     * streams of the file: its {@link Recording#eventCount()} is 0 and its {@link Recording#scopeEdges()} and
     * {@link Recording#apiEvents()} are empty (count them in {@code streams}).
     *
     * @throws CorruptFileException if the header is missing, damaged or of an unsupported version
     */
    public static Recording readTables(Path file, RecordingVisitor streams) {
        RecordingCollector c = new RecordingCollector(java.util.Objects.requireNonNull(streams, "streams"));
        int[] skipped = new int[1];
        Optional<Damage> damage = parse(file, c, skipped);
        return c.build(damage.orElse(null), size(file), skipped[0]);
    }

    /**
     * {@link #readTables(Path, RecordingVisitor)} of some of a chunked recording's chunks (memscope's own analyses:
     * the chunks a report's window needs).
     *
     * @throws CorruptFileException if a chunk's header is missing, damaged or of an unsupported version
     */
    public static Recording readTables(ChunkSet chunks, RecordingVisitor streams) {
        RecordingCollector c = new RecordingCollector(java.util.Objects.requireNonNull(streams, "streams"));
        int[] skipped = new int[1];
        Optional<Damage> damage = chunks.stream(c, skipped);
        return c.build(damage.orElse(null), chunks.bytes(), skipped[0]);
    }

    /**
     * Reads a recording that must be complete and sound.
     *
     * @throws CorruptFileException naming the offset of the first damage, including a missing END block
     */
    public static Recording readStrict(Path file) {
        Recording r = read(file);
        if (r.damage().isPresent()) {
            throw r.damage().get().toException();
        }
        return r;
    }

    /**
     * Streams a recording to {@code visitor} block by block.
     *
     * @return the damage, if the file is damaged after its header (every complete block before it was delivered)
     * @throws CorruptFileException if the header is missing, damaged or of an unsupported version
     */
    public static Optional<Damage> stream(Path file, RecordingVisitor visitor) {
        return parse(file, visitor, new int[1]);
    }

    /**
     * Reads only the file header.
     *
     * @throws CorruptFileException if the header is missing, damaged or of an unsupported version
     */
    public static RecordingHeader readHeader(Path file) {
        if (Files.isDirectory(file)) {
            file = ChunkSet.of(file).files().get(0);
        }
        RecordingHeader[] header = new RecordingHeader[1];
        new RecordingParser(file, new RecordingVisitor() {
            @Override
            public void header(RecordingHeader h) {
                header[0] = h;
            }

            @Override
            public boolean done() {
                return true;
            }
        }).run();
        return header[0];
    }

    /**
     * Tells, cheaply, whether a recording has been closed: whether the file ends with a complete END block whose
     * CRC matches (only the last bytes are read, whatever the file's size). A file being written, or left by a
     * writer that was killed, has none. The rest of the file is not checked: read it to know whether it is sound.
     *
     * @return false as well when the file is missing or unreadable
     */
    public static boolean isClosed(Path file) {
        int maxPayload = 31;   // uleb events (<= 10) + uleb dropped (<= 10) + u8 flags + zz end (<= 10)
        int minPayload = 4;
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.READ)) {
            long size = ch.size();
            int tail = (int) Math.min(size - RecordingFormat.HEADER_BYTES,
                    RecordingFormat.BLOCK_HEADER_BYTES + maxPayload);
            if (tail < RecordingFormat.BLOCK_HEADER_BYTES + minPayload) {
                return false;
            }
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(tail).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            while (b.hasRemaining()) {
                if (ch.read(b, size - tail + b.position()) < 0) {
                    return false;
                }
            }
            byte[] a = b.array();
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            for (int len = minPayload; len <= maxPayload; len++) {
                int at = tail - RecordingFormat.BLOCK_HEADER_BYTES - len;
                if (at < 0) {
                    break;
                }
                if ((a[at] & 0xFF) != BlockType.END.code || b.getInt(at + 4) != len) {
                    continue;
                }
                crc.reset();
                crc.update(a, at, 8);
                crc.update(a, at + RecordingFormat.BLOCK_HEADER_BYTES, len);
                if ((int) crc.getValue() == b.getInt(at + 8)) {
                    return true;
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static long size(Path file) {
        try {
            if (Files.isDirectory(file)) {
                return ChunkSet.of(file).bytes();
            }
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }
}
