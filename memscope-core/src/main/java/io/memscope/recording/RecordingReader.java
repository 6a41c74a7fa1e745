package io.memscope.recording;

import io.memscope.recording.Recording.ProcessMemorySamples;

import io.memscope.internal.recording.BlockType;
import io.memscope.internal.recording.RecordingFormat;
import io.memscope.internal.recording.EventColumns;
import io.memscope.internal.recording.RecordingParser;
import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 *       any size.</li>
 *   <li>{@link #stream(Path, RecordingVisitor)}: block by block to a visitor, in memory only the string table
 *       and one block: for files of any size.</li>
 * </ul>
 *
 * <p>Reading never throws anything but {@link CorruptFileException} (header missing, damaged, wrong magic, or a
 * version this reader does not support; any damage for the strict variant) and {@link MemscopeException} of
 * category SYSTEM (file missing or unreadable). Every length is checked before allocating, so damaged input
 * cannot cause an {@code OutOfMemoryError} or a hang.
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
        Collector c = new Collector(null);
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
        Collector c = new Collector(java.util.Objects.requireNonNull(streams, "streams"));
        int[] skipped = new int[1];
        Optional<Damage> damage = parse(file, c, skipped);
        return c.build(damage.orElse(null), size(file), skipped[0]);
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
     */
    public static final class ChunkSet {
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
                return l.anyMatch(p -> io.memscope.internal.recording.ChunkPolicy.chunkIndex(
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
                    int i = io.memscope.internal.recording.ChunkPolicy.chunkIndex(p.getFileName().toString(), STEM);
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

        Optional<Damage> stream(RecordingVisitor visitor, int[] skipped) {
            Joined joined = new Joined(visitor);
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
                visitor.end(new Totals(joined.events, joined.dropped, joined.clean, joined.endNanos));
            }
            return damage;
        }

        /**
         * One recording's callbacks from several chunks: the repeated definitions once, the totals summed, and one
         * string table. Each chunk's string ids are its own (format 1.7: a chunk defines the strings it uses; 1.6:
         * every chunk repeats the whole table), so the joined table numbers each distinct string once, in the order
         * first defined, and the ids of events and scope edges are translated from the chunk's to the joined ones
         * (no translation while a chunk's ids are the joined ones: chunk 1 and every chunk of format 1.6).
         */
        private static final class Joined implements RecordingVisitor {
            private final RecordingVisitor v;
            private boolean first;
            private final Map<String, Integer> joinedIds = new HashMap<>();
            private int joinedCount = 1;
            /** The joined id of each of the current chunk's string ids. */
            private int[] joinedOf = new int[256];
            /** Whether every id of the current chunk so far is its joined id. */
            private boolean sameIds = true;
            private final EventView view = new EventView();
            long events;
            long dropped;
            boolean clean;
            boolean ended;
            long endNanos;

            Joined(RecordingVisitor v) {
                this.v = v;
            }

            void chunk(boolean first) {
                this.first = first;
                this.ended = false;
                this.sameIds = true;
                Arrays.fill(joinedOf, 0);
            }

            @Override
            public void header(RecordingHeader header) {
                if (first) {
                    v.header(header);
                }
            }

            @Override
            public void string(int id, String value) {
                String key = value == null ? "" : value;
                Integer joined = joinedIds.get(key);
                if (joined == null) {
                    joined = joinedCount++;
                    joinedIds.put(key, joined);
                    v.string(joined, value);
                }
                if (id >= joinedOf.length) {
                    joinedOf = Arrays.copyOf(joinedOf, Math.max(id + 1, joinedOf.length * 2));
                }
                joinedOf[id] = joined;
                sameIds &= joined == id;
            }

            /** @return the joined id of the current chunk's string id {@code id} (defined before its use) */
            private int joined(int id) {
                return id <= 0 || id >= joinedOf.length ? id : joinedOf[id];
            }

            private EventView joined(EventView e) {
                if (sameIds) {
                    return e;
                }
                return view.set(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(), e.threadId(),
                        joined(e.threadNameId()), joined(e.variableNameId()), joined(e.typeNameId()), e.stackId(),
                        e.siteId());
            }

            @Override
            public void site(Site site) {
                v.site(site);
            }

            @Override
            public void stack(long stackId, List<String> frames) {
                v.stack(stackId, frames);
            }

            @Override
            public void accept(EventView event) {
                v.accept(joined(event));
            }

            @Override
            public void gc(GcRecord record) {
                v.gc(record);
            }

            @Override
            public void siteCount(SiteCount count) {
                v.siteCount(count);
            }

            @Override
            public void metadata(String key, String value) {
                v.metadata(key, value);
            }

            @Override
            public void anomaly(Anomaly anomaly) {
                v.anomaly(anomaly);
            }

            @Override
            public void functionStats(FunctionStats stats) {
                v.functionStats(stats);
            }

            @Override
            public void accounting(AccountingSnapshot snapshot) {
                v.accounting(snapshot);
            }

            @Override
            public void retention(RetentionWalk walk) {
                v.retention(walk);
            }

            @Override
            public void processMemory(ProcessMemorySamples samples) {
                v.processMemory(samples);
            }

            @Override
            public void scopePath(ScopePath path) {
                v.scopePath(path);
            }

            @Override
            public void scopeEdge(long timestampNanos, long threadId, int threadNameId, boolean exit, int pathId,
                                  long taskId, long allocatedBytes) {
                v.scopeEdge(timestampNanos, threadId, sameIds ? threadNameId : joined(threadNameId), exit, pathId,
                        taskId, allocatedBytes);
            }

            @Override
            public void apiEvent(EventView event) {
                v.apiEvent(joined(event));
            }

            @Override
            public void skippedBlock(int type, long offset) {
                v.skippedBlock(type, offset);
            }

            @Override
            public void end(Totals totals) {
                events += totals.eventsWritten();
                dropped += totals.eventsDropped();
                clean = totals.clean();
                endNanos = totals.endNanos();
                ended = true;
            }

            @Override
            public boolean done() {
                return v.done();
            }
        }
    }

    /**
     * Builds a {@link Recording} from the visitor callbacks: with the streams (events, API events, scope edges)
     * kept, or with every callback handed on to a visitor, which takes the streams instead ({@link #readTables}).
     */
    private static final class Collector implements RecordingVisitor, RecordingParser.ColumnSink {
        /** Where every callback goes too, and the streams instead of being kept (null: kept). */
        private final RecordingVisitor streams;
        private RecordingHeader header;
        private String[] strings = new String[256];
        private int stringCount = 1;
        private final Map<Integer, Site> sites = new LinkedHashMap<>();
        private final Map<Long, List<String>> stacks = new LinkedHashMap<>();
        private final EventColumns events = new EventColumns(1024);
        private final List<GcRecord> gc = new ArrayList<>();
        private final Map<Integer, SiteCount> siteCounts = new LinkedHashMap<>();
        private final Map<String, String> metadata = new LinkedHashMap<>();
        private final List<Anomaly> anomalies = new ArrayList<>();
        private Totals totals;
        private final Map<Integer, ScopePath> scopePaths = new LinkedHashMap<>();
        private final List<ScopePath.Edge> scopeEdges = new ArrayList<>();
        private final EventColumns apiEvents = new EventColumns(16);
        private final Map<List<String>, FunctionStats> functions = new LinkedHashMap<>();
        private AccountingSnapshot accounting;
        private final List<RetentionWalk> retentionWalks = new ArrayList<>();
        private final List<ProcessMemorySamples> processMemory = new ArrayList<>();

        @Override
        public void processMemory(ProcessMemorySamples samples) {
            processMemory.add(samples);
        }

        Collector(RecordingVisitor streams) {
            this.streams = streams;
        }

        @Override
        public void accounting(AccountingSnapshot snapshot) {
            if (streams != null) {
                streams.accounting(snapshot);
            }
            accounting = snapshot;
        }

        @Override
        public void retention(RetentionWalk walk) {
            if (streams != null) {
                streams.retention(walk);
            }
            retentionWalks.add(walk);
        }

        @Override
        public void header(RecordingHeader h) {
            if (streams != null) {
                streams.header(h);
            }
            header = h;
        }

        @Override
        public void string(int id, String value) {
            if (streams != null) {
                streams.string(id, value);
            }
            if (id == strings.length) {
                strings = Arrays.copyOf(strings, strings.length * 2);
            }
            strings[id] = value;
            stringCount = id + 1;
        }

        @Override
        public void site(Site site) {
            if (streams != null) {
                streams.site(site);
            }
            sites.put(site.id(), site);
        }

        @Override
        public void stack(long stackId, List<String> frames) {
            if (streams != null) {
                streams.stack(stackId, frames);
            }
            stacks.put(stackId, frames);
        }

        @Override
        public void accept(EventView e) {
            if (streams != null) {
                streams.accept(e);
            } else {
                add(events, e);
            }
        }

        @Override
        public void events(EventColumns block) {
            if (streams != null) {
                block.forEach(streams);
            } else {
                events.addAll(block);
            }
        }

        @Override
        public void gc(GcRecord record) {
            if (streams != null) {
                streams.gc(record);
            }
            gc.add(record);
        }

        @Override
        public void siteCount(SiteCount count) {
            if (streams != null) {
                streams.siteCount(count);
            }
            siteCounts.put(count.siteId(), count);
        }

        @Override
        public void metadata(String key, String value) {
            if (streams != null) {
                streams.metadata(key, value);
            }
            metadata.put(key, value);
        }

        @Override
        public void anomaly(Anomaly anomaly) {
            if (streams != null) {
                streams.anomaly(anomaly);
            }
            anomalies.add(anomaly);
        }

        @Override
        public void end(Totals t) {
            if (streams != null) {
                streams.end(t);
            }
            totals = t;
        }

        @Override
        public void functionStats(FunctionStats f) {
            if (streams != null) {
                streams.functionStats(f);
            }
            functions.put(Arrays.asList(f.function(), f.descriptor(), f.callSite()), f);
        }

        @Override
        public void scopePath(ScopePath path) {
            if (streams != null) {
                streams.scopePath(path);
            }
            scopePaths.put(path.id(), path);
        }

        @Override
        public void scopeEdge(long timestampNanos, long threadId, int threadNameId, boolean exit, int pathId,
                              long taskId, long allocatedBytes) {
            if (streams != null) {
                streams.scopeEdge(timestampNanos, threadId, threadNameId, exit, pathId, taskId, allocatedBytes);
                return;
            }
            scopeEdges.add(new ScopePath.Edge(timestampNanos, threadId, strings[threadNameId], exit, pathId, taskId,
                    allocatedBytes));
        }

        @Override
        public void apiEvent(EventView e) {
            if (streams != null) {
                streams.apiEvent(e);
            } else {
                add(apiEvents, e);
            }
        }

        private static void add(EventColumns columns, EventView e) {
            columns.add(e.timestampNanos(), e.type().code(), e.address(), e.size(), e.previousSize(), e.threadId(),
                    e.threadNameId(), e.variableNameId(), e.typeNameId(), e.stackId(), e.siteId());
        }

        @Override
        public void skippedBlock(int type, long offset) {
            if (streams != null) {
                streams.skippedBlock(type, offset);
            }
        }

        @Override
        public boolean done() {
            return streams != null && streams.done();
        }

        Recording build(Damage damage, long fileBytes, int skipped) {
            events.trim();
            return new Recording(header, Arrays.copyOf(strings, stringCount), stringCount, sites, stacks, events,
                    gc, siteCounts, metadata, anomalies, totals, damage, fileBytes, skipped, scopePaths, scopeEdges,
                    apiEvents, new ArrayList<>(functions.values()), accounting, retentionWalks,
                    processMemory);
        }
    }
}
