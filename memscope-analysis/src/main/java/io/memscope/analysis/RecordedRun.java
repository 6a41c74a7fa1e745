package io.memscope.analysis;

import io.memscope.recording.RecordingReader.ChunkSet;
import io.memscope.recording.AccountingSnapshot;
import io.memscope.recording.Anomaly;
import io.memscope.recording.Damage;
import io.memscope.recording.EventSink;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.RetentionWalk;
import io.memscope.recording.Site;
import io.memscope.recording.SiteCount;
import io.memscope.recording.Totals;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One JVM's recording opened for analysis: the only input of every report, diff and export. {@link #open} reads
 * the file once with core's {@link RecordingReader#readTables}, keeping everything but the events (header, metadata,
 * sites, stacks, GC records, exact site counts, anomalies, the END totals and any damage) and learning from the
 * events what an analysis must know before it replays them: how many there are, their first and last timestamps,
 * the threads with scope edges, and each site's allocation window ({@link AllocationWindows}; also inside a report's
 * time window when the run's start is known before the first event). {@link #replay} streams the events from the file
 * again, in file order. The events are never held: memory is the string table, the sites and the stacks, whatever
 * the length of the run.
 *
 * <p>A recording that was not closed (the JVM was killed, crashed or is still running) or that is damaged is
 * opened as far as it is readable: {@link #damage()} says where it stops, and {@link #replay} delivers the same
 * events as the first read, even if the file grew since.
 *
 * <p>Metadata keys {@value MetadataKeys#FAILURES} and {@code failure.N} become {@link #failureCount()} and
 * {@link #failureMessages()}; the rest is in {@link #metadata()} in order of first appearance.
 */
public final class RecordedRun {
    private static final int SMALL_SITE_IDS = 1 << 16;

    private final Path file;
    /** The chunks read, for a chunked recording's folder; null for a file. */
    private final ChunkSet chunks;
    private final Tables tables;
    private final FirstReadStreams streams;
    private final Replay replayer;
    private final Origin origin;
    private final Map<String, String> metadata = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();
    private final long failureCount;
    private final boolean apiRecords;

    /** Sites by id for the usual small, dense ids (the agent's): analyses look one up per event, unboxed. */
    private final Site[] smallSites;

    private RecordedRun(Path file, ChunkSet chunks, Tables tables, FirstReadStreams streams, Replay replayer,
                        Origin origin) {
        this.file = file;
        this.chunks = chunks;
        this.tables = tables;
        this.streams = streams;
        this.replayer = replayer;
        this.origin = origin;
        long failed = 0;
        for (Map.Entry<String, String> e : tables.metadata().entrySet()) {
            String key = e.getKey();
            if (key.equals(MetadataKeys.FAILURES)) {
                failed = parseOrZero(e.getValue());
            } else if (key.startsWith(MetadataKeys.FAILURE_PREFIX)) {
                failures.add(e.getValue());
            } else {
                metadata.put(key, e.getValue());
            }
        }
        this.failureCount = failed;
        this.apiRecords = streams.apiRecords || tables.hasScopePaths() || tables.hasFunctionStats();
        int n = 0;
        for (int id : tables.sites().keySet()) {
            if (id >= 0 && id < SMALL_SITE_IDS) {
                n = Math.max(n, id + 1);
            }
        }
        this.smallSites = new Site[n];
        for (Site s : tables.sites().values()) {
            if (s.id() >= 0 && s.id() < n) {
                smallSites[s.id()] = s;
            }
        }
    }

    private static long parseOrZero(String v) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException | NullPointerException e) {
            return 0;
        }
    }

    /**
     * Opens a recording: reads it once.
     *
     * @throws io.memscope.error.CorruptFileException if the file is not a readable recording (header)
     * @throws io.memscope.error.MemscopeException    (SYSTEM) if it cannot be read
     */
    public static RecordedRun open(Path file) {
        return open(file, TimeWindow.ALL);
    }

    /**
     * Opens a recording for a report over {@code window}: reads it once, and learns the sites' allocation windows
     * inside it as well when the run's start is known before the first event: the metadata's
     * {@value MetadataKeys#START_NANOS}, or the header's clock pair when the metadata comes later (the agent's
     * recordings: their header's {@code nanoTime} is the capture's start).
     */
    static RecordedRun open(Path file, TimeWindow window) {
        return open(file, window, true);
    }

    /**
     * Opens a recording for a report over {@code window}; a chunked recording's folder with {@code selectChunks}
     * only as far as the window needs ({@link ChunkWindow}): the chunks wholly before it are not read (the first
     * chunk read carries their state), those wholly after it neither.
     */
    static RecordedRun open(Path file, TimeWindow window, boolean selectChunks) {
        FirstReadStreams streams = new FirstReadStreams(window);
        if (JfrSource.isJfr(file)) {
            JfrSource jfr = JfrSource.read(file, streams);
            return new RecordedRun(file, null, jfr.tables(), streams, jfr::replay, jfr.origin());
        }
        ChunkSet all = java.nio.file.Files.isDirectory(file) ? ChunkSet.of(file) : null;
        ChunkWindow selection = all != null && selectChunks ? ChunkWindow.of(all, window) : null;
        if (selection != null) {
            ChunkSet read = selection.chunks();
            Recording tables = RecordingReader.readTables(read, streams, streams);
            Replay some = (limit, sink, alongside, timeOrdered) ->
                    EventPipe.stream(read::stream, limit, sink, alongside, timeOrdered);
            RecordedRun run = new RecordedRun(file, read, Tables.of(tables), streams, some, Origin.memscope());
            if (run.metadataLong(MetadataKeys.START_NANOS, Long.MIN_VALUE) == selection.runStartNanos()) {
                return run;
            }
            // the run's start is not the one the chunks were chosen by: read them all
            return open(file, window, false);
        }
        Recording tables = RecordingReader.readTables(file, streams, streams);
        Replay memscope = (limit, sink, alongside, timeOrdered) ->
                EventPipe.stream(file, limit, sink, alongside, timeOrdered);
        return new RecordedRun(file, all, Tables.of(tables), streams, memscope, Origin.memscope());
    }

    /**
     * Streams the events again, in file order, to {@code sink}: exactly the events the first read saw. The file is
     * decoded on a second thread while {@code sink} runs on this one ({@link EventPipe}).
     *
     * @throws io.memscope.error.MemscopeException (SYSTEM) if the file cannot be read any more
     */
    public void replay(EventSink sink) {
        replayer.stream(streams.eventCount, sink, null, false);
    }

    /**
     * Streams the events again to {@code sink}, put in time order by a {@link TimeOrder} on the decoding thread, and
     * the whole file in file order to {@code alongside} (if not null) on that thread too: both passes in one read,
     * on two cores ({@link EventPipe}).
     *
     * @return the events passed on out of order ({@link TimeOrder#late()})
     */
    long replayInTimeOrder(EventSink sink, RecordingVisitor alongside) {
        return replayer.stream(streams.eventCount, sink, alongside, true);
    }

    /** @return the sites' allocation windows over the whole recording */
    AllocationWindows allocationWindows() {
        return streams.all;
    }

    /**
     * @return the sites' allocation windows from {@code from} to {@code to} if the first read learnt them (see
     *         {@link #open(Path, TimeWindow)}), else null
     */
    AllocationWindows allocationWindows(long from, long to) {
        AllocationWindows w = streams.inWindow;
        return w != null && w.covers(from, to) ? w : null;
    }

    /** @return what made the recording (memscope's agent, or JFR) and what it cannot give */
    public Origin origin() {
        return origin;
    }

    /**
     * @return true when each heap sample's size is the bytes it stands for (a JFR event's weight, {@link JfrSource}),
     *         false when samples are weighted as memscope's Poisson sampler's (by the metadata's interval)
     */
    boolean eventWeights() {
        return origin.eventWeights();
    }

    /** @return the file, or the folder of a chunked recording */
    public Path file() {
        return file;
    }

    /**
     * @return the chunks of a chunked recording read from its folder (format 1.6): which are present, which were
     *         deleted; null for a recording file
     */
    public ChunkSet chunks() {
        return chunks;
    }

    public RecordingHeader header() {
        return tables.header();
    }

    /** @return the string with this id (event fields), null for 0 or an id the file never defined */
    public String string(int id) {
        return id > 0 && id < tables.stringCount() ? tables.string(id) : null;
    }

    /** @return metadata in order of first appearance (a later value of a key replaced the earlier one) */
    public Map<String, String> metadata() {
        return Collections.unmodifiableMap(metadata);
    }

    /** @return the metadata value as a long, or {@code fallback} when absent or not a number */
    public long metadataLong(String key, long fallback) {
        String v = metadata.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    /** @return the site, or null if the recording does not define it */
    public Site site(int id) {
        if (id >= 0 && id < SMALL_SITE_IDS) {
            return id < smallSites.length ? smallSites[id] : null;
        }
        return tables.sites().get(id);
    }

    /** @return sites by id (the last definition of each) */
    public Map<Integer, Site> sites() {
        return tables.sites();
    }

    /** @return frames of the stack, innermost first; empty when unknown */
    public List<String> stack(long id) {
        return tables.stacks().getOrDefault(id, List.of());
    }

    /** @return every collection, in file order (the agent's: in the order the JVM notified them) */
    public List<GcRecord> gcRecords() {
        return tables.gcRecords();
    }

    /** @return the final exact totals of each site (exact mode); empty in sample mode */
    public Map<Integer, SiteCount> siteCounts() {
        return tables.siteCounts();
    }

    public List<Anomaly> anomalies() {
        return tables.anomalies();
    }

    /** @return memscope's own failures inside the recorded JVM (metadata {@code failures}) */
    public long failureCount() {
        return failureCount;
    }

    /** @return the first failure messages (metadata {@code failure.0}, {@code failure.1}, ...) */
    public List<String> failureMessages() {
        return Collections.unmodifiableList(failures);
    }

    /** @return the END block's totals; empty when the writer did not close the file */
    public Optional<Totals> totals() {
        return tables.totals();
    }

    /** @return where the file stops being readable (not closed, truncated, corrupt); empty for a sound file */
    public Optional<Damage> damage() {
        return tables.damage();
    }

    /** @return events read (and replayed) */
    public long eventCount() {
        return streams.eventCount;
    }

    /** @return blocks of types this reader does not know that were skipped (written by a newer minor version) */
    public int skippedBlocks() {
        return tables.skippedBlocks();
    }

    /** @return the smallest event timestamp, or {@link Long#MAX_VALUE} without events */
    public long firstEventNanos() {
        return streams.firstNanos;
    }

    /**
     * @return the last snapshot of the application's accounting summary tables (format 1.3), or null when the
     *         recording has none
     */
    public AccountingSnapshot accounting() {
        return tables.accounting();
    }

    /**
     * @return the walks of the heap from its GC roots (RETENTION, format 1.4), in the order they ran; empty when the
     *         recording has none
     */
    public List<RetentionWalk> retentionWalks() {
        return tables.retentionWalks();
    }

    /**
     * @return the samples of the process's memory (PROCESS_MEMORY, format 1.5), block by block in file order; empty
     *         when the recording has none
     */
    public List<io.memscope.recording.Recording.ProcessMemorySamples> processMemory() {
        return tables.processMemory();
    }

    /** @return the largest event timestamp, or {@link Long#MIN_VALUE} without events */
    public long lastEventNanos() {
        return streams.lastNanos;
    }

    /** @return whether the recording has a scope edge (SCOPE_EDGES) of this thread: its samples may be in scopes */
    public boolean hasScopeEdges(long threadId) {
        return streams.scopeThreads.contains(threadId);
    }

    /**
     * @return whether the recording has any of the API's records: scope paths or edges, API events (named objects,
     *         pools), function statistics; the API's anomalies are in {@link #anomalies()}
     */
    public boolean hasApiRecords() {
        return apiRecords;
    }

    /** @return whether the recording has function statistics (FUNCTION_STATS) */
    public boolean hasFunctionStats() {
        return tables.hasFunctionStats();
    }

    /**
     * What made a recording and what its figures cannot be.
     *
     * @param kind         {@code memscope} (memscope's agent) or {@code jfr} (a JFR recording: the JDK's flight
     *                     recorder, or async-profiler's JFR output)
     * @param producer     what wrote it, as far as the file says (for example {@code memscope 0.9},
     *                     {@code JDK 25 flight recorder}, {@code async-profiler})
     * @param limitations  what the report cannot show from such a recording, one sentence each; empty for memscope's
     * @param eventWeights each heap sample's size is the bytes it stands for, not a Poisson sample's size
     */
    public record Origin(String kind, String producer, List<String> limitations, boolean eventWeights) {
        public Origin {
            limitations = List.copyOf(limitations);
        }

        static Origin memscope() {
            return new Origin("memscope", "memscope agent", List.of(), false);
        }
    }

    /** How a run streams its events again ({@link #replay}, {@link #replayInTimeOrder}). */
    @FunctionalInterface
    interface Replay {
        /** Streams at most {@code limit} events to {@code sink}, the whole file to {@code alongside} if not null. */
        long stream(long limit, EventSink sink, RecordingVisitor alongside, boolean timeOrdered);
    }

    /** What the first read keeps of a recording: everything but the events. */
    interface Tables {
        RecordingHeader header();

        Map<String, String> metadata();

        int stringCount();

        String string(int id);

        Map<Integer, Site> sites();

        Map<Long, List<String>> stacks();

        List<GcRecord> gcRecords();

        Map<Integer, SiteCount> siteCounts();

        List<Anomaly> anomalies();

        Optional<Totals> totals();

        Optional<Damage> damage();

        int skippedBlocks();

        AccountingSnapshot accounting();

        List<RetentionWalk> retentionWalks();

        List<Recording.ProcessMemorySamples> processMemory();

        boolean hasScopePaths();

        boolean hasFunctionStats();

        /** @return a memscope recording's tables */
        static Tables of(Recording r) {
            return new Tables() {
                public RecordingHeader header() {
                    return r.header();
                }

                public Map<String, String> metadata() {
                    return r.metadata();
                }

                public int stringCount() {
                    return r.stringCount();
                }

                public String string(int id) {
                    return r.string(id);
                }

                public Map<Integer, Site> sites() {
                    return r.sites();
                }

                public Map<Long, List<String>> stacks() {
                    return r.stacks();
                }

                public List<GcRecord> gcRecords() {
                    return r.gcRecords();
                }

                public Map<Integer, SiteCount> siteCounts() {
                    return r.siteCounts();
                }

                public List<Anomaly> anomalies() {
                    return r.anomalies();
                }

                public Optional<Totals> totals() {
                    return r.totals();
                }

                public Optional<Damage> damage() {
                    return r.damage();
                }

                public int skippedBlocks() {
                    return r.skippedBlocks();
                }

                public AccountingSnapshot accounting() {
                    return r.accounting();
                }

                public List<RetentionWalk> retentionWalks() {
                    return r.retentionWalks();
                }

                public List<Recording.ProcessMemorySamples> processMemory() {
                    return r.processMemory();
                }

                public boolean hasScopePaths() {
                    return !r.scopePaths().isEmpty();
                }

                public boolean hasFunctionStats() {
                    return !r.functionStats().isEmpty();
                }
            };
        }
    }
}
