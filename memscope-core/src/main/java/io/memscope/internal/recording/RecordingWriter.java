package io.memscope.internal.recording;

import io.memscope.recording.AccountingSnapshot;
import io.memscope.recording.Totals;
import io.memscope.recording.SiteCount;
import io.memscope.recording.FunctionStats;
import io.memscope.recording.ScopePath;
import io.memscope.recording.Site;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import io.memscope.MemoryEventType;
import io.memscope.internal.error.Failures;
import io.memscope.error.MemscopeException;
import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;
import io.memscope.internal.store.StringTable;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Streams a recording file (layout: {@link RecordingFormat}, {@code docs/formats/recording.md}).
 *
 * <p>The header is written when the writer opens. Events are encoded as they arrive into one EVENTS block
 * buffer (compressed, see {@link EventBlockCodec}); when the buffer reaches
 * {@link RecordingWriterBuilder#blockBytes(int)} bytes or {@link RecordingWriterBuilder#maxEventsPerBlock(int)}
 * events it is written out as one block. Sites, stacks, metadata, GC records, site counts and anomalies are
 * buffered the same way, each in a {@link SideTable} (encodings: {@link SideTables}); {@link BlockWriter} keeps them
 * and writes them in order. Memory use is therefore bounded by a few blocks plus the strings of the file (of the
 * chunk) being written, whatever the length of the history. The file itself (from its header to its END, its
 * failure, its rotation to the next chunk) is a {@link RecordingFile}'s; this class takes the records: checks them,
 * encodes them into its blocks and keeps what a chunk carries. Each block reaches the file
 * (the OS page cache) whole, in one write ({@link BlockOutput}): a process killed at any moment leaves a file whose
 * complete blocks are all readable.
 *
 * <pre>
 *  file:  [header][STRINGS][SITES][STACKS][METADATA][EVENTS][GC][GC_DETAILS][GC_SCOPE] ... [STRINGS][EVENTS] ... [END]
 *                  \_ before any block is written, the string table entries not yet in the file are written,
 *                     so every id a block uses is defined earlier in the file
 * </pre>
 *
 * <p>Strings: events carry string ids of a {@link StringTable} (the store's, given with
 * {@link RecordingWriterBuilder#strings(StringTable)}, or the writer's own). The file has a table of its own
 * ({@link FileStrings}): the strings its blocks use, numbered as first used, written as STRINGS blocks before the
 * blocks that use them; the events' ids are mapped to it. An event whose string id is not (yet) in the store's table
 * is refused and counted as dropped.
 *
 * <p>Chunks (format 1.6, {@link RecordingWriterBuilder#chunks}): the recording is a sequence of files, each standing
 * alone; {@link #rotate} closes the current one and begins the next (header flags CONTINUED and OWN_STRINGS, a string
 * table of its own, the cumulative records, the definitions of the sites and stacks carried, the CARRY blocks of its
 * {@link ChunkState}: {@link ChunkRotation}), then deletes the oldest closed chunks beyond the {@link ChunkPolicy}'s
 * bounds. A rotation happens at
 * {@link #rotateIfDue} (size or age) and, when {@link #chunkDefinitions} are set, as soon as an EVENTS block written
 * by {@link #accept} takes the chunk past its size.
 *
 * <p>Threads: every public method is {@code synchronized}. The intended use is one thread that writes (for
 * example the agent's drain thread calling {@code store.drainTo(writer)}) plus a shutdown hook that calls
 * {@link #close()}; the hook waits for a block write in progress and then finishes the file. Events offered
 * after close are ignored and counted by {@link #eventsRefused()}.
 *
 * <p>Errors: {@link #accept} never throws (it is called from store drains): an I/O failure is remembered, later
 * events are counted as dropped, later side-table entries discarded, and the failure is thrown (as a
 * {@link MemscopeException} of category EXPORT) by the next {@link #flush()} or {@link #close()}. {@link #salvage}
 * then ends the file cleanly at its last whole block, counting the events of the blocks lost. Code inside a user
 * JVM must catch the failure and report it with {@link Failures#report}.
 */
public final class RecordingWriter implements EventSink, AutoCloseable {
    private final Path file;
    private final StringTable strings;
    /** The strings of the file (chunk) being written, by their ids in it. */
    private final FileStrings fileStrings;
    /** The blocks being filled and written. */
    private final BlockWriter blocks;
    /** The file (chunk) being written: its output, failure, event totals and ends. */
    private final RecordingFile recording;
    private long apiEventsWritten;
    private long scopeEdgesWritten;

    private int knownStrings;                // cached strings.size()
    /** What the chunks carry, null for one file. */
    private final ChunkState chunkState;

    /**
     * Defines the sites and stacks a new chunk's carried records refer to (by calling {@link #site} and
     * {@link #stack}), and forgets which ones the file had: every later event's site and stack must be defined again
     * in the new chunk. Called by {@link #rotateIfDue} under the writer's lock.
     */
    @FunctionalInterface
    public interface ChunkDefinitions {
        /**
         * @param siteIds       the sites the carried records use
         * @param stackIds      the stacks the carried records use whose frames the writer does not hold: the producer
         *                      defines those it can
         * @param stacksDefined the stacks the carried records use that the writer defined in the new chunk already
         *                      (it keeps the frames of the stacks of the allocations it carries)
         */
        void define(RecordingWriter writer, List<Integer> siteIds, List<Long> stackIds, List<Long> stacksDefined);
    }

    RecordingWriter(RecordingWriterBuilder b) throws IOException {
        this.file = b.file;
        this.strings = b.strings != null ? b.strings : new StringTable();
        this.fileStrings = new FileStrings(strings);
        this.blocks = new BlockWriter(fileStrings, b.blockBytes, b.maxEventsPerBlock);
        this.knownStrings = strings.size();
        this.recording = new RecordingFile(b, fileStrings, blocks);
        this.chunkState = recording.chunkState();
    }

    /** @return a builder for a writer on {@code file} (created, or truncated if it exists) */
    public static RecordingWriterBuilder builder(Path file) {
        return new RecordingWriterBuilder(file);
    }

    /** Opens a writer with its own string table, the current clock and this process's pid. */
    public static RecordingWriter open(Path file) {
        return builder(file).open();
    }

    /** @return the string table whose ids events refer to; intern names here when not using a store's table */
    public StringTable strings() {
        return strings;
    }

    /** @return the file being written */
    public Path file() {
        return file;
    }

    // ------------------------------------------------------------------------------------------------ events

    /** Adds one event: the {@link EventSink} form the {@code EventStore} drains into ({@link #accept(long,
     * MemoryEventType, long, long, long, long, int, int, int, long, int)}). */
    @Override
    public void accept(EventView e) {
        accept(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(), e.threadId(), e.threadNameId(),
                e.variableNameId(), e.typeNameId(), e.stackId(), e.siteId());
    }

    /**
     * Adds one event, field by field (the writer's own form, for its producers). String fields are ids in
     * {@link #strings()}; {@code siteId} and {@code stackId} refer to {@link #site} and {@link #stack} entries.
     * Never throws; see the class comment.
     */
    public synchronized void accept(long timestampNanos, MemoryEventType type, long address, long size,
                                    long previousSize, long threadId, int threadNameId, int variableNameId,
                                    int typeNameId, long stackId, int siteId) {
        if (recording.closed()) {
            recording.eventRefused();
            return;
        }
        if (recording.failed()) {
            recording.eventDropped();
            return;
        }
        if (type == null || !knownString(threadNameId) || !knownString(variableNameId)
                || !knownString(typeNameId)) {
            recording.eventDropped();
            Failures.report("recording.writer", MemscopeException.memory("event refused: type " + type
                    + ", string ids " + threadNameId + "/" + variableNameId + "/" + typeNameId
                    + " not all in the string table of " + strings.size()));
            return;
        }
        blocks.events.add(timestampNanos, type.code(), address, size, previousSize, threadId,
                fileStrings.of(threadNameId), fileStrings.of(variableNameId), fileStrings.of(typeNameId), stackId,
                siteId);
        recording.eventAdded(timestampNanos);
        if (chunkState != null) {
            chunkState.event(timestampNanos, type.code(), address, size, previousSize, threadId, threadNameId,
                    variableNameId, typeNameId, stackId, siteId);
        }
        if (blocks.full(blocks.events)) {
            try {
                blocks.writeEvents();
            } catch (IOException e) {
                recording.failedWith(e);
                return;
            }
            if (definitions != null && recording.chunkFull()) {
                rotate(definitions); // within one block of the chunk size, whatever the rate of events
            }
        }
    }

    private boolean knownString(int id) {
        if (id >= 0 && id < knownStrings) {
            return true;
        }
        knownStrings = strings.size();
        return id >= 0 && id < knownStrings;
    }

    /**
     * Adds a memory event that application code reported through memscope's API (an API_EVENTS block, format 1.2):
     * a named object tracked (ALLOCATE) or collected (DEALLOCATE), a pool BORROW or RETURN, a MOVE. Not counted in
     * {@link #eventsWritten()} (the END block counts heap and native events only). Never throws.
     */
    public synchronized void apiEvent(long timestampNanos, MemoryEventType type, long address, long size,
                                      long previousSize, long threadId, int threadNameId, int variableNameId,
                                      int typeNameId, long stackId, int siteId) {
        if (recording.closed() || recording.failed()) {
            return;
        }
        if (type == null || !knownString(threadNameId) || !knownString(variableNameId)
                || !knownString(typeNameId)) {
            Failures.report("recording.writer", MemscopeException.memory("API event refused: string ids "
                    + threadNameId + "/" + variableNameId + "/" + typeNameId + " not all in the string table"));
            return;
        }
        blocks.apiEvents.add(timestampNanos, type.code(), address, size, previousSize, threadId,
                fileStrings.of(threadNameId), fileStrings.of(variableNameId), fileStrings.of(typeNameId), stackId,
                siteId);
        apiEventsWritten++;
        if (blocks.full(blocks.apiEvents)) {
            try {
                blocks.writeApiEvents();
            } catch (IOException e) {
                recording.failedWith(e);
            }
        }
    }

    /**
     * Defines a scope path (a SCOPE_PATHS entry, format 1.2): {@code parentId/name}.
     *
     * @param pathId   the id scope edges carry, not 0
     * @param parentId the enclosing path, 0 for a root scope
     */
    public synchronized void scopePath(int pathId, int parentId, String name) {
        if (pathId == 0) {
            throw new IllegalArgumentException("scope path id 0 is reserved");
        }
        Objects.requireNonNull(name, "name");
        if (!accepting()) {
            return;
        }
        added(blocks.tables.scopePath(pathId, parentId, name));
        if (chunkState != null) {
            chunkState.scopePaths.put(pathId, new Object[] {parentId, name});
        }
    }

    /**
     * Adds a scope entry or exit (a SCOPE_EDGES entry, format 1.2). A thread's edges must come in the order they
     * happened and nest. Never throws.
     *
     * @param taskId         entries: not 0 for a task handed over from another thread
     * @param allocatedBytes exits: the scope's allocated bytes, negative when unknown
     */
    public synchronized void scopeEdge(long timestampNanos, long threadId, int threadNameId, boolean exit,
                                       int pathId, long taskId, long allocatedBytes) {
        if (recording.closed() || recording.failed() || pathId == 0) {
            return;
        }
        if (!knownString(threadNameId)) {
            Failures.report("recording.writer", MemscopeException.memory("scope edge refused: thread name id "
                    + threadNameId + " not in the string table"));
            return;
        }
        blocks.scopeEdges.add(timestampNanos, threadId, fileStrings.of(threadNameId), exit, pathId, taskId,
                allocatedBytes);
        scopeEdgesWritten++;
        if (chunkState != null) {
            chunkState.scopeEdge(timestampNanos, threadId, threadNameId, exit, pathId, taskId);
        }
        if (blocks.scopeEdgesFull()) {
            try {
                blocks.writeScopeEdges();
            } catch (IOException e) {
                recording.failedWith(e);
            }
        }
    }

    /**
     * Records the cumulative figures of a profiled function at one call site (a FUNCTIONS entry, format 1.2); later
     * figures of the same function, descriptor and call site supersede. See {@link FunctionStats}.
     *
     * @param descriptor the method descriptor, or null
     * @param callSite   the calling frame, or null when unknown
     */
    public synchronized void functionStats(String function, String descriptor, String callSite, long calls,
                                           long recursiveCalls, long totalNanos, long maxNanos, long allocatedBytes,
                                           long callsWithoutAllocation) {
        Objects.requireNonNull(function, "function");
        if (!accepting()) {
            return;
        }
        added(blocks.tables.function(function, descriptor, callSite, calls, recursiveCalls, totalNanos, maxNanos,
                allocatedBytes, callsWithoutAllocation));
        if (chunkState != null) {
            chunkState.functions.put(java.util.Arrays.asList(function, descriptor, callSite), new long[] {calls,
                recursiveCalls, totalNanos, maxNanos, allocatedBytes, callsWithoutAllocation});
        }
    }

    /**
     * Writes a snapshot of the application's accounting summary tables at once (an ACCOUNTING block, format 1.3),
     * at most {@link AccountingSnapshot#MAX_ROWS} rows; readers take the last snapshot as the latest state. Never
     * throws for a snapshot's content; an I/O failure is kept like any other (see {@link #flush()}).
     */
    public synchronized void accounting(AccountingSnapshot snapshot) {
        if (recording.closed() || recording.failed() || snapshot == null) {
            return;
        }
        ByteSink s = blocks.tables.accounting(snapshot);
        if (chunkState != null) {
            chunkState.accounting = snapshot;
        }
        try {
            blocks.block(BlockType.ACCOUNTING, s);
        } catch (IOException e) {
            recording.failedWith(e);
        }
    }

    /**
     * Writes one walk of the heap from the GC roots at once (a RETENTION block, format 1.4): its figures, the forest
     * of its paths and its samples. Never throws for a walk's content; an I/O failure is kept like any other (see
     * {@link #flush()}).
     *
     * @throws IllegalArgumentException when the walk does not fit in one block (16 MiB), or a node's parent does not
     *                                  come before it, or a sample's node is not one of the walk's
     */
    public synchronized void retention(io.memscope.recording.RetentionWalk walk) {
        if (recording.closed() || recording.failed() || walk == null) {
            return;
        }
        ByteSink s = blocks.tables.retention(walk);
        try {
            blocks.block(BlockType.RETENTION, s);
        } catch (IOException e) {
            recording.failedWith(e);
        }
    }

    /**
     * Writes samples of the process's memory at once (a PROCESS_MEMORY block, format 1.5; see
     * {@link ProcessMemoryCodec}). Never throws for the samples' content (a bad sample is counted as a failure and
     * left out); an I/O failure is kept like any other (see {@link #flush()}).
     */
    public synchronized void processMemory(io.memscope.recording.Recording.ProcessMemorySamples samples) {
        if (recording.closed() || recording.failed() || samples == null || samples.size() == 0) {
            return;
        }
        ByteSink s;
        try {
            s = ProcessMemoryCodec.encode(samples, fileStrings);
        } catch (IllegalArgumentException e) {
            Failures.report("recording.writer", e);
            return;
        }
        try {
            blocks.block(BlockType.PROCESS_MEMORY, s);
        } catch (IOException e) {
            recording.failedWith(e);
        }
    }

    /** @return API events accepted so far ({@link #apiEvent}) */
    public synchronized long apiEventsWritten() {
        return apiEventsWritten;
    }

    /** @return scope edges accepted so far ({@link #scopeEdge}) */
    public synchronized long scopeEdgesWritten() {
        return scopeEdgesWritten;
    }

    /** Counts events that were recorded but will not be in the file (for example dropped by a bounded store). */
    public synchronized void addDropped(long count) {
        recording.addDropped(count);
    }

    // ------------------------------------------------------------------------------------------ side tables

    /**
     * Defines an allocation site (before or after events that use it; a later definition of the same id
     * supersedes an earlier one).
     *
     * @param siteId    the id events carry, not 0
     * @param className binary class name with dots; null if unknown
     * @param line      1-based source line; 0 if unknown
     */
    public synchronized void site(int siteId, String className, String methodName, String fileName, int line,
                                  String typeName) {
        if (siteId == 0) {
            throw new IllegalArgumentException("site id 0 is reserved for 'no site'");
        }
        if (!accepting()) {
            return;
        }
        added(blocks.tables.site(siteId, className, methodName, fileName, line, typeName));
    }

    /**
     * Defines a call stack: frames innermost first, each {@code pkg.Class.method(File.java:LINE)}. Stacks deeper
     * than {@link RecordingFormat#MAX_FRAMES} keep their innermost frames.
     *
     * @param stackId the id events carry, not 0
     */
    public synchronized void stack(long stackId, List<String> frames) {
        if (stackId == 0) {
            throw new IllegalArgumentException("stack id 0 is reserved for 'no stack'");
        }
        if (!accepting()) {
            return;
        }
        added(blocks.tables.stack(stackId, frames));
        if (chunkState != null) {
            chunkState.stackDefined(stackId, frames);
        }
    }

    /**
     * Defines a stack again in the chunk being written from the frames the writer kept (those of the chunk before,
     * of this one, of the allocations carried): for a producer that no longer holds the stack's text.
     *
     * @return whether the writer had its frames (and defined it)
     */
    public synchronized boolean stackAgain(long stackId) {
        if (chunkState == null || stackId == 0 || !accepting()) {
            return false;
        }
        List<String> frames = chunkState.keptFrames(stackId);
        if (frames == null) {
            return false;
        }
        stack(stackId, frames);
        return true;
    }

    /** Adds a key/value pair (command line, JVM version, agent mode, sampling interval...); a later key wins. */
    public synchronized void metadata(String key, String value) {
        Objects.requireNonNull(key, "key");
        if (!accepting()) {
            return;
        }
        added(blocks.tables.metadata(key, value));
        if (chunkState != null) {
            chunkState.metadata.put(key, value);
        }
    }

    /**
     * Adds a garbage collection record without the JVM's action text.
     *
     * @param startNanos    {@code System.nanoTime()} when it started
     * @param durationNanos its duration in ns
     */
    public synchronized void gc(long startNanos, long durationNanos, String name, String cause,
                                long heapUsedBefore, long heapUsedAfter, long heapCommitted) {
        gc(startNanos, durationNanos, name, cause, heapUsedBefore, heapUsedAfter, heapCommitted, null);
    }

    /**
     * Adds a garbage collection record (a GC block entry; its action goes into the GC_DETAILS block written right
     * after that GC block).
     *
     * @param startNanos    {@code System.nanoTime()} when it started
     * @param durationNanos its duration in ns
     * @param action        the JVM's action text ({@code end of minor GC}...), or null
     */
    public synchronized void gc(long startNanos, long durationNanos, String name, String cause,
                                long heapUsedBefore, long heapUsedAfter, long heapCommitted, String action) {
        gc(startNanos, durationNanos, name, cause, heapUsedBefore, heapUsedAfter, heapCommitted, action,
                GcRecord.Examined.UNKNOWN, startNanos, startNanos);
    }

    /**
     * Adds a garbage collection record (a GC block entry; its action goes into the GC_DETAILS block, what it examined
     * into the GC_SCOPE block, written right after that GC block).
     *
     * @param snapshotNanos whole heap: objects allocated before this time were judged (at most {@code startNanos});
     *                      otherwise {@code startNanos}
     * @param verdictNanos  when its verdict holds (its start for a pause, its end for a concurrent cycle); at least
     *                      {@code startNanos}
     */
    public synchronized void gc(long startNanos, long durationNanos, String name, String cause,
                                long heapUsedBefore, long heapUsedAfter, long heapCommitted, String action,
                                GcRecord.Examined examined, long snapshotNanos, long verdictNanos) {
        if (!accepting()) {
            return;
        }
        if (examined == null) {
            examined = GcRecord.Examined.UNKNOWN;
        }
        added(blocks.tables.gc(startNanos, durationNanos, name, cause, heapUsedBefore, heapUsedAfter, heapCommitted,
                action, examined, snapshotNanos, verdictNanos));
        if (chunkState != null) {
            chunkState.gc(new GcRecord(startNanos, durationNanos, name, cause, heapUsedBefore, heapUsedAfter,
                    heapCommitted).withAction(action).withExamined(examined, snapshotNanos, verdictNanos));
        }
    }

    /** Adds a garbage collection record. */
    public void gc(GcRecord r) {
        gc(r.startNanos(), r.durationNanos(), r.name(), r.cause(), r.heapUsedBefore(), r.heapUsedAfter(),
                r.heapCommitted(), r.action(), r.examined(), r.snapshotNanos(), r.verdictNanos());
    }

    /** Records the exact cumulative totals of a site so far; later totals of the same site supersede. */
    public synchronized void siteCount(int siteId, long allocations, long bytes) {
        if (!accepting()) {
            return;
        }
        added(blocks.tables.siteCount(siteId, allocations, bytes));
        if (chunkState != null) {
            chunkState.siteCounts.put(siteId, new long[] {allocations, bytes});
        }
    }

    /** Records an anomaly (double free, unknown address...); {@code kind} is a short name like "double-free". */
    public synchronized void anomaly(String kind, long timestampNanos, long address, long size, long threadId,
                                     long stackId, String detail) {
        Objects.requireNonNull(kind, "kind");
        if (!accepting()) {
            return;
        }
        added(blocks.tables.anomaly(kind, timestampNanos, address, size, threadId, stackId, detail));
    }

    /** Writes the table's block once it is full. */
    private void added(SideTable table) {
        recording.added(table);
    }

    // ---------------------------------------------------------------------------------------------- chunks

    /**
     * Lets the writer start a new chunk as soon as an EVENTS block takes the current one past its size, rather than
     * only at {@link #rotateIfDue}: {@code definitions} is then called from inside {@link #accept}, so every caller of
     * {@code accept} must hold the lock that {@code definitions} needs (the agent: its recording stream's).
     */
    public synchronized void chunkDefinitions(ChunkDefinitions definitions) {
        this.definitions = definitions;
    }

    private ChunkDefinitions definitions;

    /** @return whether this writer writes a chunked recording (a {@link ChunkPolicy} was given) */
    public boolean chunked() {
        return chunkState != null;
    }

    /** @return the file of the chunk being written (the recording's file when it is not chunked) */
    public synchronized Path chunkFile() {
        return recording.chunkFile();
    }

    /** @return the index of the chunk being written, 1 for the first (and for a recording that is not chunked) */
    public synchronized int chunkIndex() {
        return recording.chunkIndex();
    }

    /** @return strings the file (the chunk being written) defines so far, including the reserved id 0 */
    public synchronized int fileStrings() {
        return fileStrings.size();
    }

    /**
     * @return names the files' string tables refused so far, over every chunk (beyond the string table's
     *         {@link StringTable#limit()}, written as {@link StringTable#BEYOND_BOUND})
     */
    public synchronized long fileStringsRefused() {
        return fileStrings.refused();
    }

    /** @return chunks deleted so far to hold the bounds */
    public synchronized long chunksDeleted() {
        return recording.chunksDeleted();
    }

    /** @return outstanding allocations not carried into later chunks (beyond the carry's bound), so far */
    public synchronized long carryTruncated() {
        return chunkState == null ? 0 : chunkState.truncated();
    }

    /**
     * At a point where every record given so far may go into the current chunk (the agent: after each drain):
     * deletes closed chunks beyond the bounds, and, when the current chunk has reached the policy's size or age,
     * closes it and starts the next ({@link #rotate}). Does nothing for a recording that is not chunked, or after a
     * failure. Never throws (a failure is kept as any other, see {@link #flush()}).
     *
     * @return whether a new chunk was started
     */
    public synchronized boolean rotateIfDue(ChunkDefinitions definitions) {
        return recording.rotateIfDue(this, definitions);
    }

    /**
     * Closes the current chunk (its buffered records, then END) and starts the next one: a new file with its own
     * header (flag CONTINUED; the same clock as the first chunk, its {@code nanoTime} the chunk's start), the whole
     * string table, the metadata and scope paths, the definitions of the sites and stacks carried, the CARRY blocks,
     * the latest cumulative records; then deletes the oldest closed chunks beyond the bounds. Never throws.
     */
    public synchronized void rotate(ChunkDefinitions definitions) {
        recording.rotate(this, definitions);
    }

    /** Writes every buffered entry to the file (as complete blocks). */
    public synchronized void flush() {
        recording.flush();
    }

    /** Like {@link #flush()}, then forces the file's content to the storage device (survives a power loss). */
    public synchronized void sync() {
        recording.sync();
    }

    /** Writes what is buffered and the END block (clean), and closes the file. Idempotent. */
    @Override
    public synchronized void close() {
        close(true);
    }

    /**
     * Writes what is buffered and the END block, and closes the file. Idempotent.
     *
     * @param clean false for an emergency close (for example from a shutdown hook while capture was still
     *              running): readers see it in {@link Totals#clean()}
     */
    public synchronized void close(boolean clean) {
        recording.close(clean);
    }

    /** @return the write failure that stopped this writer, or null */
    public synchronized IOException failure() {
        return recording.failure();
    }

    /**
     * Continues on another output: the caller has copied the {@link #bytesWritten()} bytes written so far there (a
     * recording kept in memory while its file could not be opened, moved to the file once it can).
     */
    public synchronized void moveTo(OutputStream next) {
        Objects.requireNonNull(next, "next");
        recording.moveTo(next);
    }

    /**
     * After a write failed (a full disk, an I/O error, a memory limit): ends the recording cleanly at the last block
     * written whole. The output is cut back to that block (a file by truncation), the blocks that were being written
     * and everything buffered are dropped (their events counted in {@link #eventsDropped()}), then the metadata
     * {@code ending} (what happened) and an END block (not clean) are written and the output closed. It needs a few
     * kilobytes of room: the caller frees some first (the agent deletes the file it reserved for this). Does nothing
     * when no write failed.
     *
     * @return whether the recording could be ended
     */
    public synchronized boolean salvage(java.util.Map<String, String> ending) {
        if (!recording.salvageable()) {
            return false;
        }
        try {
            recording.truncateToLastBlock();
            for (java.util.Map.Entry<String, String> m : ending.entrySet()) {
                metadata(m.getKey(), m.getValue());
            }
            close(false);
            return true;
        } catch (IOException | RuntimeException e) {
            recording.abandon(e);
            return false;
        }
    }

    /** @return events in blocks written whole so far */
    public synchronized long eventsInFile() {
        return recording.eventsInFile();
    }

    /** @return events accepted into the file so far (written or in the current block) */
    public synchronized long eventsWritten() {
        return recording.eventsWritten();
    }

    /** @return events dropped: reported with {@link #addDropped}, refused, or offered after an I/O failure */
    public synchronized long eventsDropped() {
        return recording.eventsDropped();
    }

    /** @return events offered after {@link #close()} (not in the file, not in its END totals) */
    public synchronized long eventsRefused() {
        return recording.eventsRefused();
    }

    /** @return bytes written to the file so far (excluding what is still buffered) */
    public synchronized long bytesWritten() {
        return recording.bytesWritten();
    }

    /**
     * @return false after a write failed: side-table entries are then discarded (see {@link RecordingFile#accepting})
     * @throws MemscopeException when the writer is closed
     */
    private boolean accepting() {
        return recording.accepting();
    }
}
