package io.memscope.agent.capture;

import io.memscope.MemoryEvent;
import io.memscope.internal.error.Failures;
import io.memscope.internal.files.PrivateFiles;
import io.memscope.launch.FileErrors;
import io.memscope.launch.OutputFolders;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.internal.recording.EventColumns;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.internal.store.EventStore;
import io.memscope.internal.store.StringTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The recording file of one capture: opened by the background thread (the writer's classes and the file are not the
 * application's start-up's business; events recorded before wait in the store), fed by the store's drains and by
 * the JVM sampler's drain thread directly, flushed every flush period, finished with what is only known at the end.
 *
 * <p>If the file cannot be opened (a folder that cannot be made or is refused, a read-only or full disk), the
 * recording is written into memory instead, at most {@link #memoryLimit()} bytes, and that is said at once on stderr;
 * at the end the file is tried again and, if it opens, the recording held in memory goes into it. A recording whose
 * writes fail later (a disk that fills up, the memory limit) says so at once, counts every event it drops from then
 * on, and is ended cleanly at its last whole block ({@link RecordingWriter#salvage}) with why and when it stopped
 * ({@link MetadataKeys#RECORDING_FAILURE}): a file of {@value #RESERVE_BYTES} bytes reserved next to it when it
 * opened is deleted to make room for that end on a full disk.
 */
final class CaptureRecording {
    private final StoreSink sink;
    private final StackTable stacks;
    private final Path file;
    private final Map<String, String> startMetadata;
    private final long startNanos;
    private final long startEpochMs;
    private final boolean exact;
    private final long intervalBytes;
    /** Bytes kept free on the recording's disk for its end when the disk fills up ({@link #reserve}). */
    static final int RESERVE_BYTES = 64 * 1024;
    /** Name of that file, in the recording's folder. */
    static final String RESERVE_NAME = ".recording.reserve";
    private final Object openLock = new Object();
    private boolean opened;
    private volatile RecordingStream stream;
    /** The recording held in memory while its file cannot be opened, else null. */
    private MemoryOutput memory;
    /** Why the file could not be opened (memory mode), for the message at the end. */
    private String openFailure;
    /** The first write failure, said once on stderr; null while every write succeeded. */
    private volatile String writeFailure;
    private long writeFailureNanos;
    /** The reserved file, or null. */
    private Path reserve;
    /** What the application reports through memscope's API, and the function profile (or null): set before open. */
    private ApiCapture api;
    private FunctionProfile functions;
    /** The push's table ({@link #push}), or null. */
    private volatile PushTable push;
    /** Events {@link #event} could not record (a failure, each also counted by {@code Failures}). */
    private final java.util.concurrent.atomic.AtomicLong failedEvents = new java.util.concurrent.atomic.AtomicLong();

    CaptureRecording(StoreSink sink, StackTable stacks, Path file, Map<String, String> startMetadata, long startNanos,
                     long startEpochMs, boolean exact, long intervalBytes) {
        this.sink = sink;
        this.stacks = stacks;
        this.file = file;
        this.startMetadata = startMetadata;
        this.startNanos = startNanos;
        this.startEpochMs = startEpochMs;
        this.exact = exact;
        this.intervalBytes = intervalBytes;
    }

    /** The recording is written in chunks with this policy (null: one file); before {@link #open}. */
    void chunks(io.memscope.internal.recording.ChunkPolicy policy) {
        this.chunkPolicy = policy;
    }

    private io.memscope.internal.recording.ChunkPolicy chunkPolicy;

    /** Sets the API capture and function profile whose blocks the stream writes; before {@link #open}. */
    void extensions(ApiCapture api, FunctionProfile functions) {
        this.api = api;
        this.functions = functions;
    }

    /** The JVM sampler, told when a chunk begins (its samples bring their stacks' frames again), or null. */
    private volatile JvmtiHeapSampler jvmSampler;

    /** Tells the JVM sampler {@code s} when a chunk of the recording begins, from now on. */
    void jvmSampler(JvmtiHeapSampler s) {
        jvmSampler = s;
        RecordingStream rs = stream;
        if (rs != null) {
            rs.jvmSampler(s);
        }
    }

    /**
     * @return names the recording's string tables refused beyond the string bound (the file's table when not
     *         chunked, each chunk's otherwise), 0 before the file is open
     */
    long fileStringsRefused() {
        RecordingStream rs = stream;
        return rs == null ? 0 : rs.writer().fileStringsRefused();
    }

    /** @return names the recording's string table holds now (the chunk being written's), 0 before the file is open */
    long fileStrings() {
        RecordingStream rs = stream;
        return rs == null ? 0 : rs.writer().fileStrings();
    }

    /** Every ALLOCATE event the recording takes goes into {@code t} too, from now on (the push). */
    void push(PushTable t) {
        push = t;
        RecordingStream rs = stream;
        if (rs != null) {
            rs.push(t);
        }
    }

    /** Opens the file (once; the background thread, or the end of a capture shorter than its start). */
    void open() {
        synchronized (openLock) {
            if (!opened) {
                opened = true;
                RecordingStream rs = openStream();
                if (rs != null) {
                    // What waited in the store goes into the file before any batch written directly (those writers
                    // wait on this lock meanwhile): else a block allocated before the file opened and freed after
                    // would have its free ahead of its allocation in the file, and a reader would take it as held.
                    try {
                        rs.drainStore();
                    } catch (Throwable t) {
                        Failures.report("agent.recording.flush", t);
                    }
                }
                stream = rs;
                if (rs != null) {
                    // set by another thread while the stream was made: that thread read no stream yet, and the
                    // stream may have read the field before it was set (both fields volatile: one of the two sees
                    // the other's write). A push table missed here was never fed: every push had no allocations.
                    rs.push(push);
                    rs.jvmSampler(jvmSampler);
                }
            }
        }
    }

    private RecordingStream openStream() {
        if (file == null) {
            return null;
        }
        try {
            RecordingWriter w = fileWriter();
            reserve = reserve(file.toAbsolutePath().getParent());
            return stream(w);
        } catch (Throwable t) {
            Failures.report("agent.recording.open", t);
            openFailure = reason(t);
            try {
                memory = new MemoryOutput(memoryLimit());
                RecordingWriter w = RecordingWriter.builder(file).output(memory).strings(sink.store().strings())
                        .process(ProcessInfo.pid(), ProcessInfo.startEpochMillis())
                        .clock(startEpochMs * 1_000_000L, startNanos).open();
                System.err.println("memscope agent: cannot write " + file + ": " + openFailure
                        + "; tracking continues in memory up to " + mib(memoryLimit())
                        + ", then drops events (counted); the file is tried again at the end");
                return stream(w);
            } catch (Throwable again) {
                Failures.report("agent.recording.memory", again);
                memory = null;
                System.err.println("memscope agent: cannot write " + file + ": " + openFailure
                        + "; nothing is recorded");
                return null;
            }
        }
    }

    /** Creates the recording's file (new, private, in its folder) and writes its header. */
    private RecordingWriter fileWriter() throws java.io.IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (!java.nio.file.Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            // not made when the capture started (the output folder was missing or not trusted then)
            PrivateFiles.createFolder(OutputFolders.outputFolder(dir.getParent()).resolve(dir.getFileName()));
        }
        PrivateFiles.checkPrivate(dir);
        PrivateFiles.createFile(file); // new, mode 0600: never a file or link that was there before
        io.memscope.internal.recording.RecordingWriterBuilder b = RecordingWriter.builder(file)
                .strings(sink.store().strings()).process(ProcessInfo.pid(), ProcessInfo.startEpochMillis())
                .clock(startEpochMs * 1_000_000L, startNanos);
        if (chunkPolicy != null) {
            b.chunks(chunkPolicy); // chunks 2, 3 ... are created by the writer next to this file, mode 0600 too
        }
        return b.open();
    }

    private RecordingStream stream(RecordingWriter w) {
        w.metadata(MetadataKeys.MODE, exact ? "exact" : "sample");
        w.metadata(MetadataKeys.INTERVAL_BYTES, Long.toString(intervalBytes));
        w.metadata(MetadataKeys.START_NANOS, Long.toString(startNanos));
        w.metadata(MetadataKeys.START_EPOCH_MS, Long.toString(startEpochMs));
        for (Map.Entry<String, String> m : startMetadata.entrySet()) {
            w.metadata(m.getKey(), m.getValue());
        }
        try {
            w.flush();
        } catch (RuntimeException e) {
            writeFailed(w);
        }
        RecordingStream rs = new RecordingStream(sink.store(), w, stacks);
        rs.push(push);
        rs.jvmSampler(jvmSampler);
        rs.api(api);
        rs.functions(functions);
        return rs;
    }

    /** @return a new file of {@value #RESERVE_BYTES} bytes in {@code dir}, or null when there is no room for it */
    private static Path reserve(Path dir) {
        Path r = dir.resolve(RESERVE_NAME);
        try {
            PrivateFiles.createFile(r);
            try (java.io.FileOutputStream out = new java.io.FileOutputStream(r.toFile())) {
                out.write(new byte[RESERVE_BYTES]); // written, not sparse: the blocks are really taken
            }
            return r;
        } catch (Throwable t) {
            try {
                java.nio.file.Files.deleteIfExists(r);
            } catch (Throwable ignored) {
                // nothing reserved
            }
            return null;
        }
    }

    private void releaseReserve() {
        Path r = reserve;
        reserve = null;
        if (r != null) {
            try {
                java.nio.file.Files.deleteIfExists(r);
            } catch (Throwable t) {
                Failures.report("agent.recording.reserve", t);
            }
        }
    }

    /**
     * The most a recording held in memory may take (its file could not be opened): 1/32 of the heap's maximum,
     * at least 256 KiB, at most 64 MiB.
     */
    static long memoryLimit() {
        return Math.max(256 * 1024, Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 32));
    }

    /** The first write failure of {@code w}: said at once, with what is kept and what is dropped. Once. */
    private void writeFailed(RecordingWriter w) {
        if (writeFailure != null) {
            return;
        }
        java.io.IOException e = w.failure();
        String why = e == null ? "unknown error" : reason(e);
        writeFailureNanos = System.nanoTime();
        writeFailure = why;
        MemoryOutput m = memory;
        if (m != null && m.full()) {
            System.err.println("memscope agent: the recording held in memory reached " + mib(m.limit())
                    + " (" + file + " could not be opened: " + openFailure + "); events from now on are dropped "
                    + "and counted");
        } else {
            System.err.println("memscope agent: cannot write " + file + ": " + why + "; the recording keeps the "
                    + w.eventsInFile() + " events written (" + mib(w.bytesWritten()) + "), events from now on are "
                    + "dropped and counted");
        }
    }

    /** @return the failure's own words: "No space left on device", "Read-only file system", "... is not a folder" */
    static String reason(Throwable t) {
        return FileErrors.reason(t);
    }

    private static String mib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    /** @return why the recording stopped (said on stderr), or null while it is written */
    String writeFailure() {
        return writeFailure;
    }

    /** @return whether the recording is being written (into its file, or into memory while the file cannot be) */
    boolean streaming() {
        return stream != null;
    }

    /**
     * Events recorded on behalf of another thread (the JVM sampler's drain thread), in order: straight into the file
     * when it is open (the store's string table is the writer's), else into the store. Never throws: an event that
     * fails is counted ({@link #failedEvents}) and the next one is tried.
     */
    void events(EventColumns batch) {
        RecordingStream rs = stream;
        if (rs == null) {
            synchronized (openLock) { // into the store only while the file is not open (see open)
                rs = stream;
                if (rs == null) {
                    toStore(batch);
                    return;
                }
            }
        }
        long failed = rs.acceptAll(batch, "agent.sample.record");
        if (failed > 0) {
            failedEvents.addAndGet(failed);
        }
    }

    /** A batch recorded before the file opened: into the store, drained into the file when it opens. */
    private void toStore(EventColumns batch) {
        for (int i = 0; i < batch.size; i++) {
            try {
                EventStore store = sink.store();
                StringTable strings = store.strings();
                store.record(new MemoryEvent(batch.timestamp[i], batch.typeOf(i), batch.address[i],
                        batch.eventSize[i], batch.previousSize[i], batch.threadId[i],
                        strings.get(batch.threadNameId[i]), strings.get(batch.variableNameId[i]),
                        strings.get(batch.typeNameId[i]), batch.stackId[i], batch.siteId[i]));
            } catch (Throwable t) {
                failedEvents.incrementAndGet();
                Failures.report("agent.sample.record", t);
            }
        }
    }

    /** @return events {@link #event} failed to record */
    long failedEvents() {
        return failedEvents.get();
    }

    /** Writes a snapshot of exact mode's counts, to go out with the next {@link #flush} (background thread). */
    void siteCounts(ExactCounts counts, long nanos) {
        RecordingStream rs = stream;
        if (rs == null) {
            return;
        }
        try {
            counts.snapshotTo(rs, nanos);
        } catch (Throwable t) {
            Failures.report("agent.recording.counts", t);
        }
    }

    /**
     * Drains the store into the file and flushes (background thread).
     *
     * @param debug print one line about it on stderr
     */
    void flush(List<GcRecord> gcs, boolean debug) {
        RecordingStream rs = stream;
        if (rs == null) {
            return;
        }
        try {
            long n = rs.drain(gcs);
            if (debug) {
                System.err.println("memscope agent: flushed " + n + " events; store holds " + sink.size()
                        + " events in " + sink.store().retainedBytes() + " bytes; recording has "
                        + rs.drained() + " events");
            }
        } catch (Throwable t) {
            if (rs.writer().failure() != null) {
                writeFailed(rs.writer()); // said once; the writer counts what it drops from now on
            } else {
                Failures.report("agent.recording.flush", t);
            }
        }
    }

    /** Notes metadata now (written with the next flush): what the capture learned while it runs. */
    void metadata(Map<String, String> values) {
        RecordingStream rs = stream;
        if (rs == null) {
            return;
        }
        try {
            for (Map.Entry<String, String> m : values.entrySet()) {
                rs.writer().metadata(m.getKey(), m.getValue());
            }
        } catch (Throwable t) {
            Failures.report("agent.recording.metadata", t);
        }
    }

    /**
     * Writes a walk of the heap from the GC roots into the file at once (a RETENTION block); with {@code flush}, the
     * blocks still pending (the sites and events of the samples it names) follow at once, so that a reader of the
     * file finds them now. Opens the file first when that never succeeded. Never throws.
     */
    void retention(io.memscope.recording.RetentionWalk walk, boolean flush) {
        open();
        RecordingStream rs = stream;
        if (rs == null) {
            return;
        }
        try {
            rs.writer().retention(walk);
            if (flush) {
                rs.writer().flush();
            }
        } catch (Throwable t) {
            Failures.report("agent.recording.retention", t);
        }
    }

    /** Writes samples of the process's memory (a PROCESS_MEMORY block). Never throws. */
    void processMemory(io.memscope.recording.Recording.ProcessMemorySamples samples) {
        RecordingStream rs = stream;
        if (rs == null) {
            return;
        }
        try {
            rs.writer().processMemory(samples);
        } catch (Throwable t) {
            Failures.report("agent.recording.processMemory", t);
        }
    }

    /** @return events written into the file so far */
    long events() {
        RecordingStream rs = stream;
        return rs == null ? 0 : rs.drained();
    }

    /** @return the file */
    Path file() {
        return file;
    }

    /**
     * Moves the last events into the file, appends what is only known at the end (end time, exact counts, native
     * anomalies, failures, final metadata) and closes it; opens it first when that never succeeded.
     *
     * @param counts exact mode's counts, or null
     * @return the closed recording, or null if it could not be written
     */
    Path finish(Map<String, String> metadata, long endNanos, List<GcRecord> gcs, ExactCounts counts,
                NativeTracker nativeTracker) {
        open(); // a capture that ended before the background thread opened it
        RecordingStream rs = stream;
        stream = null;
        if (rs == null) {
            return null;
        }
        try {
            if (memory != null && !moveToFile(rs)) {
                return null;
            }
            try {
                rs.drain(gcs);
            } catch (Throwable t) {
                if (rs.writer().failure() == null) {
                    Failures.report("agent.recording.flush", t);
                }
            }
            RecordingWriter w = rs.writer();
            if (w.failure() == null) {
                try {
                    w.metadata(MetadataKeys.END_NANOS, Long.toString(endNanos));
                    for (Map.Entry<String, String> m : metadata.entrySet()) {
                        w.metadata(m.getKey(), m.getValue());
                    }
                    if (counts != null) {
                        counts.writeTo(rs, endNanos);
                    }
                    if (nativeTracker != null) {
                        for (Anomaly a : nativeTracker.anomalies()) {
                            rs.stack(a.stackId());
                            w.anomaly(a.kind(), a.timestampNanos(), a.address(), a.size(), a.threadId(),
                                    a.stackId(), a.detail());
                        }
                        w.metadata("nativeAnomalies", Long.toString(nativeTracker.anomalyCount()));
                        w.metadata("nativeUnknownFreesByJdk", Long.toString(nativeTracker.jdkUnknownFrees()));
                    }
                    w.metadata(MetadataKeys.FAILURES, Long.toString(Failures.total()));
                    List<String> messages = Failures.messages();
                    for (int i = 0; i < messages.size(); i++) {
                        w.metadata(MetadataKeys.FAILURE_PREFIX + i, messages.get(i));
                    }
                    w.close();
                    return w.chunkIndex() > 1 ? w.chunkFile() : file;
                } catch (Throwable t) {
                    if (w.failure() == null) {
                        Failures.report("agent.recording", t);
                        System.err.println("memscope agent: could not finish the recording " + file + ": " + t);
                        try {
                            w.close(false);
                        } catch (Throwable ignored) {
                            // already reported
                        }
                        return null;
                    }
                }
            }
            // A write failed (now or earlier): end the file at its last whole block, saying why and when.
            writeFailed(w);
            releaseReserve(); // room for the end on a full disk
            Map<String, String> end = new java.util.LinkedHashMap<>();
            end.put(MetadataKeys.RECORDING_FAILURE, writeFailure);
            end.put(MetadataKeys.RECORDING_FAILURE_NANOS, Long.toString(writeFailureNanos));
            end.put(MetadataKeys.END_NANOS, Long.toString(endNanos));
            end.putAll(metadata);
            end.put(MetadataKeys.FAILURES, Long.toString(Failures.total()));
            if (w.salvage(end)) {
                System.err.println("memscope agent: recording " + file + " ended at its last whole block ("
                        + w.eventsWritten() + " events kept, " + w.eventsDropped() + " dropped: " + writeFailure
                        + ")");
                return file;
            }
            System.err.println("memscope agent: recording " + file + " could not be ended (" + reason(
                    w.failure()) + "); its " + w.eventsWritten() + " events up to its last whole block are readable");
            return null;
        } finally {
            releaseReserve();
        }
    }

    /**
     * The recording was held in memory: opens its file now and puts what memory holds there. Says on stderr what
     * is lost when it still cannot be opened.
     */
    private boolean moveToFile(RecordingStream rs) {
        MemoryOutput m = memory;
        RecordingWriter w = rs.writer();
        try {
            Path dir = file.toAbsolutePath().getParent();
            if (!java.nio.file.Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                PrivateFiles.createFolder(OutputFolders.outputFolder(dir.getParent()).resolve(dir.getFileName()));
            }
            PrivateFiles.checkPrivate(dir);
            PrivateFiles.createFile(file);
            java.io.FileOutputStream out = new java.io.FileOutputStream(file.toFile());
            try {
                m.writeTo(out, w.bytesWritten());
            } catch (Throwable t) {
                out.close();
                java.nio.file.Files.deleteIfExists(file);
                throw t;
            }
            w.moveTo(out);
            memory = null;
            reserve = reserve(dir);
            return true;
        } catch (Throwable t) {
            System.err.println("memscope agent: cannot write " + file + ": " + reason(t) + "; the recording held "
                    + "in memory (" + w.eventsWritten() + " events, " + mib(m.size()) + ", " + w.eventsDropped()
                    + " more dropped beyond its limit) is lost");
            try {
                w.close(false);
            } catch (Throwable ignored) {
                // in memory: nothing to close
            }
            return false;
        }
    }
}
