package io.memscope.internal.recording;

import io.memscope.internal.error.Failures;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The chunks of a chunked recording ({@code docs/formats/recording.md} section 10) as its {@link RecordingWriter}
 * writes them: when the current chunk is due to end ({@link #due}), the next chunk's file and header ({@link #next}),
 * the head that makes it stand alone ({@link #writeHead}: the cumulative records, the definitions of what it carries,
 * the CARRY blocks of its {@link ChunkState}), and the deletion of the oldest closed chunks beyond the
 * {@link ChunkPolicy}'s bounds ({@link #deleteBeyondBounds}).
 *
 * <pre>
 *  recording.msrec  recording-000002.msrec            recording-000003.msrec (being written)
 *  [hdr ... END]    [hdr CONTINUED|OWN_STRINGS][head: STRINGS METADATA SITES STACKS SCOPE_PATHS CARRY..
 *                    SITE_COUNTS FUNCTIONS ACCOUNTING][records ...][END]
 * </pre>
 *
 * <p>Not thread-safe: the writer's lock guards it.
 */
final class ChunkRotation {
    private final Path firstFile;
    private final ChunkPolicy policy;
    private final ChunkState state = new ChunkState();
    private final long clockEpochNanos;
    private final long clockNanoTime;
    private final long pid;
    private final long processStartEpochMillis;
    private int index = 1;
    private Path file;
    /** System.nanoTime() when the current chunk was opened. */
    private long openedNanos = System.nanoTime();
    private long maxTimestamp = Long.MIN_VALUE;
    private long eventsBase;
    private long droppedBase;
    private long deleted;
    /** Closed chunks still on disk, oldest first. */
    private final ArrayDeque<ClosedChunk> closed = new ArrayDeque<>();

    private record ClosedChunk(Path file, long bytes, long closedNanos) {
    }

    ChunkRotation(Path firstFile, ChunkPolicy policy, long clockEpochNanos, long clockNanoTime, long pid,
                  long processStartEpochMillis) {
        this.firstFile = firstFile;
        this.file = firstFile;
        this.policy = policy;
        this.clockEpochNanos = clockEpochNanos;
        this.clockNanoTime = clockNanoTime;
        this.pid = pid;
        this.processStartEpochMillis = processStartEpochMillis;
    }

    ChunkPolicy policy() {
        return policy;
    }

    /** @return what the chunks carry, kept from every record written */
    ChunkState state() {
        return state;
    }

    int index() {
        return index;
    }

    Path file() {
        return file;
    }

    long deleted() {
        return deleted;
    }

    /** @return events written before the current chunk began (its END counts those after) */
    long eventsBase() {
        return eventsBase;
    }

    /** @return events dropped before the current chunk began */
    long droppedBase() {
        return droppedBase;
    }

    /** An event's timestamp: the next chunk starts after every one of them. */
    void timestamp(long t) {
        if (t > maxTimestamp) {
            maxTimestamp = t;
        }
    }

    /** @return whether the current chunk has reached the policy's size or age */
    boolean due(long bytesWritten) {
        return bytesWritten >= policy.chunkBytes() || System.nanoTime() - openedNanos >= policy.chunkNanos();
    }

    /** @return whether the current chunk has reached the policy's size */
    boolean full(long bytesWritten) {
        return bytesWritten >= policy.chunkBytes();
    }

    /**
     * The current chunk was closed (its END written, its output closed): opens the next chunk's file and writes its
     * header (flags CONTINUED and OWN_STRINGS; the clock of the first chunk, its {@code nanoTime} the chunk's start).
     *
     * @param closedBytes  the closed chunk's size
     * @param eventsSoFar  events written so far (the next chunk's END counts from here)
     * @param droppedSoFar events dropped so far
     * @return the next chunk's output
     */
    BlockOutput next(long closedBytes, long eventsSoFar, long droppedSoFar, FileStrings strings, int blockBytes)
            throws IOException {
        closed.addLast(new ClosedChunk(file, closedBytes, System.nanoTime()));
        eventsBase = eventsSoFar;
        droppedBase = droppedSoFar;
        index++;
        file = ChunkPolicy.chunkFile(firstFile, index);
        io.memscope.internal.files.PrivateFiles.createFile(file);
        OutputStream out = new FileOutputStream(file.toFile());
        BlockOutput output = new BlockOutput(out, strings, blockBytes);
        openedNanos = System.nanoTime();
        long start = Math.max(maxTimestamp == Long.MIN_VALUE ? openedNanos : maxTimestamp + 1, clockNanoTime);
        startNanos = start;
        output.header(RecordingFormat.FLAG_CONTINUED | RecordingFormat.FLAG_OWN_STRINGS,
                clockEpochNanos + (start - clockNanoTime), start, pid, processStartEpochMillis);
        return output;
    }

    /** The start of the current chunk ({@code nanoTime} of its header). */
    private long startNanos;

    /**
     * Writes the head of the chunk just begun: its metadata (every key's latest value and the chunk's own keys), its
     * scope paths, the definitions of the sites and stacks its carried records use (the stacks whose frames the
     * state kept, then the producer's {@code definitions}), the CARRY blocks, the latest site counts, function
     * figures and accounting snapshot. Every block after its strings.
     */
    void writeHead(BlockWriter blocks, RecordingWriter writer, RecordingWriter.ChunkDefinitions definitions,
                   int maxEventsPerBlock) throws IOException {
        SideTables tables = blocks.tables;
        for (Map.Entry<String, String> m : state.metadata.entrySet()) {
            tables.metadata(m.getKey(), m.getValue());
        }
        tables.metadata(ChunkPolicy.META_INDEX, Integer.toString(index));
        tables.metadata(ChunkPolicy.META_START_NANOS, Long.toString(startNanos));
        tables.metadata(ChunkPolicy.META_DELETED, Long.toString(deleted));
        tables.metadata(ChunkPolicy.META_CARRY_TRUNCATED, Long.toString(state.truncated()));
        for (Map.Entry<Integer, Object[]> p : state.scopePaths.entrySet()) {
            tables.scopePath(p.getKey(), (Integer) p.getValue()[0], (String) p.getValue()[1]);
        }
        List<Long> carried = state.stackIds();
        List<Long> missing = new ArrayList<>();
        List<Long> defined = new ArrayList<>();
        for (long id : carried) {
            List<String> frames = state.keptFrames(id);
            if (frames != null) {
                tables.stack(id, frames);
                defined.add(id);
            } else {
                missing.add(id);
            }
        }
        state.keepFramesOf(carried);
        if (definitions != null) {
            definitions.define(writer, state.siteIds(), missing, defined);
        }
        blocks.syncStrings();
        BlockOutput output = blocks.output();
        tables.write(tables.metadata, output);
        tables.write(tables.sites, output);
        tables.write(tables.stacks, output);
        tables.write(tables.scopePaths, output);
        state.writeCarry(output, blocks.strings(), maxEventsPerBlock);
        for (Map.Entry<Integer, long[]> c : state.siteCounts.entrySet()) {
            tables.siteCount(c.getKey(), c.getValue()[0], c.getValue()[1]);
        }
        for (Map.Entry<List<String>, long[]> f : state.functions.entrySet()) {
            long[] v = f.getValue();
            tables.function(f.getKey().get(0), f.getKey().get(1), f.getKey().get(2), v[0], v[1], v[2], v[3], v[4],
                    v[5]);
        }
        blocks.syncStrings();
        tables.write(tables.siteCounts, output);
        tables.write(tables.functions, output);
        if (state.accounting != null) {
            blocks.block(BlockType.ACCOUNTING, tables.accounting(state.accounting));
        }
    }

    /**
     * Deletes the oldest closed chunks while all chunks ({@code currentBytes}: the one being written) exceed the size
     * bound, or while the oldest ended before the age bound. Never the chunk being written; never throws (a chunk that
     * cannot be deleted is reported and forgotten).
     */
    void deleteBeyondBounds(long currentBytes) {
        long total = currentBytes;
        for (ClosedChunk c : closed) {
            total += c.bytes;
        }
        long now = System.nanoTime();
        while (!closed.isEmpty()) {
            ClosedChunk oldest = closed.peekFirst();
            boolean tooBig = policy.maxBytes() > 0 && total > policy.maxBytes();
            boolean tooOld = policy.maxNanos() > 0 && now - oldest.closedNanos > policy.maxNanos();
            if (!tooBig && !tooOld) {
                return;
            }
            closed.removeFirst();
            total -= oldest.bytes;
            try {
                Files.deleteIfExists(oldest.file);
                deleted++;
            } catch (IOException | RuntimeException e) {
                Failures.report("recording.chunks", e);
            }
        }
    }
}
