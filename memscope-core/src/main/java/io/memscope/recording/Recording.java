package io.memscope.recording;

import io.memscope.internal.recording.EventColumns;
import io.memscope.MemoryEvent;
import io.memscope.recording.EventSink;

import java.util.AbstractList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A recording read into memory by {@link RecordingReader#read}: immutable. Events are held in columnar form
 * (primitive arrays, about 65 bytes per event, no object per event); {@link #forEach(EventSink)} hands them out
 * in file order with string fields as ids ({@link #string(int)}), {@link #events()} is a {@code List} view that
 * builds a {@link MemoryEvent} per access (convenient for small recordings).
 *
 * <p>A damaged file (truncated, writer killed, corrupted) still gives a recording: everything in the complete,
 * valid blocks before the damage, and {@link #damage()} says where and what.
 */
public final class Recording {
    private final RecordingHeader header;
    private final String[] strings;
    private final int stringCount;
    private final Map<Integer, Site> sites;
    private final Map<Long, List<String>> stacks;
    private final EventColumns events;
    private final List<GcRecord> gcRecords;
    private final Map<Integer, SiteCount> siteCounts;
    private final Map<String, String> metadata;
    private final List<Anomaly> anomalies;
    private final Totals totals;
    private final Damage damage;
    private final long fileBytes;
    private final int skippedBlocks;
    private final Map<Integer, ScopePath> scopePaths;
    private final List<ScopePath.Edge> scopeEdges;
    private final EventColumns apiEvents;
    private final List<FunctionStats> functions;
    private final AccountingSnapshot accounting;
    private final List<RetentionWalk> retentionWalks;
    private final List<ProcessMemorySamples> processMemory;

    Recording(RecordingHeader header, String[] strings, int stringCount, Map<Integer, Site> sites,
              Map<Long, List<String>> stacks, EventColumns events, List<GcRecord> gcRecords,
              Map<Integer, SiteCount> siteCounts, Map<String, String> metadata, List<Anomaly> anomalies,
              Totals totals, Damage damage, long fileBytes, int skippedBlocks, Map<Integer, ScopePath> scopePaths,
              List<ScopePath.Edge> scopeEdges, EventColumns apiEvents, List<FunctionStats> functions,
              AccountingSnapshot accounting, List<RetentionWalk> retentionWalks,
              List<ProcessMemorySamples> processMemory) {
        this.header = Objects.requireNonNull(header);
        this.strings = strings;
        this.stringCount = stringCount;
        this.sites = Collections.unmodifiableMap(sites);
        this.stacks = Collections.unmodifiableMap(stacks);
        this.events = events;
        this.gcRecords = Collections.unmodifiableList(gcRecords);
        this.siteCounts = Collections.unmodifiableMap(siteCounts);
        this.metadata = Collections.unmodifiableMap(metadata);
        this.anomalies = Collections.unmodifiableList(anomalies);
        this.totals = totals;
        this.damage = damage;
        this.fileBytes = fileBytes;
        this.skippedBlocks = skippedBlocks;
        this.scopePaths = Collections.unmodifiableMap(scopePaths);
        this.scopeEdges = Collections.unmodifiableList(scopeEdges);
        this.apiEvents = apiEvents;
        this.functions = Collections.unmodifiableList(functions);
        this.accounting = accounting;
        this.retentionWalks = List.copyOf(retentionWalks);
        this.processMemory = List.copyOf(processMemory);
    }

    /**
     * @return the samples of the process's memory (PROCESS_MEMORY, format 1.5), block by block in file order; empty
     *         when the recording has none
     */
    public List<ProcessMemorySamples> processMemory() {
        return processMemory;
    }

    /**
     * @return the walks of the heap from its GC roots (RETENTION, format 1.4), in the order they ran; empty when the
     *         recording has none
     */
    public List<RetentionWalk> retentionWalks() {
        return retentionWalks;
    }

    /**
     * @return the last snapshot of the application's accounting summary tables (ACCOUNTING, format 1.3), or null
     *         when the recording has none (older formats, or an application that did not use accounting)
     */
    public AccountingSnapshot accounting() {
        return accounting;
    }

    public RecordingHeader header() {
        return header;
    }

    /** @return number of string ids, including the reserved id 0 */
    public int stringCount() {
        return stringCount;
    }

    /** @return the string with this id; null for 0 */
    public String string(int id) {
        if (id < 0 || id >= stringCount) {
            throw new IllegalArgumentException("unknown string id " + id + " (recording has " + stringCount + ")");
        }
        return strings[id];
    }

    /** @return sites by id (the last definition of each id) */
    public Map<Integer, Site> sites() {
        return sites;
    }

    /** @return the site, if the recording defines it */
    public Optional<Site> site(int siteId) {
        return Optional.ofNullable(sites.get(siteId));
    }

    /** @return stacks by id: frames innermost first */
    public Map<Long, List<String>> stacks() {
        return stacks;
    }

    /** @return number of events read */
    public int eventCount() {
        return events.size;
    }

    /** Hands every event, in file order, to {@code sink}; string fields are ids for {@link #string(int)}. */
    public void forEach(EventSink sink) {
        events.forEach(sink);
    }

    /** @return event {@code index} as an object, strings resolved */
    public MemoryEvent event(int index) {
        return event(events, index);
    }

    private MemoryEvent event(EventColumns c, int index) {
        Objects.checkIndex(index, c.size);
        return new MemoryEvent(c.timestamp[index], c.typeOf(index), c.address[index], c.eventSize[index],
                c.previousSize[index], c.threadId[index], strings[c.threadNameId[index]],
                strings[c.variableNameId[index]], strings[c.typeNameId[index]], c.stackId[index],
                c.siteId[index]);
    }

    /** @return a read-only list view of the events, building one {@link MemoryEvent} per {@code get} */
    public List<MemoryEvent> events() {
        return new AbstractList<>() {
            @Override
            public MemoryEvent get(int index) {
                return event(index);
            }

            @Override
            public int size() {
                return events.size;
            }
        };
    }

    public List<GcRecord> gcRecords() {
        return gcRecords;
    }

    /** @return the latest cumulative totals of each site */
    public Map<Integer, SiteCount> siteCounts() {
        return siteCounts;
    }

    /** @return metadata in order of first appearance; a later value of a key replaced the earlier one */
    public Map<String, String> metadata() {
        return metadata;
    }

    public List<Anomaly> anomalies() {
        return anomalies;
    }

    /** @return the END block's totals; empty if the writer did not close the file or the file is damaged before */
    public Optional<Totals> totals() {
        return Optional.ofNullable(totals);
    }

    /** @return where and how the file is damaged (truncated, corrupt, not closed); empty for a sound file */
    public Optional<Damage> damage() {
        return Optional.ofNullable(damage);
    }

    /** @return the file's size in bytes when it was read */
    public long fileBytes() {
        return fileBytes;
    }

    /** @return scope paths by id (SCOPE_PATHS, format 1.2; empty in older files) */
    public Map<Integer, ScopePath> scopePaths() {
        return scopePaths;
    }

    /** @return the full path of scope path {@code id}, {@code request/parse}, or {@code scope#id} when undefined */
    public String scopePath(int id) {
        ScopePath p = scopePaths.get(id);
        if (p == null) {
            return "scope#" + Integer.toUnsignedString(id);
        }
        return p.parentId() == 0 ? p.name() : scopePath(p.parentId()) + "/" + p.name();
    }

    /** @return scope entries and exits in file order (SCOPE_EDGES, format 1.2; empty in older files) */
    public List<ScopePath.Edge> scopeEdges() {
        return scopeEdges;
    }

    /**
     * @return the memory events reported through memscope's API (API_EVENTS, format 1.2: named objects, pool
     *         borrows and returns, moves), in file order, one {@link MemoryEvent} built per {@code get}
     */
    public List<MemoryEvent> apiEvents() {
        return new AbstractList<>() {
            @Override
            public MemoryEvent get(int index) {
                return event(apiEvents, index);
            }

            @Override
            public int size() {
                return apiEvents.size;
            }
        };
    }

    /**
     * @return the function profile (FUNCTIONS, format 1.2; empty in older files): the latest figures of each
     *         function, descriptor and call site, in order of first appearance
     */
    public List<FunctionStats> functionStats() {
        return functions;
    }

    /** @return blocks of unknown skippable types that were skipped (written by a newer minor version) */
    public int skippedBlocks() {
        return skippedBlocks;
    }

    /**
     * Samples of the recorded process's memory (a PROCESS_MEMORY block of a recording, format 1.5): at each sample's
     * time, the value of each named part. The parts are named in the block, so a later writer may add parts without a
     * format change; a reader takes the parts it knows by name and ignores the others.
     *
     * <p>Part names the memscope agent writes (values in bytes unless said otherwise; {@link #UNKNOWN} = not known at
     * that sample, e.g. no {@code /proc} on this platform):
     * <ul>
     * <li>{@code rss}, {@code rssAnon}, {@code rssFile}, {@code rssShmem}, {@code swap}: the process's resident set and
     *     its anonymous, file-backed and shared-memory parts, and its swapped-out memory ({@code /proc/self/status}
     *     VmRSS, RssAnon, RssFile, RssShmem, VmSwap; Linux only);</li>
     * <li>{@code threads}: the process's thread count (a count, not bytes: {@code /proc/self/status} Threads, else the
     *     JVM's live thread count);</li>
     * <li>{@code heapUsed}, {@code heapCommitted}: the Java heap ({@code MemoryMXBean});</li>
     * <li>{@code metaspace}, {@code classSpace}: committed bytes of the {@code Metaspace} pool (which includes the
     *     compressed class space) and of the {@code Compressed Class Space} pool;</li>
     * <li>{@code codeCache}: committed bytes of the code cache pools;</li>
     * <li>{@code threadStacks}: the threads' stacks: NMT's committed stack bytes when the JVM runs with
     *     {@code -XX:NativeMemoryTracking}, else an estimate (threads times the configured stack size; metadata
     *     {@code processMemory.threadStacks} says which);</li>
     * <li>{@code directBuffers}: memory used by the {@code direct} buffer pool (what {@code BufferPoolMXBean}
     *     "direct" reports);</li>
     * <li>{@code trackedNative}: native memory memscope tracked and that is still allocated (direct buffers, Unsafe,
     *     FFM arenas);</li>
     * <li>{@code nmt.<category>.committed}: NMT's committed bytes per category (in blocks of their own, taken less
     *     often), e.g. {@code nmt.Java Heap.committed}, {@code nmt.Thread.stack.committed}.</li>
     * </ul>
     *
     * @param parts      the part names, in the order of each sample's values
     * @param timestamps {@link System#nanoTime()} of the recorded JVM at each sample
     * @param values     row-major: sample {@code i}'s value of part {@code j} is {@code values[i * parts.size() + j]}
     */
    public record ProcessMemorySamples(List<String> parts, long[] timestamps, long[] values) {
        /** A value that was not known at that sample. */
        public static final long UNKNOWN = -1;

        public ProcessMemorySamples {
            parts = List.copyOf(parts);
            if (values.length != timestamps.length * parts.size()) {
                throw new IllegalArgumentException(values.length + " values for " + timestamps.length + " samples of "
                        + parts.size() + " parts");
            }
        }

        /** @return the number of samples */
        public int size() {
            return timestamps.length;
        }

        /** @return sample {@code i}'s time ({@link System#nanoTime()} of the recorded JVM) */
        public long timestampNanos(int i) {
            return timestamps[i];
        }

        /** @return sample {@code i}'s value of part {@code part} (an index into {@link #parts()}) */
        public long value(int i, int part) {
            return values[i * parts.size() + part];
        }

        /** @return the index of the named part, or -1 when the block does not have it */
        public int part(String name) {
            return parts.indexOf(name);
        }
    }
}
