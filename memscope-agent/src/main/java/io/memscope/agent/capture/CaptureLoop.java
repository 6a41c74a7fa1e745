package io.memscope.agent.capture;

import java.util.Iterator;

/**
 * The background thread {@code memscope-reaper} of one {@link CaptureSession}, and its task: drains the JVM sampler's
 * queue and checks liveness after each collection (or drains the bytecode samples' reference queue and turns the GC
 * listener's collections into held figures), samples the process's memory, polls the API's named objects, folds the
 * counters of threads that ended, and every {@code flush} period, or whenever {@value CaptureSession#FLUSH_EVENTS}
 * events are waiting, drains the store into the recording (in exact mode, every
 * {@value CaptureSession#COUNTS_FLUSHES} flush periods, with a snapshot of the counts).
 *
 * <p>It lets go of its session when the loop ends: the ended thread's {@code Thread} object keeps its task (JDK 19
 * and later no longer clear it at exit) and stays reachable from the thread's {@link ThreadState} until a later
 * capture folds dead threads. The loop survives anything, an {@code OutOfMemoryError} included
 * ({@link CaptureSession#survive}).
 */
final class CaptureLoop implements Runnable {
    private volatile CaptureSession session;
    /** Collections already turned into held figures of bytecode samples ({@link #processGcs}). */
    private long gcsProcessed;

    CaptureLoop(CaptureSession session) {
        this.session = session;
    }

    @Override
    public void run() {
        CaptureSession s = session;
        try {
            // The loop survives anything, an OutOfMemoryError included (it would otherwise be the first thread
            // to die of it, and the recording would never be written again).
            while (s != null && s.running) {
                try {
                    loop(s);
                } catch (Throwable t) {
                    s.survive(t);
                }
            }
        } finally {
            session = null;
        }
    }

    private void loop(CaptureSession s) {
        ThreadState self = ThreadState.current();
        if (self != null) {
            self.busy = true;
        }
        JvmtiHeapSampler own = s.jvmti;
        if (own != null) {
            own.drainingThread(Thread.currentThread());
        }
        synchronized (s) { // the end's lock: an ended capture takes no reserves
            if (!s.finished && s.outOfMemory == null) {
                // here, not on the application's thread at the start: zeroing up to 8 MiB took 4 ms of its start
                s.outOfMemory = new OutOfMemoryWatch(OutOfMemoryWatch.jvmReserveBytes(),
                        OutOfMemoryWatch.endReserveBytes(), own != null);
                OutOfMemoryWatch.prepare();
            }
        }
        long lastFold = System.nanoTime();
        long lastFlush = lastFold;
        long lastCounts = lastFold;
        s.recording.open();
        ProcessMemorySampler pm = s.processMemory; // kept when this loop starts again after a failure (its thread)
        // The process sampler starts one interval in: its set-up (the JDK's management beans, the resident check's
        // thread) costs tens of ms of CPU, and a capture that ends sooner would wait for it at the JVM's exit.
        long pmStart = s.processMemoryMillis > 0 ? System.nanoTime() + s.processMemoryMillis * 1_000_000L : 0;
        // Never interrupted: an interrupt during a FileChannel write would close the recording.
        while (s.running) {
            try {
                JvmtiHeapSampler sampler = s.jvmti;
                OutOfMemoryWatch oom = s.outOfMemory;
                if (oom != null && oom.waitWhileOut(sampler)) {
                    continue;
                }
                if (pm == null && pmStart != 0 && System.nanoTime() - pmStart >= 0) {
                    pm = new ProcessMemorySampler(s.processMemoryMillis, s.rssDetailMillis, s.settings.flushMillis(),
                            s.settings.nativeMemory() ? s.nativeTracker::outstandingBytes : null)
                            .start(System.nanoTime(), s.inst);
                    s.processMemory = pm;
                }
                long beforeWait = System.nanoTime();
                long idle = pm != null ? pm.nanosToNext(beforeWait)
                        : pmStart != 0 ? pmStart - beforeWait : Long.MAX_VALUE;
                idle = Math.max(1_000_000L, Math.min(JvmtiHeapSampler.IDLE_NANOS, idle));
                if (sampler != null) {
                    sampler.await(idle);
                    sampler.drain();
                } else {
                    s.liveness.drain(s.sink, idle / 1_000_000L);
                    processGcs(s);
                }
                if (pm != null) {
                    pm.tick(System.nanoTime(), s.recording);
                }
                ApiCapture a = s.api;
                if (a != null) {
                    a.poll(); // named objects collected
                }
                s.rounds++; // the samples queued before this round are recorded (catchUp)
                long now = System.nanoTime();
                ApiHooks.periodic(now); // the application's accounting tables, now and then
                s.liveSites.tick(now);
                if (now - lastFold > 1_000_000_000L) {
                    foldDeadThreads(s);
                    lastFold = now;
                }
                if (oom != null && oom.outOfMemoryNow(sampler)) {
                    continue; // nothing that allocates: the room the JVM's reserve left is not memscope's
                }
                if (s.recording.streaming() && (now - lastFlush >= s.settings.flushMillis() * 1_000_000L
                        || s.sink.size() >= CaptureSession.FLUSH_EVENTS
                        || a != null && a.pending() >= CaptureSession.FLUSH_EVENTS)) {
                    if (s.counts != null
                            && now - lastCounts >= CaptureSession.COUNTS_FLUSHES * s.settings.flushMillis() * 1_000_000L) {
                        s.recording.siteCounts(s.counts, now); // a killed JVM keeps its exact counts as of now
                        lastCounts = now;
                    }
                    if (pm != null) {
                        pm.writeTo(s.recording);
                    }
                    s.recording.flush(s.gcRecords(false), s.settings.debug());
                    lastFlush = System.nanoTime();
                }
                if (oom != null) {
                    oom.noteIn(s.recording);
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                s.survive(t);
            }
        }
    }

    /**
     * Bytecode sampler: when the GC listener saw new collections, waits until the Reference Handler has enqueued the
     * references they cleared, settles those samples, then tells {@link LiveSites} which objects were reachable at
     * the latest GC (its held figures). The JVM sampler judges its samples at each collection itself.
     */
    private void processGcs(CaptureSession s) throws InterruptedException {
        GcListener g = s.gcListener;
        if (g == null || g.count() == gcsProcessed) {
            return;
        }
        long n = g.count();
        long start = g.lastStartNanos();
        // Once: the references the GCs seen so far cleared are then enqueued (looping until nothing is pending
        // would chase the next GCs' references in a program that collects all the time).
        if (ReferenceProcessing.waitOnce(s.inst) == null) {
            Thread.sleep(20); // no access to the JDK's wait: give the Reference Handler a moment instead
        }
        s.liveness.drain(s.sink, 0);
        s.liveSites.gcProcessed(start, g.takeVerdict());
        gcsProcessed = n;
    }

    private static void foldDeadThreads(CaptureSession s) {
        for (Iterator<ThreadState> it = ThreadState.ALL.iterator(); it.hasNext(); ) {
            ThreadState ts = it.next();
            if (!ts.thread.isAlive()) {
                if (s.counts != null) {
                    s.counts.fold(ts);
                }
                if (s.liveness != null) {
                    s.liveness.orphan(ts);
                }
                ThreadState.release(ts);
                it.remove();
            }
        }
    }
}
