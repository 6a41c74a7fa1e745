package io.memscope.internal.recording;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The output of a {@link RecordingWriter}: frames blocks, checksums them, writes each with one write, and keeps
 * the file's string table ahead of the blocks that use it. Knows nothing of what a block holds.
 *
 * <pre>
 *  one block, one write:
 *  +------+-------+---------+-------------+--------------+---------------------+
 *  | type | flags | 0 (u16) | payload u32 | CRC-32C u32  | prefix | body       |
 *  +------+-------+---------+-------------+--------------+---------------------+
 *   the CRC covers the first 8 header bytes and the payload (prefix + body)
 * </pre>
 *
 * <p>{@link #bytesWritten()} counts the bytes of whole blocks handed to the stream; after a failed write
 * {@link #truncateToLastBlock()} cuts a file back to them. Not thread-safe: the writer's lock guards it.
 */
final class BlockOutput {
    /**
     * A {@link FileOutputStream} on the default file system, else a stream of the file's file system or a
     * caller's buffer. Not a {@code FileChannel}: the writer only appends, and opening a channel loads about 30 JDK
     * classes that are not in the JDK's class data archive (milliseconds of every agent start); a channel also
     * closes itself when the writing thread is interrupted.
     */
    private OutputStream out;
    /** The file's string table (null for the inner blocks of a CARRY block, which define none). */
    private final FileStrings strings;
    private final int blockBytes;
    private final Crc32c crc = new Crc32c();
    private final ByteSink frame;
    private final ByteSink prefix = new ByteSink(64);
    private int stringsWritten = 1;          // ids below this are in the file (id 0 is implicit)
    private long bytesWritten;

    BlockOutput(OutputStream out, FileStrings strings, int blockBytes) {
        this.out = out;
        this.strings = strings;
        this.blockBytes = blockBytes;
        this.frame = new ByteSink(blockBytes + 1024);
    }

    /** Writes the file header (layout: {@link RecordingFormat}). */
    void header(long epochNanos, long nanoTime, long pid, long processStartEpochMillis) throws IOException {
        header(0, epochNanos, nanoTime, pid, processStartEpochMillis);
    }

    /** Writes the file header with {@code flags} (layout: {@link RecordingFormat}). */
    void header(int flags, long epochNanos, long nanoTime, long pid, long processStartEpochMillis)
            throws IOException {
        ByteSink h = new ByteSink(RecordingFormat.HEADER_BYTES);
        h.bytes(RecordingFormat.MAGIC, 0, RecordingFormat.MAGIC.length);
        h.u16(RecordingFormat.VERSION_MAJOR);
        h.u16(RecordingFormat.VERSION_MINOR);
        h.u32(flags);
        h.i64(epochNanos);
        h.i64(nanoTime);
        h.i64(pid);
        h.i64(processStartEpochMillis);
        crc.reset();
        crc.update(h.array(), 0, h.length());
        h.u32(crc.getValue());
        writeFully(h.array(), h.length());
    }

    /**
     * Writes STRINGS blocks for the table entries not yet in the file.
     *
     * @return the table's size that is now in the file
     */
    int syncStrings() throws IOException {
        if (strings == null) {
            return 0;
        }
        int size = strings.size();
        if (stringsWritten >= size) {
            return size;
        }
        ByteSink body = new ByteSink(Math.min(blockBytes, 64 * 1024));
        int first = stringsWritten;
        int count = 0;
        for (int id = stringsWritten; id < size; id++) {
            byte[] utf8 = utf8(strings.get(id));
            body.uleb(utf8.length);
            body.bytes(utf8, 0, utf8.length);
            count++;
            if (body.length() >= blockBytes || id == size - 1) {
                ByteSink p = prefix;
                p.reset();
                p.uleb(first);
                p.uleb(count);
                block(BlockType.STRINGS, p, body);
                stringsWritten = id + 1;
                first = id + 1;
                count = 0;
                body.reset();
            }
        }
        return size;
    }

    /** Writes a block whose prefix is its entry count (the side tables' shape). */
    void countedBlock(BlockType type, int count, ByteSink body) throws IOException {
        ByteSink p = prefix;
        p.reset();
        p.uleb(count);
        block(type, p, body);
    }

    /** Frames {@code prefix + body} as one block (header, CRC) and writes it with one write. */
    void block(BlockType type, ByteSink prefix, ByteSink body) throws IOException {
        int payload = (prefix == null ? 0 : prefix.length()) + body.length();
        if (payload > RecordingFormat.MAX_BLOCK_PAYLOAD) {
            throw new IOException("internal: block of " + payload + " bytes exceeds the format limit");
        }
        ByteSink f = frame;
        f.reset();
        f.u8(type.code);
        f.u8(type.skippable ? RecordingFormat.BLOCK_FLAG_SKIPPABLE : 0);
        f.u16(0);
        f.u32(payload);
        f.u32(0);                       // CRC, filled in below
        if (prefix != null) {
            f.bytes(prefix.array(), 0, prefix.length());
        }
        f.bytes(body.array(), 0, body.length());
        crc.reset();
        crc.update(f.array(), 0, 8);
        crc.update(f.array(), RecordingFormat.BLOCK_HEADER_BYTES, payload);
        f.putU32At(8, crc.getValue());
        writeFully(f.array(), f.length());
    }

    private void writeFully(byte[] bytes, int length) throws IOException {
        out.write(bytes, 0, length);
        bytesWritten += length;
    }

    /** @return bytes of whole blocks (and the header) handed to the stream */
    long bytesWritten() {
        return bytesWritten;
    }

    /** Forces what was written to the storage device (survives a power loss) when the output is a file. */
    void sync() throws IOException {
        out.flush();
        if (out instanceof FileOutputStream) {
            ((FileOutputStream) out).getFD().sync();
        }
    }

    /** After a failed write: cuts a file back to its last whole block (other outputs cannot be cut). */
    void truncateToLastBlock() throws IOException {
        if (out instanceof FileOutputStream) {
            ((FileOutputStream) out).getChannel().truncate(bytesWritten);
        }
    }

    /** Continues on {@code next}, to which the caller has copied the bytes written so far; closes the old output. */
    void moveTo(OutputStream next) {
        OutputStream previous = out;
        out = Objects.requireNonNull(next, "next");
        try {
            previous.close();
        } catch (IOException e) {
            // the bytes that matter were copied
        }
    }

    void close() throws IOException {
        out.close();
    }

    /** @return {@code s} (null as "") in UTF-8, cut at {@link RecordingFormat#MAX_STRING_BYTES} on a character */
    static byte[] utf8(String s) {
        byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        if (b.length <= RecordingFormat.MAX_STRING_BYTES) {
            return b;
        }
        int cut = RecordingFormat.MAX_STRING_BYTES;
        while (cut > 0 && (b[cut] & 0xC0) == 0x80) {
            cut--;                      // do not split a multi-byte character
        }
        return Arrays.copyOf(b, cut);
    }
}
