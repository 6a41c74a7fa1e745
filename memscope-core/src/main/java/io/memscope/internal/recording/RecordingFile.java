package io.memscope.internal.recording;

import io.memscope.error.MemscopeException;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The output side of a {@link RecordingWriter}: the file being written (or the chunk, for a chunked recording), from
 * its header to its END block. It keeps the failure that stopped the writing, the events written and dropped (the END
 * block's totals), and does what ends a file: {@link #flush}, {@link #sync}, the rotation to the next chunk
 * ({@link #rotate}, {@link ChunkRotation}), a clean or emergency {@link #close}, and after a failure the cut back to
 * the last whole block ({@link #truncateToLastBlock}).
 *
 * <p>Not thread-safe: the writer's lock guards it. Its failure rules are the writer's (see {@link RecordingWriter}):
 * an I/O failure is kept ({@link #failedWith}) and thrown as a {@link MemscopeException} of category EXPORT by the
 * next {@link #flush} or {@link #close}.
 */
final class RecordingFile {
    private final Path file;
    private final FileStrings fileStrings;
    private final BlockWriter blocks;
    /** The chunks (format 1.6); null for a recording of one file. */
    private final ChunkRotation chunks;
    private final int maxEventsPerBlock;
    private BlockOutput output;

    private long eventsWritten;              // events in blocks written or pending
    private long eventsDropped;              // reported with addDropped + refused by the writer
    private long eventsRefused;              // offered after close
    private long lastTimestamp;
    private IOException failure;
    private boolean closed;
    private boolean rotating;

    /** Opens the file (created, or truncated) or the given output, and writes the header. */
    RecordingFile(RecordingWriterBuilder b, FileStrings fileStrings, BlockWriter blocks) throws IOException {
        this.file = b.file;
        this.fileStrings = fileStrings;
        this.blocks = blocks;
        this.maxEventsPerBlock = b.maxEventsPerBlock;
        long nanoTime = b.clockSet ? b.nanoTime : System.nanoTime();
        long epochNanos;
        if (b.clockSet) {
            epochNanos = b.epochNanos;
        } else {
            Instant now = Instant.now();
            epochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }
        this.lastTimestamp = nanoTime;
        ChunkPolicy policy = b.output == null ? b.chunks : null;
        this.chunks = policy == null ? null
                : new ChunkRotation(file, policy, epochNanos, nanoTime, b.pid, b.processStartEpochMillis);
        OutputStream out = b.output != null ? b.output : file.getFileSystem() == FileSystems.getDefault()
                ? new FileOutputStream(file.toFile()) : Files.newOutputStream(file); // created, or truncated
        this.output = new BlockOutput(out, fileStrings, b.blockBytes);
        blocks.open(output);
        try {
            output.header(epochNanos, nanoTime, b.pid, b.processStartEpochMillis);
        } catch (IOException e) {
            out.close();
            throw e;
        }
    }

    /** @return what the chunks carry, or null for a recording of one file */
    ChunkState chunkState() {
        return chunks == null ? null : chunks.state();
    }

    // ------------------------------------------------------------------------------------------------ state

    boolean closed() {
        return closed;
    }

    /** @return whether a write failed (later records are dropped or discarded) */
    boolean failed() {
        return failure != null;
    }

    /** @return the write failure that stopped the writing, or null */
    IOException failure() {
        return failure;
    }

    /** Keeps the failure of a block write: the next {@link #flush} or {@link #close} throws it. */
    void failedWith(IOException e) {
        failure = e;
    }

    /** @throws MemscopeException when closed, or after a write failed */
    void ensureOpen() {
        if (closed) {
            throw MemscopeException.export("recording " + file + " is closed", null);
        }
        if (failure != null) {
            throw failed(null);
        }
    }

    /**
     * @return false after a write failed: side-table entries are then discarded (the failure is thrown by the next
     *         {@link #flush()} or {@link #close}, and {@link RecordingWriter#salvage} may still end the file cleanly)
     * @throws MemscopeException when closed
     */
    boolean accepting() {
        if (closed) {
            throw MemscopeException.export("recording " + file + " is closed", null);
        }
        return failure == null;
    }

    /** Writes the table's block once it is full; a failure is kept and thrown. */
    void added(SideTable table) {
        if (blocks.full(table)) {
            try {
                blocks.write(table);
            } catch (IOException e) {
                throw failed(e);
            }
        }
    }

    /** Keeps {@code e} (when not null) and @return the failure as the writer throws it */
    private MemscopeException failed(IOException e) {
        if (e != null) {
            failure = e;
        }
        return MemscopeException.export("cannot write recording " + file + ": " + failure, failure);
    }

    // ------------------------------------------------------------------------------------------------ counts

    /** An event went into the block being filled. */
    void eventAdded(long timestampNanos) {
        eventsWritten++;
        lastTimestamp = timestampNanos;
        if (chunks != null) {
            chunks.timestamp(timestampNanos);
        }
    }

    /** An event was refused (bad string ids) or offered after a failure. */
    void eventDropped() {
        eventsDropped++;
    }

    /** An event was offered after close. */
    void eventRefused() {
        eventsRefused++;
    }

    void addDropped(long count) {
        if (count > 0) {
            eventsDropped += count;
        }
    }

    long eventsWritten() {
        return eventsWritten;
    }

    long eventsDropped() {
        return eventsDropped;
    }

    long eventsRefused() {
        return eventsRefused;
    }

    long eventsInFile() {
        return blocks.eventsInFile();
    }

    long bytesWritten() {
        return output.bytesWritten();
    }

    // ------------------------------------------------------------------------------------------------ chunks

    boolean chunked() {
        return chunks != null;
    }

    Path chunkFile() {
        return chunks == null ? file : chunks.file();
    }

    int chunkIndex() {
        return chunks == null ? 1 : chunks.index();
    }

    long chunksDeleted() {
        return chunks == null ? 0 : chunks.deleted();
    }

    /** @return whether the chunk being written reached its size (within one block: checked after each) */
    boolean chunkFull() {
        return chunks != null && chunks.full(output.bytesWritten());
    }

    /** See {@link RecordingWriter#rotateIfDue}. */
    boolean rotateIfDue(RecordingWriter writer, RecordingWriter.ChunkDefinitions definitions) {
        if (chunks == null || closed || failure != null) {
            return false;
        }
        boolean due = chunks.due(output.bytesWritten());
        if (due) {
            rotate(writer, definitions);
        } else {
            chunks.deleteBeyondBounds(output.bytesWritten());
        }
        return due;
    }

    /**
     * Closes the current chunk (its buffered records, then END) and starts the next one: see
     * {@link RecordingWriter#rotate}. The head of the next chunk defines through {@code writer}. Never throws.
     */
    void rotate(RecordingWriter writer, RecordingWriter.ChunkDefinitions definitions) {
        if (chunks == null || closed || failure != null || rotating) {
            return;
        }
        rotating = true;
        try {
            blocks.flushAll();
            endFile(true);
            output.close();
            output = chunks.next(output.bytesWritten(), eventsWritten, eventsDropped, fileStrings,
                    blocks.blockBytes());
            fileStrings.reset(); // the new chunk defines the strings its own records use, and only those
            blocks.open(output);
            chunks.writeHead(blocks, writer, definitions, maxEventsPerBlock);
        } catch (IOException | RuntimeException e) {
            failure = e instanceof IOException ? (IOException) e : new IOException(e);
            return;
        } finally {
            rotating = false;
        }
        chunks.deleteBeyondBounds(output.bytesWritten());
    }

    // ------------------------------------------------------------------------------------------------ ends

    /**
     * Ends the file being written (the recording's, or a chunk at its rotation), every buffered record already in it:
     * its END block (its events and drops since it began). The place for what a file says about itself at its end,
     * before END.
     */
    private void endFile(boolean clean) throws IOException {
        long eventsBase = chunks == null ? 0 : chunks.eventsBase();
        long droppedBase = chunks == null ? 0 : chunks.droppedBase();
        blocks.end(eventsWritten - eventsBase, eventsDropped - droppedBase, clean, lastTimestamp);
    }

    /** Writes every buffered entry to the file (as complete blocks). */
    void flush() {
        ensureOpen();
        try {
            blocks.flushAll();
        } catch (IOException e) {
            throw failed(e);
        }
    }

    /** Like {@link #flush()}, then forces the file's content to the storage device. */
    void sync() {
        flush();
        try {
            output.sync();
        } catch (IOException e) {
            throw failed(e);
        }
    }

    /** Writes what is buffered and the END block, and closes the file. Idempotent. */
    void close(boolean clean) {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (failure == null) {
                blocks.flushAll();
                endFile(clean);
            }
        } catch (IOException e) {
            failure = e;
        } finally {
            try {
                output.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw failed(null);
        }
    }

    /** Continues on another output (see {@link RecordingWriter#moveTo}). */
    void moveTo(OutputStream next) {
        if (closed) {
            throw MemscopeException.export("recording " + file + " is closed", null);
        }
        output.moveTo(next);
    }

    /** @return whether a write failed and the file is not closed yet: {@link #truncateToLastBlock} may save it */
    boolean salvageable() {
        return !closed && failure != null;
    }

    /**
     * After a write failure: cuts the output back to the last block written whole, drops the blocks that were being
     * written and everything buffered (their events counted as dropped) and clears the failure, so that the writer
     * can end the file (metadata, then an END that is not clean).
     */
    void truncateToLastBlock() throws IOException {
        output.truncateToLastBlock();
        long lost = eventsWritten - blocks.eventsInFile();
        eventsDropped += lost;
        eventsWritten = blocks.eventsInFile();
        blocks.discardAll();
        failure = null;
    }

    /** The salvage failed: keeps its failure (unless one is kept) and closes the output. Never throws. */
    void abandon(Exception e) {
        if (failure == null) {
            failure = e instanceof IOException ? (IOException) e : new IOException(e);
        }
        closed = true;
        try {
            output.close();
        } catch (IOException ignored) {
            // nothing more to save
        }
    }
}
