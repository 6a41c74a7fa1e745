package io.memscope.agent.capture;

import io.memscope.MemoryEvent;
import io.memscope.internal.error.Failures;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import io.memscope.recording.MetadataKeys;
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
 * <p>If the file cannot be opened, events stay in the store and opening is tried once more at the end.
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
    private final Object openLock = new Object();
    private boolean opened;
    private volatile RecordingStream stream;
    /** What the application reports through memscope's API, and the function profile (or null): set before open. */
    private ApiCapture api;
    private FunctionProfile functions;
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

    /** Sets the API capture and function profile whose blocks the stream writes; before {@link #open}. */
    void extensions(ApiCapture api, FunctionProfile functions) {
        this.api = api;
        this.functions = functions;
    }

    /** Opens the file (once; the background thread, or the end of a capture shorter than its start). */
    void open() {
        synchronized (openLock) {
            if (!opened) {
                opened = true;
                stream = openStream();
            }
        }
    }

    private RecordingStream openStream() {
        if (file == null) {
            return null;
        }
        try {
            java.nio.file.Files.createDirectories(file.toAbsolutePath().getParent());
            RecordingWriter w = RecordingWriter.builder(file).strings(sink.store().strings())
                    .process(ProcessInfo.pid(), ProcessInfo.startEpochMillis())
                    .clock(startEpochMs * 1_000_000L, startNanos).open();
            w.metadata(MetadataKeys.MODE, exact ? "exact" : "sample");
            w.metadata(MetadataKeys.INTERVAL_BYTES, Long.toString(intervalBytes));
            w.metadata(MetadataKeys.START_NANOS, Long.toString(startNanos));
            w.metadata(MetadataKeys.START_EPOCH_MS, Long.toString(startEpochMs));
            for (Map.Entry<String, String> m : startMetadata.entrySet()) {
                w.metadata(m.getKey(), m.getValue());
            }
            w.flush();
            RecordingStream rs = new RecordingStream(sink.store(), w, stacks);
            rs.api(api);
            rs.functions(functions);
            return rs;
        } catch (Throwable t) {
            Failures.report("agent.recording.open", t);
            System.err.println("memscope agent: cannot stream into " + file + " (" + t
                    + "); events stay in memory until the end");
            return null;
        }
    }

    /** @return whether the file is open */
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
        if (rs != null) {
            long failed = rs.acceptAll(batch, "agent.sample.record");
            if (failed > 0) {
                failedEvents.addAndGet(failed);
            }
            return;
        }
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
            Failures.report("agent.recording.flush", t);
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
            rs = openStream();
        }
        if (rs == null) {
            return null;
        }
        try {
            rs.drain(gcs);
        } catch (Throwable t) {
            Failures.report("agent.recording.flush", t);
        }
        try {
            RecordingWriter w = rs.writer();
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
                    w.anomaly(a.kind(), a.timestampNanos(), a.address(), a.size(), a.threadId(), a.stackId(),
                            a.detail());
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
            return file;
        } catch (Throwable t) {
            Failures.report("agent.recording", t);
            System.err.println("memscope agent: could not finish the recording " + file + ": " + t);
            try {
                rs.writer().close(false);
            } catch (Throwable ignored) {
                // already reported
            }
            return null;
        }
    }
}
