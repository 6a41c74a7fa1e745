package io.memscope.recording;

import io.memscope.recording.Recording.ProcessMemorySamples;


import java.util.List;

/**
 * Receives a recording's content in file order from {@link RecordingReader#stream}, one block at a time, without
 * the reader holding the file's events in memory. A block's content is delivered only after the whole block has
 * been checked (CRC, lengths, string ids), so a visitor never sees part of a damaged block.
 *
 * <p>Events come through {@link EventSink#accept} as an {@link EventView}: string-valued fields are ids announced before by
 * {@link #string(int, String)} (0 = none). Every method has an empty default.
 */
public interface RecordingVisitor extends EventSink {

    /** The file header, first. */
    default void header(RecordingHeader header) {
    }

    /** A string table entry: ids come densely in order 1, 2, 3 ... and before any use. */
    default void string(int id, String value) {
    }

    default void site(Site site) {
    }

    /** A call stack: frames innermost first, as {@code pkg.Class.method(File.java:LINE)}. */
    default void stack(long stackId, List<String> frames) {
    }

    /** A heap sample or native memory event (EVENTS), in file order. */
    @Override
    default void accept(EventView event) {
    }

    default void gc(GcRecord record) {
    }

    default void siteCount(SiteCount count) {
    }

    default void metadata(String key, String value) {
    }

    default void anomaly(Anomaly anomaly) {
    }

    /**
     * A function's cumulative figures at one call site (FUNCTIONS, format 1.2); a later one for the same function,
     * descriptor and call site supersedes.
     */
    default void functionStats(FunctionStats stats) {
    }

    /**
     * A snapshot of the application's accounting summary tables (ACCOUNTING, format 1.3); a later one supersedes
     * (it is a newer state of the same tables).
     */
    default void accounting(AccountingSnapshot snapshot) {
    }

    /**
     * One walk of the heap from the GC roots (RETENTION, format 1.4): which tracked samples it reached, and the
     * chain of references that reached each. A recording may hold several (one at the end of a capture, others asked
     * for while it ran), in the order they ran.
     */
    default void retention(RetentionWalk walk) {
    }

    /**
     * Samples of the process's memory (PROCESS_MEMORY, format 1.5), in file order: each block's samples in time
     * order; blocks with other parts (NMT's categories) interleave with them.
     */
    default void processMemory(ProcessMemorySamples samples) {
    }

    /** A scope path (SCOPE_PATHS, format 1.2), before or after the edges that use it. */
    default void scopePath(ScopePath path) {
    }

    /**
     * A scope entry or exit (SCOPE_EDGES, format 1.2), in file order; a thread's edges are in the order they
     * happened on it and nest properly (every exit closes the thread's innermost open entry).
     *
     * @param threadNameId   string id (0 = none)
     * @param exit           false for an entry
     * @param pathId         a {@link #scopePath} id
     * @param taskId         entries: not 0 when the entry runs a task handed over from another thread
     * @param allocatedBytes exits: heap bytes allocated by the thread inside the scope, children included; -1 when
     *                       unknown (and on entries)
     */
    default void scopeEdge(long timestampNanos, long threadId, int threadNameId, boolean exit, int pathId,
                           long taskId, long allocatedBytes) {
    }

    /**
     * A memory event that application code reported through memscope's API (API_EVENTS, format 1.2): named
     * objects (ALLOCATE when tracked, DEALLOCATE when collected, with the name as variable), pool BORROW and
     * RETURN (variable: the pool), MOVE (variable: the scope path or instrument; previousSize: the previous
     * owner's thread id). Same fields as {@link #accept}, and the same view's lifetime (valid during the call);
     * these are not heap samples.
     */
    default void apiEvent(EventView event) {
    }

    /**
     * A block of a type this reader does not know, marked SKIPPABLE (written by a newer minor version), was skipped.
     *
     * @param type   its type code
     * @param offset its offset in the file
     */
    default void skippedBlock(int type, long offset) {
    }

    /** The END block's totals, last (absent if the writer did not close the file). */
    default void end(Totals totals) {
    }

    /** Checked between blocks: return true to stop reading early (the rest of the file is not checked). */
    default boolean done() {
        return false;
    }
}
