package io.memscope.recording;

import io.memscope.internal.recording.BlockType;
import io.memscope.internal.recording.ChunkPolicy;
import io.memscope.internal.recording.EventBlockFolder;
import io.memscope.internal.recording.RecordingFormat;
import io.memscope.internal.recording.RecordingParser;
import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
 *       any size; {@link #readTables(Path, RecordingVisitor, EventFold)} folds the events into an
 *       order-independent summary on several threads instead.</li>
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
 * {@link ChunkSet}). The work is shared out: {@link RecordingParser} decodes a file's blocks, {@link ChunkSet} lists
 * and selects the chunks of a folder ({@code JoinedChunks} joins their callbacks), {@code RecordingCollector} keeps
 * what is read as a {@link Recording}.
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
     * {@link #readTables(Path, RecordingVisitor)}, but the events of the EVENTS blocks go to {@code events} instead of
     * {@code streams}: decoded on several threads, each into a part of its own, in no particular order, and merged
     * into {@code events} on the calling thread. Only what a fold can use is decoded (type, timestamp, site), every
     * block still checked as fully as {@link #readTables(Path, RecordingVisitor)} does: the damage, the tables and
     * the callbacks to {@code streams} are the same, and the parts hold exactly the events that it would have
     * delivered. For an order-independent summary of the events (a count, extremes, per-site extremes).
     *
     * @throws CorruptFileException if the header is missing, damaged or of an unsupported version
     */
    public static <P extends EventFold.Part> Recording readTables(Path file, RecordingVisitor streams,
                                                                  EventFold<P> events) {
        if (Files.isDirectory(file)) {
            return readTables(ChunkSet.of(file), streams, events);
        }
        RecordingCollector c = new RecordingCollector(java.util.Objects.requireNonNull(streams, "streams"));
        try (EventBlockFolder<P> folder = new EventBlockFolder<>(events, EventBlockFolder.defaultWorkers())) {
            RecordingParser parser = new RecordingParser(file, c).foldEvents(folder);
            Optional<Damage> damage = parser.run();
            return c.build(damage.orElse(null), size(file), parser.skippedBlocks());
        }
    }

    /**
     * {@link #readTables(Path, RecordingVisitor, EventFold)} of some of a chunked recording's chunks.
     *
     * @throws CorruptFileException if a chunk's header is missing, damaged or of an unsupported version
     */
    public static <P extends EventFold.Part> Recording readTables(ChunkSet chunks, RecordingVisitor streams,
                                                                  EventFold<P> events) {
        RecordingCollector c = new RecordingCollector(java.util.Objects.requireNonNull(streams, "streams"));
        int[] skipped = new int[1];
        Optional<Damage> damage;
        try (EventBlockFolder<P> folder = new EventBlockFolder<>(events, EventBlockFolder.defaultWorkers())) {
            damage = chunks.stream(c, skipped, folder);
        }
        return c.build(damage.orElse(null), chunks.bytes(), skipped[0]);
    }

    /**
     * An order-independent summary of a recording's events, computed in parts ({@link #readTables(Path,
     * RecordingVisitor, EventFold)}): each decoding thread adds its events to a part of its own; the parts are merged
     * into the fold on the reading thread. Counts, minima and maxima fold this way; anything that needs the events'
     * order does not.
     *
     * @param <P> the part
     */
    public interface EventFold<P extends EventFold.Part> {
        /**
         * Called once, on the reading thread, when the read reaches the recording's first events in file order
         * (before any part is made): what the callbacks before them told ({@link RecordingVisitor#header},
         * {@link RecordingVisitor#metadata}) is what is known before the first event.
         */
        void firstEvents();

        /** @return a new, empty part (called on the reading thread) */
        P part();

        /** Adds a part's events (called on the reading thread, the part's thread done with it). */
        void merge(P part);

        /** Part of a fold: the events one thread decoded. Not thread-safe (one thread adds to it). */
        interface Part {
            /** Adds one event. */
            void add(io.memscope.MemoryEventType type, long timestampNanos, int siteId);
        }
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
    public static final class ChunkSet {
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
                    h = readHeader(e.getValue());
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
            return stream(visitor, skipped, null);
        }

        /** {@link #stream(RecordingVisitor, int[])}, the EVENTS blocks' events to {@code folder} if not null. */
        private Optional<Damage> stream(RecordingVisitor visitor, int[] skipped, EventBlockFolder<?> folder) {
            io.memscope.internal.recording.JoinedChunks joined = new io.memscope.internal.recording.JoinedChunks(visitor);
            Optional<Damage> damage = Optional.empty();
            for (int i = 0; i < files.size(); i++) {
                joined.chunk(i == 0);
                RecordingParser parser = new RecordingParser(files.get(i), joined).deliverCarry(i == 0)
                        .foldEvents(folder);
                Optional<Damage> d = parser.run();
                skipped[0] += parser.skippedBlocks();
                if (d.isPresent() && (damage.isEmpty() || i == files.size() - 1)) {
                    damage = d;
                }
                if (visitor.done()) {
                    return damage;
                }
            }
            if (joined.ended()) {
                visitor.end(joined.totals());
            }
            return damage;
        }
    }
}
