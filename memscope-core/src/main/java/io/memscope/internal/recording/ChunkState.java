package io.memscope.internal.recording;

import io.memscope.MemoryEventType;
import io.memscope.recording.AccountingSnapshot;
import io.memscope.recording.GcRecord;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a chunk of a chunked recording needs at its start to stand alone ({@code docs/formats/recording.md}, CARRY):
 * kept by the {@link RecordingWriter} from every record it writes, because it sees them all. Not thread-safe: the
 * writer's lock guards it.
 *
 * <ul>
 *   <li>the allocations still outstanding: heap samples (ALLOCATE with a sample id not yet DEALLOCATEd) and native
 *       blocks (ALLOCATE or REALLOCATE at an address not yet freed), in the order they were written, with every
 *       field (site, stack, thread, type, time): at most {@link #MAX_OUTSTANDING}, beyond which the oldest are
 *       forgotten and counted ({@link #truncated()});</li>
 *   <li>each thread's open scope entries, innermost last;</li>
 *   <li>the collections since the last whole-heap one (that one included), which the held-memory rules need to judge
 *       the carried samples: at most {@link #MAX_GCS};</li>
 *   <li>the latest value of each cumulative record, re-written at every chunk start: metadata, scope paths, exact
 *       site counts, function statistics, the accounting snapshot.</li>
 * </ul>
 *
 * <p>The CARRY payload it writes ({@link #writeCarry}):
 * <pre>
 *  CARRY payload
 *  +-------------+---------------------------------------------------------------------------+
 *  | uleb n      | number of inner blocks                                                     |
 *  | n x block   | complete blocks (12-byte header with CRC, then payload) of type EVENTS     |
 *  |             | (outstanding allocations), SCOPE_EDGES (open entries) and GC, GC_DETAILS,  |
 *  |             | GC_SCOPE (the collections carried), each encoded as at top level            |
 *  +-------------+---------------------------------------------------------------------------+
 * </pre>
 */
final class ChunkState {
    /** Most outstanding allocations carried; beyond, the oldest are forgotten and counted. */
    static final int MAX_OUTSTANDING = 2_000_000;
    /** Most collections carried (those since the last whole-heap collection). */
    static final int MAX_GCS = 10_000;
    /** Inner bytes after which a CARRY block is closed and another begun (well under the 16 MiB block limit). */
    static final int CARRY_BLOCK_BYTES = 8 << 20;

    /** One outstanding allocation, every field of its event. */
    private record Outstanding(long timestamp, int typeCode, long address, long size, long previousSize,
                               long threadId, int threadNameId, int variableNameId, int typeNameId, long stackId,
                               int siteId) {
    }

    /** One open scope entry. */
    private record Entry(long timestamp, long threadId, int threadNameId, int pathId, long taskId) {
    }

    private final LinkedHashMap<Long, Outstanding> outstanding = new LinkedHashMap<>();
    private final Map<Long, ArrayDeque<Entry>> openScopes = new HashMap<>();
    private final ArrayDeque<GcRecord> gcs = new ArrayDeque<>();
    private long truncated;

    /**
     * The frames of the stacks defined in the chunk being written, and of those the allocations carried into it use:
     * a new chunk defines the stacks of what it carries from here, whether or not its producer still holds their
     * text (a bounded producer drops the text of stacks the file has).
     */
    private HashMap<Long, List<String>> stackFrames = new HashMap<>();
    /**
     * The frames of the stacks the chunk before defined: a stack sampled again soon after a rotation is defined from
     * here when its producer dropped its text (two chunks of stack definitions at most).
     */
    private HashMap<Long, List<String>> previousFrames = new HashMap<>();

    final LinkedHashMap<String, String> metadata = new LinkedHashMap<>();
    final LinkedHashMap<Integer, Object[]> scopePaths = new LinkedHashMap<>();
    final LinkedHashMap<Integer, long[]> siteCounts = new LinkedHashMap<>();
    final LinkedHashMap<List<String>, long[]> functions = new LinkedHashMap<>();
    AccountingSnapshot accounting;

    void event(long timestamp, int typeCode, long address, long size, long previousSize, long threadId,
               int threadNameId, int variableNameId, int typeNameId, long stackId, int siteId) {
        if (address == 0) {
            return;
        }
        if (typeCode == MemoryEventType.DEALLOCATE.code()) {
            outstanding.remove(address);
        } else if (typeCode == MemoryEventType.ALLOCATE.code() || typeCode == MemoryEventType.REALLOCATE.code()) {
            outstanding.put(address, new Outstanding(timestamp, typeCode, address, size, previousSize, threadId,
                    threadNameId, variableNameId, typeNameId, stackId, siteId));
            if (outstanding.size() > MAX_OUTSTANDING) {
                Iterator<Long> oldest = outstanding.keySet().iterator();
                oldest.next();
                oldest.remove();
                truncated++;
            }
        }
    }

    void scopeEdge(long timestamp, long threadId, int threadNameId, boolean exit, int pathId, long taskId) {
        ArrayDeque<Entry> open = openScopes.get(threadId);
        if (exit) {
            if (open != null && !open.isEmpty()) {
                open.removeLast();
                if (open.isEmpty()) {
                    openScopes.remove(threadId);
                }
            }
            return;
        }
        if (open == null) {
            open = new ArrayDeque<>();
            openScopes.put(threadId, open);
        }
        if (open.size() < 1024) {
            open.addLast(new Entry(timestamp, threadId, threadNameId, pathId, taskId));
        }
    }

    void gc(GcRecord r) {
        if (r.examined() == GcRecord.Examined.WHOLE_HEAP) {
            gcs.clear();
        }
        gcs.addLast(r);
        if (gcs.size() > MAX_GCS) {
            gcs.removeFirst();
        }
    }

    /** A stack was defined in the chunk being written. */
    void stackDefined(long stackId, List<String> frames) {
        stackFrames.put(stackId, List.copyOf(frames));
    }

    /** @return the frames of a stack defined in this chunk or the one before, or carried into it; or null */
    List<String> keptFrames(long stackId) {
        List<String> f = stackFrames.get(stackId);
        return f != null ? f : previousFrames.get(stackId);
    }

    /**
     * A chunk begins: keeps the frames of the stacks its carried allocations use, and those the chunk that ended
     * defined (for one chunk); forgets the rest.
     */
    void keepFramesOf(List<Long> stackIds) {
        HashMap<Long, List<String>> kept = new HashMap<>();
        for (long id : stackIds) {
            List<String> f = keptFrames(id);
            if (f != null) {
                kept.put(id, f);
            }
        }
        previousFrames = stackFrames;
        stackFrames = kept;
    }

    /** @return outstanding allocations forgotten beyond {@link #MAX_OUTSTANDING}, since the capture began */
    long truncated() {
        return truncated;
    }

    /** @return the outstanding allocations carried */
    int outstandingCount() {
        return outstanding.size();
    }

    /** @return the site ids the carried records refer to (their definitions must precede the CARRY block) */
    List<Integer> siteIds() {
        java.util.LinkedHashSet<Integer> ids = new java.util.LinkedHashSet<>();
        for (Outstanding o : outstanding.values()) {
            if (o.siteId > 0) {
                ids.add(o.siteId);
            }
        }
        ids.addAll(siteCounts.keySet());
        return new ArrayList<>(ids);
    }

    /** @return the stack ids the carried records refer to */
    List<Long> stackIds() {
        java.util.LinkedHashSet<Long> ids = new java.util.LinkedHashSet<>();
        for (Outstanding o : outstanding.values()) {
            if (o.stackId != 0) {
                ids.add(o.stackId);
            }
        }
        return new ArrayList<>(ids);
    }

    /**
     * Writes the CARRY block(s) to {@code out}: the sites and stacks they use must be in the file already; the strings
     * they use are defined in the file's table ({@code strings}, from the store's ids the records were given with)
     * and written before each CARRY block.
     */
    void writeCarry(BlockOutput out, FileStrings strings, int maxEventsPerBlock) throws IOException {
        if (outstanding.isEmpty() && openScopes.isEmpty() && gcs.isEmpty()) {
            return;
        }
        Carry carry = new Carry(out);
        EventBlockCodec.Encoder events = new EventBlockCodec.Encoder(64 * 1024);
        ByteSink prefix = new ByteSink(32);
        for (Outstanding o : outstanding.values()) {
            events.add(o.timestamp, o.typeCode, o.address, o.size, o.previousSize, o.threadId,
                    strings.of(o.threadNameId), strings.of(o.variableNameId), strings.of(o.typeNameId), o.stackId,
                    o.siteId);
            if (events.count() >= maxEventsPerBlock || events.bodyBytes() >= 1 << 20) {
                carry.events(events, prefix);
            }
        }
        if (events.count() > 0) {
            carry.events(events, prefix);
        }
        if (!openScopes.isEmpty()) {
            ScopeEdgeCodec.Encoder edges = new ScopeEdgeCodec.Encoder(1024);
            List<Entry> all = new ArrayList<>();
            for (ArrayDeque<Entry> open : openScopes.values()) {
                all.addAll(open);
            }
            all.sort((a, b) -> Long.compare(a.timestamp, b.timestamp));
            for (Entry e : all) {
                edges.add(e.timestamp, e.threadId, strings.of(e.threadNameId), false, e.pathId, e.taskId, -1);
            }
            prefix.reset();
            edges.writePrefix(prefix);
            carry.inner().block(BlockType.SCOPE_EDGES, prefix, edges.body);
            carry.added(1);
        }
        if (!gcs.isEmpty()) {
            SideTables tables = new SideTables(strings);
            for (GcRecord r : gcs) {
                tables.gc(r.startNanos(), r.durationNanos(), r.name(), r.cause(), r.heapUsedBefore(),
                        r.heapUsedAfter(), r.heapCommitted(), r.action(), r.examined(), r.snapshotNanos(),
                        r.verdictNanos());
            }
            CountingOutput counter = carry.counting();
            tables.write(tables.gc, carry.inner());
            carry.added(counter.blocksSince());
        }
        carry.finish();
    }

    /** Collects inner blocks into CARRY blocks of at most {@link #CARRY_BLOCK_BYTES}. */
    private static final class Carry {
        private final BlockOutput out;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final CountingOutput counting = new CountingOutput(bytes);
        private final BlockOutput inner;
        private int blocks;

        Carry(BlockOutput out) {
            this.out = out;
            this.inner = new BlockOutput(counting, null, 64 * 1024);
        }

        BlockOutput inner() {
            return inner;
        }

        CountingOutput counting() {
            counting.mark();
            return counting;
        }

        void events(EventBlockCodec.Encoder events, ByteSink prefix) throws IOException {
            prefix.reset();
            events.writePrefix(prefix);
            inner.block(BlockType.EVENTS, prefix, events.body);
            events.reset();
            added(1);
        }

        void added(int n) throws IOException {
            blocks += n;
            if (bytes.size() >= CARRY_BLOCK_BYTES) {
                finish();
            }
        }

        void finish() throws IOException {
            if (blocks == 0) {
                return;
            }
            ByteSink prefix = new ByteSink(16);
            prefix.uleb(blocks);
            ByteSink body = new ByteSink(bytes.size() + 16);
            byte[] b = bytes.toByteArray();
            body.bytes(b, 0, b.length);
            out.syncStrings(); // the strings its inner blocks use go first
            out.block(BlockType.CARRY, prefix, body);
            bytes.reset();
            blocks = 0;
        }
    }

    /** Counts the blocks written through it (the GC table writes one to three). */
    private static final class CountingOutput extends java.io.OutputStream {
        private final java.io.OutputStream out;
        private int writes;
        private int marked;

        CountingOutput(java.io.OutputStream out) {
            this.out = out;
        }

        void mark() {
            marked = writes;
        }

        int blocksSince() {
            return writes - marked;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            writes++;                   // BlockOutput writes each block with one write
            out.write(b, off, len);
        }
    }
}
