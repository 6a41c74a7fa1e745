package io.memscope.internal.recording;

import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a {@link RecordingWriter} starts a new chunk and which old chunks it deletes (format 1.6 chunked recordings,
 * {@code docs/formats/recording.md}). Chunk 1 is the recording's own file ({@code recording.msrec}); chunk
 * {@code n > 1} is {@code recording-NNNNNN.msrec} next to it ({@link #chunkFile}).
 *
 * @param chunkBytes a chunk is closed once it holds this many bytes (at the next rotation point)
 * @param chunkNanos a chunk is closed once it is this old
 * @param maxBytes   the oldest closed chunks are deleted while all chunks together exceed this; 0 = no bound
 * @param maxNanos   closed chunks that ended longer ago than this are deleted; 0 = no bound
 */
public record ChunkPolicy(long chunkBytes, long chunkNanos, long maxBytes, long maxNanos) {
    /** Default chunk size without a size bound: 16 MiB. */
    public static final long DEFAULT_CHUNK_BYTES = 16L << 20;
    /** Default chunk age without an age bound: 10 minutes. */
    public static final long DEFAULT_CHUNK_NANOS = 600_000_000_000L;
    /** Smallest chunk: 64 KiB. */
    public static final long MIN_CHUNK_BYTES = 64 * 1024;

    /** Metadata of every chunk after the first: its index (1-based). */
    public static final String META_INDEX = "chunk.index";
    /** Metadata: the chunk's start ({@code System.nanoTime()}, the header's {@code nanoTime} too). */
    public static final String META_START_NANOS = "chunk.startNanos";
    /** Metadata: chunks deleted before this chunk began, to hold the bounds. */
    public static final String META_DELETED = "chunk.deleted";
    /** Metadata: outstanding allocations no longer carried (beyond the carry's bound) when this chunk began. */
    public static final String META_CARRY_TRUNCATED = "chunk.carryTruncated";

    private static final Pattern CHUNK_NAME = Pattern.compile("(.+)-(\\d{6,})\\.msrec");

    public ChunkPolicy {
        if (chunkBytes < MIN_CHUNK_BYTES || chunkNanos <= 0 || maxBytes < 0 || maxNanos < 0) {
            throw new IllegalArgumentException("chunk policy out of range: " + chunkBytes + " B, " + chunkNanos
                    + " ns, max " + maxBytes + " B, " + maxNanos + " ns");
        }
    }

    /**
     * The policy for the given bounds, with chunk size and age derived where not given (0): the size is
     * {@code min(16 MiB, max(64 KiB, maxBytes / 8))}, the age {@code min(10 min, maxNanos / 4)}, so that a bound is
     * held within one chunk.
     */
    public static ChunkPolicy of(long maxBytes, long maxNanos, long chunkBytes, long chunkNanos) {
        long size = chunkBytes > 0 ? chunkBytes : maxBytes > 0
                ? Math.min(DEFAULT_CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, maxBytes / 8)) : DEFAULT_CHUNK_BYTES;
        long age = chunkNanos > 0 ? chunkNanos : maxNanos > 0
                ? Math.max(1, Math.min(DEFAULT_CHUNK_NANOS, maxNanos / 4)) : DEFAULT_CHUNK_NANOS;
        return new ChunkPolicy(Math.max(MIN_CHUNK_BYTES, size), age, maxBytes, maxNanos);
    }

    /** @return the file of chunk {@code index} (1-based) of the recording whose first chunk is {@code first} */
    public static Path chunkFile(Path first, int index) {
        if (index == 1) {
            return first;
        }
        String name = first.getFileName().toString();
        String stem = name.endsWith(".msrec") ? name.substring(0, name.length() - ".msrec".length()) : name;
        return first.resolveSibling(String.format(Locale.ROOT, "%s-%06d.msrec", stem, index));
    }

    /**
     * @return the chunk index a file name says ({@code recording.msrec}: 1, {@code recording-000007.msrec}: 7), or 0
     *         when it names no chunk of {@code stem}
     */
    public static int chunkIndex(String fileName, String stem) {
        if (fileName.equals(stem + ".msrec")) {
            return 1;
        }
        Matcher m = CHUNK_NAME.matcher(fileName);
        if (!m.matches() || !m.group(1).equals(stem)) {
            return 0;
        }
        try {
            int i = Integer.parseInt(m.group(2));
            return i > 1 ? i : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
