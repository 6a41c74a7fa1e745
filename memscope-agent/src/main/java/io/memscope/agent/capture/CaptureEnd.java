package io.memscope.agent.capture;

import io.memscope.launch.MetadataKeys;
import io.memscope.recording.GcRecord;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The end of a {@link CaptureSession}, in order: heap sampling off; the end check ({@link EndCheck#GC}: a whole-heap
 * collection and the Cleaners it made due); the API's trackers and the background thread stopped; the retention
 * paths of what is still tracked; the JVM sampler closed (its last samples and their collections) or the bytecode
 * samples' references settled; the hooks off; the GC records' last notifications; then the recording finished with
 * what is only known at the end, and what the ended capture no longer needs let go. Made with its session (nothing
 * is allocated for it at the end, which may come when the JVM is out of memory); runs under the session's lock.
 */
final class CaptureEnd {
    private final CaptureSession session;

    CaptureEnd(CaptureSession session) {
        this.session = session;
    }

    /** See {@link CaptureSession#finish}; called under the session's lock. */
    Path finish(Map<String, String> metadata, boolean collect) {
        if (session.markFinished()) {
            return null;
        }
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true;
        }
        OutOfMemoryWatch oom = session.outOfMemory;
        if (oom != null) {
            oom.release(); // the room kept for this end
            // collections from now on (the end check's) no longer hold the reserves: the report's figures say so
            session.endMetadata.put(MetadataKeys.AGENT_RESERVES_RELEASED_NANOS, Long.toString(System.nanoTime()));
            session.endMetadata.put(MetadataKeys.AGENT_RESERVE_BYTES, Long.toString(oom.reserveBytes));
        }
        CollectionLog ending = session.collections;
        if (ending != null) {
            ending.captureEnding();
        }
        try {
            Hooks.heapSampling = false;
            Hooks.heapEnabled = false;
            JvmtiHeapSampler sampler = session.jvmti;
            if (sampler != null) {
                sampler.pause();
            }
            if (!session.running) {
                if (sampler != null) {
                    sampler.close();
                }
                Hooks.deactivate(session);
                return null;
            }
            GcListener gcs = session.gcListener;
            CollectionLog log = session.collections;
            long endNanos;
            try {
                endNanos = settle(sampler, gcs, log, collect);
            } catch (Throwable t) {
                // out of memory, most likely: the capture stops and the recording is closed with what it has
                endNanos = System.nanoTime();
                session.survive(t);
                session.running = false;
                try {
                    if (sampler != null) {
                        sampler.close();
                    }
                } catch (Throwable again) {
                    session.survive(again);
                }
                Hooks.deactivate(session);
            }
            MallocSampler ms = session.mallocSampler;
            if (ms != null) { // the hooks pass through from now on; what they queued is recorded
                try {
                    ms.close();
                    ms.metadata(session.endMetadata);
                } catch (Throwable t) {
                    session.survive(t);
                }
            }
            ProcessMemorySampler pm = session.processMemory;
            if (pm == null && session.processMemoryMillis > 0) {
                session.endMetadata.put("processMemory.off", "the capture ended before its first sample, "
                        + session.processMemoryMillis + " ms after its start");
            }
            if (pm != null) { // the background thread stopped: its last samples, its figures
                try {
                    pm.writeTo(session.recording);
                    pm.metadata(session.endMetadata);
                    pm.close();
                } catch (Throwable t) {
                    session.survive(t);
                }
            }
            List<GcRecord> lastRecords = session.gcRecords(true);
            Map<String, String> meta;
            try {
                if (log != null) {
                    log.metadata(session.endMetadata);
                }
                meta = new LinkedHashMap<>(metadata);
                meta.putAll(session.endMetadata);
                Map<String, Long> bounds = session.boundsFigures();
                meta.putAll(TableBounds.metadata(bounds));
                meta.put(MetadataKeys.AGENT_HEAP_BYTES, Long.toString(AgentHeap.estimate(session, bounds)));
                if (oom != null) {
                    if (sampler != null) { // its counters as read when it closed
                        oom.jvmti(sampler.counter(SamplerCounter.EXHAUSTED_COUNT),
                                sampler.counter(SamplerCounter.EXHAUSTED_FIRST_NANOS),
                                sampler.counter(SamplerCounter.EXHAUSTED_LAST_NANOS),
                                sampler.counter(SamplerCounter.EXHAUSTED_FLAGS));
                    }
                    Map<String, String> changes = oom.everything();
                    if (changes != null) {
                        meta.putAll(changes);
                    }
                }
            } catch (Throwable t) {
                meta = metadata;
            }
            return session.recording.finish(meta, endNanos, lastRecords, session.counts,
                    session.settings.nativeMemory() ? session.nativeTracker : null);
        } finally {
            release();
            if (self != null) {
                self.busy = false;
            }
        }
    }

    /**
     * The capture's end before the recording's: the final GC (with {@code collect}), the API's trackers, the
     * background thread stopped, the last samples and their collections, the hooks off.
     *
     * @return the capture's end time
     */
    private long settle(JvmtiHeapSampler sampler, GcListener gcs, CollectionLog log, boolean collect) {
        if (collect) {
            collect = reachabilityCheck(sampler, gcs);
        } else {
            session.endMetadata.put("endCheck", "off");
        }
        // What the API's trackers found by that GC (leases lost while borrowed, named objects collected).
        Map<String, String> ending = new LinkedHashMap<>();
        if (collect) {
            ReferenceProcessing.awaitAll(session.inst);
            session.endMetadata.put("referenceProcessing", ReferenceProcessing.mode());
        }
        ApiHooks.captureEnding(ending);
        FunctionHooks.profile(null);
        session.endMetadata.putAll(ending);
        session.running = false;
        if (sampler != null) {
            sampler.wake();
        }
        Thread t = session.background;
        if (t != null) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ProcessMemorySampler pm = session.processMemory;
        if (pm != null && (t == null || !t.isAlive())) {
            pm.end(session.recording); // a fresh resident pass (bounded) and a last sample, within the capture's time
        }
        if (log != null && !log.listening()) {
            log.stop(); // no JMX at the end: the collections it did not see keep no details
        }
        long[] call = endCheckCall;
        if (log != null && call != null && sampler != null) {
            sampler.collectionsSoFar(); // the end check's pauses, known to the log before it is told about them
            log.endCheck(call[0], call[1], call[2], call[3], call[4]);
        }
        if (sampler != null && session.pathsAtEnd) {
            // why what is still tracked is held: one walk of the heap, within its budget
            io.memscope.recording.RetentionWalk w = sampler.walkHeap(session.pathsBudget, "end");
            if (w != null) {
                session.recording.retention(w, false);
            }
        }
        if (sampler != null) {
            sampler.close(); // the last samples, and which were collected by the GC above
            samplerMetadata(sampler);
        } else {
            // the bytecode hooks' samples (Java weak references)
            try {
                session.liveness.drain(session.sink, 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            session.liveness.sweep(session.sink);
        }
        session.liveSites.release();
        long endNanos = System.nanoTime();
        Hooks.deactivate(session);
        if (gcs != null) {
            gcs.stop();
        }
        if (log != null) {
            if (collect) {
                log.awaitDetails(CaptureSession.FINAL_GC_WAIT_MILLIS);
            }
            log.stop();
            session.endMetadata.put("gcNotificationsUnmatched", Long.toString(log.unmatched()));
        }
        if (session.jvmAllocated != null) {
            session.jvmAllocated.end(session.endMetadata);
        }
        return endNanos;
    }

    /**
     * What the ended capture no longer needs goes now, also where a static still reaches a part of it: the stack
     * table (its stacks are in the recording), and the scope edges' pool, logs, string table and way to wake the JVM
     * sampler's drain (a thread's scope-edge log, in its {@link ThreadState}, reaches them until that thread's next
     * scope in a later capture).
     */
    private void release() {
        session.stacks.release();
        ApiCapture a = session.api;
        if (a != null) {
            a.release();
        }
    }

    private void samplerMetadata(JvmtiHeapSampler s) {
        session.endMetadata.put("jvmti.samples", Long.toString(s.counter(SamplerCounter.OFFERED)));
        session.endMetadata.put("jvmti.samplesKept", Long.toString(s.kept()));
        session.endMetadata.put("jvmti.jvmIntervalBytes", Long.toString(s.jvmInterval()));
        session.endMetadata.put("jvmti.samplesThinned", Long.toString(s.counter(SamplerCounter.THINNED)));
        session.endMetadata.put("jvmti.distances", s.distancesState());
        session.endMetadata.put("jvmti.distancesDrawn", Long.toString(s.counter(SamplerCounter.DISTANCES_DRAWN)));
        session.endMetadata.put("jvmti.droppedQueueFull", Long.toString(s.counter(SamplerCounter.DROPPED_FULL)));
        if (s.counter(SamplerCounter.QUEUE_BROKEN) != 0) {
            session.endMetadata.put("jvmti.queueBroken", "true");
        }
        session.endMetadata.put("jvmti.skippedExceptionPending", Long.toString(s.counter(SamplerCounter.SKIPPED_EXCEPTION)));
        session.endMetadata.put("jvmti.skippedError", Long.toString(s.counter(SamplerCounter.SKIPPED_ERROR)));
        session.endMetadata.put("jvmti.unknownClass", Long.toString(s.counter(SamplerCounter.CLASS_UNKNOWN)));
        session.endMetadata.put("jvmti.ownAllocations", Long.toString(s.own()));
        session.endMetadata.put("jvmti.drainThreadAllocations", Long.toString(s.counter(SamplerCounter.OWN_THREAD)));
        session.endMetadata.put("jvmti.filtered", Long.toString(s.filtered()));
        session.endMetadata.put("jvmti.classMirrors", Long.toString(s.classMirrors()));
        session.endMetadata.put("jvmti.jmxConnector", Long.toString(s.jmxConnector()));
        session.endMetadata.put("jvmti.unresolvedStacks", Long.toString(s.unresolved()));
        session.endMetadata.put("liveness.untracked", Long.toString(s.untracked()));
        session.endMetadata.put("liveness.collected", Long.toString(s.collected()));
        session.endMetadata.put("liveness.ambiguousCollections", Long.toString(s.ambiguous()));
        session.endMetadata.put("liveness.plainHandleReads", Long.toString(s.counter(SamplerCounter.PLAIN_READS)));
        session.endMetadata.put("liveness.handleDisagreements", Long.toString(s.counter(SamplerCounter.DISAGREEMENTS)));
        session.endMetadata.put("liveness.checkedAtCollectionStart",
                Long.toString(s.counter(SamplerCounter.MARKED_AT_GC_START)));
        session.endMetadata.put("collections", Long.toString(s.counter(SamplerCounter.GC_FINISHED)));
        session.endMetadata.put("jvmti.stackWalk", s.stackWalkState());
        session.endMetadata.put("jvmti.stacksReused", Long.toString(s.counter(SamplerCounter.STACKS_FROM_TABLE)));
        session.endMetadata.put("jvmti.stacksWalkedNew", Long.toString(s.counter(SamplerCounter.STACKS_NEW_KEYS)));
        session.endMetadata.put("jvmti.stacksUnwalkable", Long.toString(s.counter(SamplerCounter.STACKS_UNNAMED)));
        session.endMetadata.put("jvmti.stacksChecked", Long.toString(s.counter(SamplerCounter.STACKS_CHECKED)));
        session.endMetadata.put("jvmti.stacksMismatched", Long.toString(s.counter(SamplerCounter.STACKS_MISMATCHED)));
        session.endMetadata.put("jvmti.stackKeys", Long.toString(s.counter(SamplerCounter.STACK_KEYS)));
    }

    /**
     * The end check ({@link EndCheck#GC}): a whole-heap collection, unless more heap than {@code endCheckMaxHeap} is
     * in use; waits for the Cleaners it made due and (bytecode sampler) for its notification. Its outcome and cost go
     * into the recording's metadata ({@code endCheck}, {@code endCheckMillis}, {@code endCheckHeapBytes}).
     *
     * @return whether a collection ran
     */
    private boolean reachabilityCheck(JvmtiHeapSampler sampler, GcListener gcs) {
        Runtime rt = Runtime.getRuntime();
        long used = rt.totalMemory() - rt.freeMemory();
        session.endMetadata.put("endCheckHeapBytes", Long.toString(used));
        if (used > session.endCheckMaxHeap) {
            session.endMetadata.put("endCheck", "skipped: " + used + " bytes of heap in use, above endCheckMaxHeap ("
                    + session.endCheckMaxHeap + ")");
            return false;
        }
        long gcsBefore = gcs == null ? 0 : gcs.count();
        long pausesBefore = sampler == null ? -1 : sampler.finishedCollections();
        long t0 = System.nanoTime();
        System.gc();
        CollectionLog log = session.collections;
        if (log != null && sampler != null) {
            // a concurrent collector may have satisfied it with a cycle already running, which did not judge what was
            // allocated after that cycle began: then once more
            sampler.collectionsSoFar();
            log.cut();
            if (!log.wholeHeapCycleSince(t0)) {
                System.gc();
            }
        }
        long t1 = System.nanoTime();
        long after = rt.totalMemory() - rt.freeMemory();
        endCheckCall = new long[] {t0, t1, used, after, rt.totalMemory()};
        settleNative();
        boolean recorded = true;
        if (gcs != null) {
            // The final collection's record goes into the recording: held memory at the end is measured at it.
            recorded = gcs.awaitExplicitCollection(gcsBefore, CaptureSession.FINAL_GC_WAIT_MILLIS);
        }
        boolean ran = sampler == null ? recorded : sampler.finishedCollections() != pausesBefore;
        if (!ran) {
            endCheckCall = null;
        } else if (gcs != null) {
            gcs.endCheck(t0, t1);
        }
        session.endMetadata.put("endCheck",
                ran ? "gc" : "not done: System.gc() collected nothing (-XX:+DisableExplicitGC?)");
        session.endMetadata.put("endCheckMillis", tenths(Math.round((t1 - t0) / 1e5)));
        return ran;
    }

    /** The end check's System.gc() call: start, end, heap used before and after, committed; null when none ran. */
    private long[] endCheckCall;

    /** Waits for the Cleaners of direct buffers the final GC found unreachable. */
    private void settleNative() {
        if (!session.settings.nativeMemory()) {
            return;
        }
        if (ReferenceProcessing.awaitAll(session.inst)) {
            return;
        }
        long previous = session.nativeTracker.outstandingBytes();
        int stable = 0;
        for (int i = 0; i < 20 && stable < 2; i++) {
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = session.nativeTracker.outstandingBytes();
            stable = now == previous ? stable + 1 : 0;
            previous = now;
        }
    }

    /**
     * @return {@code tenths} / 10 with one decimal, as {@code %.1f} writes it, without {@code java.util.Formatter}
     *         (whose first use at a JVM's exit loaded its locale machinery: 8 ms of a short program's exit)
     */
    static String tenths(long tenths) {
        long t = Math.abs(tenths);
        return (tenths < 0 ? "-" : "") + t / 10 + "." + t % 10;
    }
}
