package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import io.memscope.recording.GcRecord;
import io.memscope.internal.error.Failures;
import io.memscope.internal.recording.EventColumns;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;
import io.memscope.internal.store.EventStore;
import java.util.BitSet;
import java.util.List;

/**
 * Moves the capture's events out of the {@link EventStore} into the recording file while the program runs, so
 * that the store holds at most one drain period of events and a JVM that dies abruptly leaves a recording with
 * everything up to its last complete block.
 *
 * <p>Each {@link #drain()} hands the store's events to the {@link RecordingWriter} (which shares the store's string
 * table, so string ids pass through unchanged), writes the definition of every site and stack the first time an
 * event refers to it (before the event's block), appends GC records seen since the last drain, and flushes: every
 * drained event is then in a complete block in the file (the OS page cache; not forced to the device).
 *
 * <p>One drainer at a time ({@code synchronized}): the background thread, then the end of the capture.
 */
final class RecordingStream implements EventSink {
    private final EventStore store;
    private final RecordingWriter writer;
    /** The capture's stacks: the frames of the stacks its events refer to. */
    private final StackTable stacks;
    private final BitSet sitesWritten = new BitSet();
    /** Stacks whose frames are in the file (no boxing: this is looked up for every event). */
    private final LongMap<Boolean> stacksWritten = new LongMap<>(1024);
    /**
     * Stacks the current chunk's events use whose text the capture did not hold when first used (dropped after it
     * was written into an earlier chunk): defined as soon as a later sample brings their frames again (the JVM
     * sampler sends them again in every chunk, {@link JvmtiHeapSampler#forgetSentStacks}); counted as lost
     * ({@link StackFrames#lost}) while they are not.
     */
    private final java.util.HashMap<Long, Boolean> stacksPending = new java.util.HashMap<>();
    /** The JVM sampler, told when a chunk begins (null without one). */
    private volatile JvmtiHeapSampler jvmSampler;
    /** A stack became pending during this drain: the JVM sampler is asked for frames again at its end. */
    private boolean pendingSinceDrain;
    private long drained;
    /** What the application reported through memscope's API (scopes, pools...), drained with the events. */
    private volatile ApiCapture api;
    /** The function profile, written with the events (null without one). */
    private volatile FunctionProfile functions;
    /** The push's table of the interval's allocations, fed with every ALLOCATE event (null without a push). */
    private volatile PushTable push;

    RecordingStream(EventStore store, RecordingWriter writer, StackTable stacks) {
        this.store = store;
        this.stacks = stacks;
        this.writer = writer;
        if (writer.chunked()) {
            // every writer.accept is under this stream's lock (accept, acceptAll, drain): a chunk may begin inside one
            writer.chunkDefinitions(this::defineCarried);
        }
    }

    RecordingWriter writer() {
        return writer;
    }

    /** Writes the function profile {@code f} (may be null) into the recording too, from now on. */
    void functions(FunctionProfile f) {
        functions = f;
    }

    /** Counts every ALLOCATE event into {@code t} too, from now on (the push: {@link ProfilePusher}). */
    void push(PushTable t) {
        push = t;
    }

    /** An ALLOCATE event for the push's table (native blocks are told apart there). */
    private void pushed(long nanos, long threadId, long size, long stackId, int siteId, int threadNameId,
                        int typeNameId) {
        PushTable t = push;
        if (t != null) {
            t.allocated(nanos, threadId, size, stackId, siteId, threadNameId,
                    siteId > 0 ? null : store.strings().get(typeNameId));
        }
    }

    /** Tells {@code s} (may be null) when a new chunk begins, so that its samples bring their stacks' frames again. */
    void jvmSampler(JvmtiHeapSampler s) {
        jvmSampler = s;
    }

    /** Drains {@code a} into the recording too, from now on. */
    void api(ApiCapture a) {
        api = a;
    }

    /**
     * Moves what the store holds into the file, and nothing else (no flush): when the file opens, what was recorded
     * before goes ahead of every batch written directly ({@link CaptureRecording#open}).
     *
     * @return events moved
     */
    synchronized long drainStore() {
        return store.drainTo(this);
    }

    /**
     * Drains the store into the file and flushes.
     *
     * @param gcs GC records to append (each given once)
     * @return events moved by this call
     */
    synchronized long drain(List<GcRecord> gcs) {
        long n = store.drainTo(this);
        for (GcRecord g : gcs) {
            writer.gc(g);
        }
        ApiCapture a = api;
        if (a != null) {
            a.drainTo(this, writer);
        }
        FunctionProfile f = functions;
        if (f != null) {
            f.drainTo(writer);
        }
        writer.flush();
        if (writer.chunked()) {
            writer.rotateIfDue(this::defineCarried);
            JvmtiHeapSampler s = jvmSampler;
            if (pendingSinceDrain && s != null) {
                // a stack the sampler has sent in this chunk's time, but before the chunk: once more (per drain)
                s.forgetSentStacks();
            }
            pendingSinceDrain = false;
        }
        return n;
    }

    /**
     * A new chunk began ({@link RecordingWriter#rotateIfDue}, under this stream's lock: the drain): it has none of the
     * sites and stacks yet, so every one is written again on its next use; those its carried records use, now.
     */
    private void defineCarried(RecordingWriter w, List<Integer> siteIds, List<Long> stackIds,
                               List<Long> stacksDefined) {
        sitesWritten.clear();
        stacksWritten.clear();
        stacksPending.clear(); // never defined in the chunk that ended: they stay counted as lost
        JvmtiHeapSampler s = jvmSampler;
        if (s != null) {
            s.forgetSentStacks();
        }
        for (int id : siteIds) {
            writeSite(id);
        }
        for (long id : stacksDefined) {
            stacksWritten.put(id, Boolean.TRUE);
            if (stacks.bounded().contains(id)) {
                stacks.bounded().written(id);
            }
        }
        for (long id : stackIds) {
            writeStack(id);
        }
    }

    /** @return events written into the file so far: drained from the store, or given directly to {@link #accept} */
    synchronized long drained() {
        return drained;
    }

    /** Writes a site's definition unless already written. */
    synchronized void site(int siteId) {
        if (siteId > 0 && !sitesWritten.get(siteId)) {
            writeSite(siteId);
        }
    }

    /** Writes a stack's frames unless already written. */
    synchronized void stack(long stackId) {
        if (stackId != 0 && stacksWritten.get(stackId) == null) {
            writeStack(stackId);
        }
    }

    /** The first event of a site: its definition (called under the lock by {@link #site} and the event methods). */
    private void writeSite(int siteId) {
        SiteTable.Info i = SiteTable.get(siteId);
        if (i != null) {
            writer.site(i.id, i.className, i.method, i.file, i.line, i.type);
        }
        sitesWritten.set(siteId);
    }

    /**
     * The first event of a stack in this chunk: its frames (as {@link #writeSite}); when the capture does not hold
     * them, the stack is pending (see {@link #stacksPending}) and looked for again at its next event.
     */
    private void writeStack(long stackId) {
        StackFrames bounded = stacks.bounded();
        Boolean pending = stacksPending.get(stackId);
        if (pending != null && !bounded.contains(stackId)) {
            return; // still without its text (a lock-free look)
        }
        List<String> frames = stacks.frames(stackId);
        if (frames == null || frames.isEmpty()) {
            if (writer.stackAgain(stackId)) { // the writer kept its frames (the chunk before had it)
                stacksWritten.put(stackId, Boolean.TRUE);
                if (pending != null) {
                    stacksPending.remove(stackId);
                    bounded.found();
                }
                return;
            }
            if (pending == null) {
                stacksPending.put(stackId, Boolean.TRUE);
                bounded.missing(); // counted as lost until found
                pendingSinceDrain = true;
            }
            return;
        }
        writer.stack(stackId, frames);
        stacksWritten.put(stackId, Boolean.TRUE);
        if (pending != null) {
            stacksPending.remove(stackId);
            bounded.found();
        }
        bounded.written(stackId); // the text is in the file now: the agent may evict it
    }

    /**
     * Events of a batch, in order, under one lock (see {@link #accept}). Never throws: an event that fails (the
     * writer cannot define its site or stack) is reported under {@code failure} and the next one is tried.
     *
     * @return the events that failed
     */
    synchronized long acceptAll(EventColumns batch, String failure) {
        long failed = 0;
        for (int i = 0; i < batch.size; i++) {
            try {
                accept(batch, i); // a method per event: compiled early, as the JVM sampler's per-record methods
            } catch (Throwable t) {
                failed++;
                Failures.report(failure, t);
            }
        }
        return failed;
    }

    private void accept(EventColumns b, int i) {
        int siteId = b.siteId[i];
        long stackId = b.stackId[i];
        if (siteId > 0 && !sitesWritten.get(siteId)) {
            writeSite(siteId);
        }
        if (stackId != 0 && stacksWritten.get(stackId) == null) {
            writeStack(stackId);
        }
        MemoryEventType type = b.typeOf(i);
        writer.accept(b.timestamp[i], type, b.address[i], b.eventSize[i], b.previousSize[i], b.threadId[i],
                b.threadNameId[i], b.variableNameId[i], b.typeNameId[i], stackId, siteId);
        drained++;
        if (type == MemoryEventType.ALLOCATE && push != null) {
            pushed(b.timestamp[i], b.threadId[i], b.eventSize[i], stackId, siteId, b.threadNameId[i],
                    b.typeNameId[i]);
        }
    }

    /** One event: the definitions of its site and stack first (once each), then the event itself. One lock. */
    @Override
    public synchronized void accept(EventView e) {
        int siteId = e.siteId();
        long stackId = e.stackId();
        if (siteId > 0 && !sitesWritten.get(siteId)) {
            writeSite(siteId);
        }
        if (stackId != 0 && stacksWritten.get(stackId) == null) {
            writeStack(stackId);
        }
        writer.accept(e);
        drained++;
        if (e.type() == MemoryEventType.ALLOCATE && push != null) {
            pushed(e.timestampNanos(), e.threadId(), e.size(), stackId, siteId, e.threadNameId(), e.typeNameId());
        }
    }
}
