package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.Anomaly;
import io.memscope.recording.Damage;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.RecordingHeader;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.Site;
import io.memscope.recording.SiteCount;
import io.memscope.recording.Totals;
import io.memscope.recording.EventSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One JVM's recording opened for analysis: the only input of every report, diff and export. {@link #open} reads
 * the file once, keeping everything but the events (header, metadata, sites, stacks, GC records, exact site counts,
 * anomalies, the END totals and any damage); {@link #replay} streams the events from the file again, as often as
 * an analysis needs, in file order. The events are never held: memory is the string table, the sites and the
 * stacks, whatever the length of the run.
 *
 * <p>A recording that was not closed (the JVM was killed, crashed or is still running) or that is damaged is
 * opened as far as it is readable: {@link #damage()} says where it stops, and {@link #replay} delivers the same
 * events as the first read, even if the file grew since.
 *
 * <p>Metadata keys {@value MetadataKeys#FAILURES} and {@code failure.N} become {@link #failureCount()} and
 * {@link #failureMessages()}; the rest is in {@link #metadata()} in order of first appearance.
 */
public final class RecordedRun {
    private final Path file;
    private final Reader tables;

    /** Sites by id for the usual small, dense ids (the agent's): analyses look one up per event, unboxed. */
    private final Site[] smallSites;

    private RecordedRun(Path file, Reader tables) {
        this.file = file;
        this.tables = tables;
        int n = 0;
        for (int id : tables.sites.keySet()) {
            if (id >= 0 && id < SMALL_SITE_IDS) {
                n = Math.max(n, id + 1);
            }
        }
        this.smallSites = new Site[n];
        for (Site s : tables.sites.values()) {
            if (s.id() >= 0 && s.id() < n) {
                smallSites[s.id()] = s;
            }
        }
    }

    private static final int SMALL_SITE_IDS = 1 << 16;

    /**
     * Opens a recording: reads it once, handing its events to {@code firstPass} (in file order, string fields as
     * ids for {@link #string(int)}; may be null).
     *
     * @throws io.memscope.error.CorruptFileException if the file is not a readable recording (header)
     * @throws io.memscope.error.MemscopeException    (SYSTEM) if it cannot be read
     */
    public static RecordedRun open(Path file, EventSink firstPass) {
        Reader r = new Reader(firstPass);
        r.damage = RecordingReader.stream(file, r).orElse(null);
        return new RecordedRun(file, r);
    }

    /** Opens a recording without looking at its events yet. */
    public static RecordedRun open(Path file) {
        return open(file, null);
    }

    /**
     * Streams the events again, in file order, to {@code sink}: exactly the events the first read saw. The file is
     * decoded on a second thread while {@code sink} runs on this one ({@link EventPipe}).
     *
     * @throws io.memscope.error.MemscopeException (SYSTEM) if the file cannot be read any more
     */
    public void replay(EventSink sink) {
        EventPipe.stream(file, tables.eventCount, sink);
    }

    /**
     * Streams the events again to {@code sink}, put in time order by a {@link TimeOrder} on the decoding thread, and
     * the whole file in file order to {@code alongside} (if not null) on that thread too: both passes in one read,
     * on two cores ({@link EventPipe}).
     *
     * @return the events passed on out of order ({@link TimeOrder#late()})
     */
    long replayInTimeOrder(EventSink sink, RecordingVisitor alongside) {
        return EventPipe.stream(file, tables.eventCount, sink, alongside, true);
    }

    /** @return the file */
    public Path file() {
        return file;
    }

    public RecordingHeader header() {
        return tables.header;
    }

    /** @return the string with this id (event fields), null for 0 or an id the file never defined */
    public String string(int id) {
        String[] s = tables.strings;
        return id > 0 && id < s.length ? s[id] : null;
    }

    /** @return metadata in order of first appearance (a later value of a key replaced the earlier one) */
    public Map<String, String> metadata() {
        return Collections.unmodifiableMap(tables.metadata);
    }

    /** @return the metadata value as a long, or {@code fallback} when absent or not a number */
    public long metadataLong(String key, long fallback) {
        String v = tables.metadata.get(key);
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
        return tables.sites.get(id);
    }

    /** @return sites by id (the last definition of each) */
    public Map<Integer, Site> sites() {
        return Collections.unmodifiableMap(tables.sites);
    }

    /** @return frames of the stack, innermost first; empty when unknown */
    public List<String> stack(long id) {
        return tables.stacks.getOrDefault(id, List.of());
    }

    /** @return every collection, in file order (the agent's: in the order the JVM notified them) */
    public List<GcRecord> gcRecords() {
        return Collections.unmodifiableList(tables.gcs);
    }

    /** @return the final exact totals of each site (exact mode); empty in sample mode */
    public Map<Integer, SiteCount> siteCounts() {
        return Collections.unmodifiableMap(tables.siteCounts);
    }

    public List<Anomaly> anomalies() {
        return Collections.unmodifiableList(tables.anomalies);
    }

    /** @return memscope's own failures inside the recorded JVM (metadata {@code failures}) */
    public long failureCount() {
        return tables.failureCount;
    }

    /** @return the first failure messages (metadata {@code failure.0}, {@code failure.1}, ...) */
    public List<String> failureMessages() {
        return Collections.unmodifiableList(tables.failures);
    }

    /** @return the END block's totals; empty when the writer did not close the file */
    public Optional<Totals> totals() {
        return Optional.ofNullable(tables.totals);
    }

    /** @return where the file stops being readable (not closed, truncated, corrupt); empty for a sound file */
    public Optional<Damage> damage() {
        return Optional.ofNullable(tables.damage);
    }

    /** @return events read (and replayed) */
    public long eventCount() {
        return tables.eventCount;
    }

    /** @return blocks of types this reader does not know that were skipped (written by a newer minor version) */
    public int skippedBlocks() {
        return tables.skipped;
    }

    /** @return the smallest event timestamp, or {@link Long#MAX_VALUE} without events */
    public long firstEventNanos() {
        return tables.firstNanos;
    }

    /**
     * @return the last snapshot of the application's accounting summary tables (format 1.3), or null when the
     *         recording has none
     */
    public io.memscope.recording.AccountingSnapshot accounting() {
        return tables.accounting;
    }

    /**
     * @return the walks of the heap from its GC roots (RETENTION, format 1.4), in the order they ran; empty when the
     *         recording has none
     */
    public List<io.memscope.recording.RetentionWalk> retentionWalks() {
        return Collections.unmodifiableList(tables.retentionWalks);
    }

    /** @return the largest event timestamp, or {@link Long#MIN_VALUE} without events */
    public long lastEventNanos() {
        return tables.lastNanos;
    }

    /** @return whether the recording has a scope edge (SCOPE_EDGES) of this thread: its samples may be in scopes */
    public boolean hasScopeEdges(long threadId) {
        return tables.scopeThreads.contains(threadId);
    }

    /**
     * @return whether the recording has any of the API's records: scope paths or edges, API events (named objects,
     *         pools), function statistics; the API's anomalies are in {@link #anomalies()}
     */
    public boolean hasApiRecords() {
        return tables.apiRecords;
    }

    /** @return whether the recording has function statistics (FUNCTION_STATS) */
    public boolean hasFunctionStats() {
        return tables.functionStats;
    }

    /** Everything of a recording but its events; the events go to the first-pass sink. */
    private static final class Reader implements RecordingVisitor {
        private final EventSink firstPass;
        RecordingHeader header;
        String[] strings = new String[256];
        final Map<String, String> metadata = new LinkedHashMap<>();
        final Map<Integer, Site> sites = new HashMap<>();
        final Map<Long, List<String>> stacks = new HashMap<>();
        final List<GcRecord> gcs = new ArrayList<>();
        final Map<Integer, SiteCount> siteCounts = new LinkedHashMap<>();
        final List<Anomaly> anomalies = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        long failureCount;
        Totals totals;
        Damage damage;
        int skipped;
        long eventCount;
        long firstNanos = Long.MAX_VALUE;
        long lastNanos = Long.MIN_VALUE;
        io.memscope.recording.AccountingSnapshot accounting;
        final List<io.memscope.recording.RetentionWalk> retentionWalks = new ArrayList<>();
        /** Threads with scope edges: a handful, not one entry per edge. */
        final java.util.Set<Long> scopeThreads = new java.util.HashSet<>();
        private long lastScopeThread = Long.MIN_VALUE;
        boolean apiRecords;
        boolean functionStats;

        Reader(EventSink firstPass) {
            this.firstPass = firstPass;
        }

        @Override
        public void header(RecordingHeader h) {
            header = h;
        }

        @Override
        public void string(int id, String value) {
            if (id >= strings.length) {
                strings = Arrays.copyOf(strings, Math.max(id + 1, strings.length * 2));
            }
            strings[id] = value;
        }

        @Override
        public void metadata(String key, String value) {
            if (key.equals(MetadataKeys.FAILURES)) {
                try {
                    failureCount = Long.parseLong(value);
                } catch (NumberFormatException | NullPointerException e) {
                    failureCount = 0;
                }
            } else if (key.startsWith(MetadataKeys.FAILURE_PREFIX)) {
                failures.add(value);
            } else {
                metadata.put(key, value);
            }
        }

        @Override
        public void site(Site s) {
            sites.put(s.id(), s);
        }

        @Override
        public void stack(long stackId, List<String> frames) {
            stacks.put(stackId, frames);
        }

        @Override
        public void accept(long timestampNanos, MemoryEventType type, long address, long size, long previousSize,
                           long threadId, int threadNameId, int variableNameId, int typeNameId, long stackId,
                           int siteId) {
            eventCount++;
            firstNanos = Math.min(firstNanos, timestampNanos);
            lastNanos = Math.max(lastNanos, timestampNanos);
            if (firstPass != null) {
                firstPass.accept(timestampNanos, type, address, size, previousSize, threadId, threadNameId,
                        variableNameId, typeNameId, stackId, siteId);
            }
        }

        @Override
        public void accounting(io.memscope.recording.AccountingSnapshot snapshot) {
            accounting = snapshot;
        }

        @Override
        public void gc(GcRecord record) {
            gcs.add(record);
        }

        @Override
        public void retention(io.memscope.recording.RetentionWalk walk) {
            retentionWalks.add(walk);
        }

        @Override
        public void siteCount(SiteCount count) {
            siteCounts.put(count.siteId(), count);
        }

        @Override
        public void anomaly(Anomaly anomaly) {
            anomalies.add(anomaly);
        }

        @Override
        public void scopePath(io.memscope.recording.ScopePath path) {
            apiRecords = true;
        }

        @Override
        public void scopeEdge(long timestampNanos, long threadId, int threadNameId, boolean exit, int pathId,
                              long taskId, long allocatedBytes) {
            apiRecords = true;
            if (threadId != lastScopeThread) { // edges come in runs of one thread: box only when it changes
                lastScopeThread = threadId;
                scopeThreads.add(threadId);
            }
        }

        @Override
        public void apiEvent(long timestampNanos, MemoryEventType type, long address, long size, long previousSize,
                             long threadId, int threadNameId, int variableNameId, int typeNameId, long stackId,
                             int siteId) {
            apiRecords = true;
        }

        @Override
        public void functionStats(io.memscope.recording.FunctionStats stats) {
            apiRecords = true;
            functionStats = true;
        }

        @Override
        public void skippedBlock(int type, long offset) {
            skipped++;
        }

        @Override
        public void end(Totals t) {
            totals = t;
        }
    }
}
