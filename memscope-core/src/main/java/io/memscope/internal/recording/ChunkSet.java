package io.memscope.internal.recording;

import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;
import io.memscope.recording.Damage;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The chunks of a chunked recording (format 1.6) in one folder, read as one recording: {@code recording.msrec}
 * (chunk 1) and {@code recording-NNNNNN.msrec} (chunk N), ordered by index. Chunks deleted to hold the
 * recording's bounds are missing from the front; the first chunk read starts from its carried state (its CARRY
 * blocks: the allocations still outstanding, open scopes, the collections the held rules need), every later one
 * without it (its carried state was read already). Strings, sites and stacks repeated by each chunk are
 * delivered once; the END totals are those of all chunks read, delivered after the last chunk when it has one.
 * A selection of the chunks ({@link #select}: a report's window) is read the same way, its first chunk from its
 * carried state; it counts the chunks it left out before and after.
 */
public final class ChunkSet {
    private final Path folder;
    private final List<Path> files;
    private final int[] indexes;
    private final long[] startNanos;
    private final long[] bytes;
    /** Chunks missing from the folder (deleted to hold the bounds). */
    private final int deleted;
    /** Chunks present but left out by {@link #select}: wholly before its window, wholly after it. */
    private final int skippedBefore;
    private final int skippedAfter;
    /** The start of the first chunk left out after the window: the run lasted at least until then. */
    private final long nextStartNanos;

    private ChunkSet(Path folder, List<Path> files, int[] indexes, long[] startNanos, long[] bytes, int deleted,
                     int skippedBefore, int skippedAfter, long nextStartNanos) {
        this.folder = folder;
        this.files = files;
        this.indexes = indexes;
        this.startNanos = startNanos;
        this.bytes = bytes;
        this.deleted = deleted;
        this.skippedBefore = skippedBefore;
        this.skippedAfter = skippedAfter;
        this.nextStartNanos = nextStartNanos;
    }

    /**
     * @return whether {@code folder} holds a chunk set: a {@code recording-NNNNNN.msrec} (a recording that rotated
     *         at least once)
     */
    public static boolean isChunked(Path folder) {
        if (!Files.isDirectory(folder)) {
            return false;
        }
        try (java.util.stream.Stream<Path> l = Files.list(folder)) {
            return l.anyMatch(p -> ChunkPolicy.chunkIndex(
                    p.getFileName().toString(), STEM) > 1);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Lists the chunks of the recording in {@code folder} (reading each one's header).
     *
     * @throws MemscopeException    (SYSTEM) if the folder cannot be listed or has no chunk
     * @throws CorruptFileException if a chunk's header is damaged
     */
    public static ChunkSet of(Path folder) {
        java.util.TreeMap<Integer, Path> found = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> l = Files.list(folder)) {
            l.forEach(p -> {
                int i = ChunkPolicy.chunkIndex(p.getFileName().toString(), STEM);
                if (i > 0 && Files.isRegularFile(p)) {
                    found.put(i, p);
                }
            });
        } catch (IOException e) {
            throw MemscopeException.system("cannot list " + folder + ": " + e, e);
        }
        if (found.isEmpty()) {
            throw MemscopeException.system("no recording in " + folder + " (no " + STEM + ".msrec or "
                    + STEM + "-NNNNNN.msrec)", null);
        }
        // a chunk deleted while listed, or one that has no header yet (being created): left out
        List<Path> files = new ArrayList<>();
        List<long[]> info = new ArrayList<>();
        for (Map.Entry<Integer, Path> e : found.entrySet()) {
            RecordingHeader h;
            long size;
            try {
                size = Files.size(e.getValue());
                if (size < RecordingFormat.HEADER_BYTES) {
                    continue;
                }
                h = RecordingReader.readHeader(e.getValue());
            } catch (IOException | MemscopeException x) {
                if (x instanceof CorruptFileException c) {
                    throw c;
                }
                continue;
            }
            files.add(e.getValue());
            info.add(new long[] {e.getKey(), h.nanoTime(), size});
        }
        if (files.isEmpty()) {
            throw MemscopeException.system("no readable recording in " + folder, null);
        }
        int n = files.size();
        int[] idx = new int[n];
        long[] start = new long[n];
        long[] size = new long[n];
        for (int i = 0; i < n; i++) {
            idx[i] = (int) info.get(i)[0];
            start[i] = info.get(i)[1];
            size[i] = info.get(i)[2];
        }
        return new ChunkSet(folder, List.copyOf(files), idx, start, size, idx[n - 1] - n, 0, 0, Long.MIN_VALUE);
    }

    private static final String STEM = "recording";

    /** @return the folder */
    public Path folder() {
        return folder;
    }

    /** @return the chunk files, oldest first */
    public List<Path> files() {
        return files;
    }

    /** @return chunks present */
    public int count() {
        return files.size();
    }

    /** @return the index of the first chunk present (1 when none was deleted) */
    public int firstIndex() {
        return indexes[0];
    }

    /** @return the index of the last chunk present */
    public int lastIndex() {
        return indexes[indexes.length - 1];
    }

    /** @return chunks missing: deleted to hold the bounds (before the first present, or between two) */
    public int deleted() {
        return deleted;
    }

    /** @return chunks present in the folder that {@link #select} left out before its window (not read) */
    public int skippedBefore() {
        return skippedBefore;
    }

    /** @return chunks present in the folder that {@link #select} left out after its window (not read) */
    public int skippedAfter() {
        return skippedAfter;
    }

    /**
     * @return the start of the first chunk left out after the window ({@link #select}): the recorded JVM ran at
     *         least until then; {@link Long#MIN_VALUE} when none was
     */
    public long nextStartNanos() {
        return nextStartNanos;
    }

    /**
     * @return where the chunks present begin, {@code System.nanoTime()} of the recorded JVM: the first chunk's
     *         start (its header's {@code nanoTime}; chunk 1's is the capture's start)
     */
    public long startNanos() {
        return startNanos[0];
    }

    /** @return the start of chunk {@code i} of {@link #files()} */
    public long startNanos(int i) {
        return startNanos[i];
    }

    /** @return bytes of all chunks present */
    public long bytes() {
        long b = 0;
        for (long s : bytes) {
            b += s;
        }
        return b;
    }

    /**
     * @return the chunks from the one that holds {@code nanoTime} on (the last one that starts at or before it;
     *         all when it is before the first)
     */
    public ChunkSet from(long nanoTime) {
        return select(nanoTime, Long.MAX_VALUE);
    }

    /**
     * The chunks that may hold events from {@code fromNanos} to {@code toNanos}: from the one that holds
     * {@code fromNanos} (the last that starts at or before it; every event of a chunk before it happened before the
     * next chunk began, so before {@code fromNanos}) to the last one that starts at or before {@code toNanos} plus
     * {@code lateNanos} (an event is written after it happened: one up to {@code lateNanos} late may be in the next
     * chunk). The first chunk of the selection is read with its carried state (CARRY), which stands for the chunks
     * left out before it; those left out after it are not read at all.
     */
    public ChunkSet select(long fromNanos, long toNanos, long lateNanos) {
        long until = toNanos >= Long.MAX_VALUE - lateNanos ? Long.MAX_VALUE : toNanos + lateNanos;
        return select(fromNanos, until);
    }

    private ChunkSet select(long fromNanos, long untilNanos) {
        int n = files.size();
        int first = 0;
        int end = n;
        for (int i = 0; i < n; i++) {
            if (startNanos[i] <= fromNanos) {
                first = i;
            }
            if (i > 0 && startNanos[i] > untilNanos && end == n) {
                end = i;
            }
        }
        end = Math.max(end, first + 1);
        if (first == 0 && end == n) {
            return this;
        }
        return new ChunkSet(folder, files.subList(first, end), Arrays.copyOfRange(indexes, first, end),
                Arrays.copyOfRange(startNanos, first, end), Arrays.copyOfRange(bytes, first, end), deleted,
                skippedBefore + first, skippedAfter + n - end, end < n ? startNanos[end] : nextStartNanos);
    }

    /**
     * Streams the chunks to {@code visitor} as one recording (see the class comment).
     *
     * @return the damage of the last chunk (killed while it was written), or the first damage of an earlier one
     */
    public Optional<Damage> stream(RecordingVisitor visitor) {
        return stream(visitor, new int[1]);
    }

    /**
     * Streams the chunks to {@code visitor} as one recording, adding to {@code skipped[0]} the blocks of unknown types
     * skipped.
     */
    public Optional<Damage> stream(RecordingVisitor visitor, int[] skipped) {
        JoinedChunks joined = new JoinedChunks(visitor);
        Optional<Damage> damage = Optional.empty();
        for (int i = 0; i < files.size(); i++) {
            joined.chunk(i == 0);
            RecordingParser parser = new RecordingParser(files.get(i), joined).deliverCarry(i == 0);
            Optional<Damage> d = parser.run();
            skipped[0] += parser.skippedBlocks();
            if (d.isPresent() && (damage.isEmpty() || i == files.size() - 1)) {
                damage = d;
            }
            if (visitor.done()) {
                return damage;
            }
        }
        if (joined.ended) {
            visitor.end(joined.totals());
        }
        return damage;
    }
}
