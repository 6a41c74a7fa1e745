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
        RecordingParser parser = new RecordingParser(file, c);
        Optional<Damage> damage = parser.run();
        return c.build(damage.orElse(null), size(file), parser.skippedBlocks());
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
        RecordingParser parser = new RecordingParser(file, c);
        Optional<Damage> damage = parser.run();
        return c.build(damage.orElse(null), size(file), parser.skippedBlocks());
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
        return new RecordingParser(file, visitor).run();
    }

    /**
     * Reads only the file header.
     *
     * @throws CorruptFileException if the header is missing, damaged or of an unsupported version
     */
    public static RecordingHeader readHeader(Path file) {
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
            return Files.size(file);
        } catch (IOException e) {
            return -1;
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
