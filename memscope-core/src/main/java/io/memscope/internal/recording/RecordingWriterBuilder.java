package io.memscope.internal.recording;

import io.memscope.error.MemscopeException;
import io.memscope.internal.store.StringTable;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/** Options of a {@link RecordingWriter}. */
public final class RecordingWriterBuilder {
    final Path file;
    StringTable strings;
    boolean clockSet;
    long epochNanos;
    long nanoTime;
    /** Set by {@link #process}; else this JVM's, looked up in {@link #open} (not for nothing: it is slow). */
    boolean processSet;
    long pid;
    long processStartEpochMillis;
    int blockBytes = 64 * 1024;
    int maxEventsPerBlock = 65_536;
    OutputStream output;
    ChunkPolicy chunks;

    RecordingWriterBuilder(Path file) {
        this.file = Objects.requireNonNull(file, "file");
    }

    /** The table whose ids the events carry (the EventStore's); default: a new table of the writer's own. */
    public RecordingWriterBuilder strings(StringTable table) {
        this.strings = Objects.requireNonNull(table, "table");
        return this;
    }

    /** The clock pair: wall-clock ns since the epoch and {@code System.nanoTime()} at the same instant. */
    public RecordingWriterBuilder clock(long epochNanos, long nanoTime) {
        this.clockSet = true;
        this.epochNanos = epochNanos;
        this.nanoTime = nanoTime;
        return this;
    }

    /** The recorded process: pid and start time (ms since the epoch, 0 if unknown). Default: this JVM. */
    public RecordingWriterBuilder process(long pid, long startEpochMillis) {
        this.processSet = true;
        this.pid = pid;
        this.processStartEpochMillis = startEpochMillis;
        return this;
    }

    /**
     * Writes to {@code stream} instead of creating the file ({@code file} still names the recording in messages):
     * a recording kept in memory until its file can be opened ({@link RecordingWriter#moveTo}).
     */
    public RecordingWriterBuilder output(OutputStream stream) {
        this.output = Objects.requireNonNull(stream, "stream");
        return this;
    }

    /**
     * Writes a chunked recording (format 1.6): {@link RecordingWriter#rotateIfDue} starts a new chunk file when the
     * policy says, and deletes the oldest chunks beyond its bounds. Ignored with {@link #output(OutputStream)}.
     */
    public RecordingWriterBuilder chunks(ChunkPolicy policy) {
        this.chunks = policy;
        return this;
    }

    /** Target payload size of a block, in bytes: 256 .. 4 MiB, default 64 KiB. */
    public RecordingWriterBuilder blockBytes(int bytes) {
        if (bytes < 256 || bytes > 4 << 20) {
            throw new IllegalArgumentException("blockBytes must be in 256 .. 4 MiB: " + bytes);
        }
        this.blockBytes = bytes;
        return this;
    }

    /** Most events per EVENTS block: 1 .. {@link RecordingFormat#MAX_EVENTS_PER_BLOCK}, default 65536. */
    public RecordingWriterBuilder maxEventsPerBlock(int events) {
        if (events < 1 || events > RecordingFormat.MAX_EVENTS_PER_BLOCK) {
            throw new IllegalArgumentException("maxEventsPerBlock must be in 1 .. "
                    + RecordingFormat.MAX_EVENTS_PER_BLOCK + ": " + events);
        }
        this.maxEventsPerBlock = events;
        return this;
    }

    /**
     * Creates the file and writes its header.
     *
     * @throws MemscopeException (EXPORT) if the file cannot be created
     */
    public RecordingWriter open() {
        if (!processSet) {
            ProcessHandle self = ProcessHandle.current();
            pid = self.pid();
            processStartEpochMillis = self.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
            processSet = true;
        }
        try {
            return new RecordingWriter(this);
        } catch (IOException e) {
            throw MemscopeException.export("cannot create recording " + file + ": " + e, e);
        }
    }
}
