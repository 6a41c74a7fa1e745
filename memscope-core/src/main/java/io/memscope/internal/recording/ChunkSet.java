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
 */
public final class ChunkSet {
    private final Path folder;
    private final List<Path> files;
    private final int[] indexes;
    private final long[] startNanos;
    private final long[] bytes;

    private ChunkSet(Path folder, List<Path> files, int[] indexes, long[] startNanos, long[] bytes) {
        this.folder = folder;
        this.files = files;
        this.indexes = indexes;
        this.startNanos = startNanos;
        this.bytes = bytes;
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
        return new ChunkSet(folder, List.copyOf(files), idx, start, size);
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
        return lastIndex() - count();
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
        int first = 0;
        for (int i = 0; i < files.size(); i++) {
            if (startNanos[i] <= nanoTime) {
                first = i;
            }
        }
        if (first == 0) {
            return this;
        }
        int n = files.size();
        return new ChunkSet(folder, files.subList(first, n), Arrays.copyOfRange(indexes, first, n),
                Arrays.copyOfRange(startNanos, first, n), Arrays.copyOfRange(bytes, first, n));
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
