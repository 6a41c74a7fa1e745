package io.memscope.internal.recording;

import java.io.IOException;

/**
 * The blocks of the file (or chunk) being written: the three streams being encoded (EVENTS, API_EVENTS,
 * SCOPE_EDGES), the side tables being filled ({@link SideTables}), and the order in which they reach the file
 * ({@link BlockOutput}): before any block, the strings it uses; before a block of events, the sites and stacks known
 * already; a block once it is full.
 *
 * <pre>
 *  flushAll:  [STRINGS] [SITES][STACKS][METADATA] [EVENTS] [GC][GC_DETAILS][GC_SCOPE][SITE_COUNTS][ANOMALIES]
 *             [SCOPE_PATHS][FUNCTIONS] [SCOPE_EDGES] [API_EVENTS]      (each only when it has entries)
 * </pre>
 *
 * <p>Not thread-safe: the {@link RecordingWriter}'s lock guards it. {@link #open} moves it to the next chunk's output
 * (every buffer empty: the writer flushes before a chunk ends).
 */
final class BlockWriter {
    private BlockOutput output;
    private final FileStrings strings;
    final SideTables tables;
    final EventBlockCodec.Encoder events;
    /** API_EVENTS (1.2): the same encoding as EVENTS, a block type of its own. */
    final EventBlockCodec.Encoder apiEvents;
    /** SCOPE_EDGES (1.2). */
    final ScopeEdgeCodec.Encoder scopeEdges;
    private final ByteSink scratch = new ByteSink(1024);
    private final int blockBytes;
    private final int maxEventsPerBlock;
    private long eventsInFile;

    BlockWriter(FileStrings strings, int blockBytes, int maxEventsPerBlock) {
        this.strings = strings;
        this.tables = new SideTables(strings);
        this.blockBytes = blockBytes;
        this.maxEventsPerBlock = maxEventsPerBlock;
        this.events = new EventBlockCodec.Encoder(blockBytes + 1024);
        this.apiEvents = new EventBlockCodec.Encoder(1024);
        this.scopeEdges = new ScopeEdgeCodec.Encoder(1024);
    }

    int blockBytes() {
        return blockBytes;
    }

    /** Writes from now on to {@code out} (the first file, or the next chunk). */
    void open(BlockOutput out) {
        this.output = out;
    }

    BlockOutput output() {
        return output;
    }

    FileStrings strings() {
        return strings;
    }

    /** @return events in EVENTS blocks written whole (since the writer began, over every chunk) */
    long eventsInFile() {
        return eventsInFile;
    }

    /** Takes back the count of events in whole blocks (a salvage cut the blocks after them). */
    void eventsInFile(long n) {
        eventsInFile = n;
    }

    /** @return whether the stream's block is full (its size or its events) */
    boolean full(EventBlockCodec.Encoder e) {
        return e.bodyBytes() >= blockBytes || e.count() >= maxEventsPerBlock;
    }

    /** @return whether the scope edges' block is full */
    boolean scopeEdgesFull() {
        return scopeEdges.bodyBytes() >= blockBytes || scopeEdges.count() >= maxEventsPerBlock;
    }

    /** @return whether a side table's block is full */
    boolean full(SideTable table) {
        return table.body.length() >= blockBytes;
    }

    /** Writes STRINGS blocks for the file's strings not yet in it. */
    void syncStrings() throws IOException {
        output.syncStrings();
    }

    /** Writes one side table's pending entries (the strings they use first). */
    void write(SideTable table) throws IOException {
        syncStrings();
        tables.write(table, output);
    }

    /** Writes a block of its own (ACCOUNTING, RETENTION, PROCESS_MEMORY...): the strings it uses first. */
    void block(BlockType type, ByteSink payload) throws IOException {
        syncStrings();
        output.block(type, null, payload);
    }

    /** Writes every buffered entry as complete blocks. */
    void flushAll() throws IOException {
        syncStrings();
        for (SideTable t : new SideTable[] {tables.sites, tables.stacks, tables.metadata}) {
            tables.write(t, output);
        }
        if (events.count() > 0) {
            writeEvents();
        }
        for (SideTable t : new SideTable[] {tables.gc, tables.siteCounts, tables.anomalies, tables.scopePaths,
            tables.functions}) {
            tables.write(t, output);
        }
        if (scopeEdges.count() > 0) {
            writeScopeEdges();
        }
        if (apiEvents.count() > 0) {
            writeApiEvents();
        }
    }

    void writeEvents() throws IOException {
        int n = events.count();
        write(BlockType.EVENTS, events);
        eventsInFile += n;
    }

    void writeApiEvents() throws IOException {
        write(BlockType.API_EVENTS, apiEvents);
    }

    /** Writes an EVENTS or API_EVENTS block and empties its encoder. */
    private void write(BlockType type, EventBlockCodec.Encoder encoder) throws IOException {
        syncStrings();
        // Sites and stacks the events use go first when they are known already.
        tables.write(tables.sites, output);
        tables.write(tables.stacks, output);
        ByteSink prefix = scratch;
        prefix.reset();
        encoder.writePrefix(prefix);
        output.block(type, prefix, encoder.body);
        encoder.reset();
    }

    void writeScopeEdges() throws IOException {
        syncStrings();
        tables.write(tables.scopePaths, output); // the paths the edges use go first when they are known already
        ByteSink prefix = scratch;
        prefix.reset();
        scopeEdges.writePrefix(prefix);
        output.block(BlockType.SCOPE_EDGES, prefix, scopeEdges.body);
        scopeEdges.reset();
    }

    /** Writes the END block: the file's events and drops, whether it closed cleanly, its last timestamp. */
    void end(long events, long dropped, boolean clean, long lastTimestamp) throws IOException {
        ByteSink s = scratch;
        s.reset();
        s.uleb(events);
        s.uleb(dropped);
        s.u8(clean ? RecordingFormat.END_CLEAN : 0);
        s.zigzag(lastTimestamp);
        output.block(BlockType.END, null, s);
    }

    /** Drops everything buffered (a salvage: it will not be in the file). */
    void discardAll() {
        events.reset();
        apiEvents.reset();
        scopeEdges.reset();
        tables.discardAll();
    }
}
