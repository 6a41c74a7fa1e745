package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tracks sampled heap objects through weak references: when the GC collects one, its reference is enqueued and
 * {@link #drain} turns it into a DEALLOCATE event whose {@code previousSize} is the object's lifetime in
 * nanoseconds (allocation to the moment memscope saw the reference enqueued; precision: the drain period).
 *
 * <p>Each reference is kept strongly reachable by its allocating thread's {@link SampleList} (appended without a
 * lock or a hash on the sample path); the references of threads that ended move to one list owned by the background
 * thread. A reference is settled exactly once ({@link SampleRef#settle}), by the drain or by the end-of-capture
 * {@link #sweep}.
 */
final class Liveness {
    private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    private static final AtomicLong IDS = new AtomicLong();
    /** The current capture; references and lists of earlier ones are ignored. */
    private static volatile int generation;
    /** Unsettled references of threads that ended; guarded by {@link #ORPHAN_LOCK}. */
    private static SampleList orphans = new SampleList(0);
    private static final Object ORPHAN_LOCK = new Object();

    private Liveness() {
    }

    /** Starts tracking an object sampled on the current thread {@code ts}; @return its sample id (the "address" of its events) */
    static long track(ThreadState ts, Object o, int site, long size, double weight) {
        int g = generation;
        SampleList list = ts.samples;
        if (list == null || list.generation != g) {
            list = new SampleList(g);
            ts.samples = list;
        }
        long id = IDS.incrementAndGet();
        SampleRef r = new SampleRef(o, QUEUE, id, site, size, weight, g);
        list.add(r);
        LiveSites.sampled(r);
        return id;
    }

    /** Moves the unsettled references of a thread that ended into the background thread's list (background thread). */
    static void orphan(ThreadState ts) {
        SampleList list = ts.samples;
        ts.samples = null;
        if (list == null || list.generation != generation) {
            return;
        }
        synchronized (ORPHAN_LOCK) {
            SampleList o = orphans;
            if (o.generation == list.generation) {
                list.forEach(o::add);
            }
        }
    }

    /** Records a DEALLOCATE for every collected sample enqueued so far; waits up to {@code waitMillis} for the first. */
    static int drain(AllocationSink sink, long waitMillis) throws InterruptedException {
        int n = 0;
        Reference<?> r = waitMillis > 0 ? QUEUE.remove(waitMillis) : QUEUE.poll();
        int g = generation;
        while (r != null) {
            if (r instanceof SampleRef && ((SampleRef) r).generation == g && ((SampleRef) r).settle()) {
                collected(sink, (SampleRef) r);
                n++;
            }
            r = QUEUE.poll();
        }
        return n;
    }

    private static void collected(AllocationSink sink, SampleRef s) {
        LiveSites.collected(s);
        sink.record(MemoryEventType.DEALLOCATE, s.id, s.size, System.nanoTime() - s.allocatedNanos, s.site, 0, null);
    }

    /**
     * After a full GC: every sample whose referent is gone is collected, whether or not the reference handler has
     * enqueued it yet. Deterministic end-of-run liveness.
     */
    static int sweep(AllocationSink sink) {
        int g = generation;
        int[] n = {0};
        java.util.function.Consumer<SampleRef> settle = s -> {
            if (s.generation == g && s.refersTo(null) && s.settle()) {
                collected(sink, s);
                n[0]++;
            }
        };
        for (ThreadState ts : ThreadState.ALL) {
            SampleList list = ts.samples;
            if (list != null && list.generation == g) {
                list.forEach(settle);
            }
        }
        synchronized (ORPHAN_LOCK) {
            orphans.forEach(settle);
        }
        return n[0];
    }

    /** Forgets every tracked sample (detach / new capture). */
    static void clear() {
        int g = generation + 1;
        generation = g;
        synchronized (ORPHAN_LOCK) {
            orphans = new SampleList(g);
        }
        while (QUEUE.poll() != null) {
            // discard
        }
    }
}
