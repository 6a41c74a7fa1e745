package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One capture's bytecode-hook samples, tracked through Java weak references (the JVM sampler's are tracked by its
 * library, {@link JvmtiHeapSampler}): when the GC collects one, its reference is enqueued and {@link #drain} turns it
 * into a DEALLOCATE event whose {@code previousSize} is the object's lifetime in nanoseconds (allocation to the moment
 * memscope saw the reference enqueued; precision: the drain period).
 *
 * <p>Each reference is kept strongly reachable by its allocating thread's {@link SampleList} (appended without a
 * lock or a hash on the sample path); the references of threads that ended move to one list owned by the background
 * thread. A reference is settled exactly once ({@link SampleRef#settle}), by the drain or by the end-of-capture
 * {@link #sweep}. Each instance has its own generation: a thread's list of an earlier capture is ignored.
 */
final class Liveness {
    private static final AtomicInteger GENERATIONS = new AtomicInteger();

    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    private final AtomicLong ids = new AtomicLong();
    private final int generation = GENERATIONS.incrementAndGet();
    private final LiveSites liveSites;
    /** Unsettled references of threads that ended; guarded by itself. */
    private final SampleList orphans = new SampleList(generation);

    Liveness(LiveSites liveSites) {
        this.liveSites = liveSites;
    }

    /**
     * Starts tracking an object sampled on the current thread {@code ts}, allocated with stack {@code stack}.
     *
     * @return its sample id (the "address" of its events)
     */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is Java 19+
    long track(ThreadState ts, Object o, int site, long size, double weight, long stack) {
        SampleList list = ts.samples;
        if (list == null || list.generation != generation) {
            list = new SampleList(generation);
            ts.samples = list;
        }
        long id = ids.incrementAndGet();
        SampleRef r = new SampleRef(o, queue, id, site, size, weight, generation, ts.thread.getId(), stack);
        list.add(r);
        liveSites.sampled(r);
        return id;
    }

    /** Moves the unsettled references of a thread that ended into the background thread's list (background thread). */
    void orphan(ThreadState ts) {
        SampleList list = ts.samples;
        if (list == null || list.generation != generation) {
            return;
        }
        ts.samples = null;
        synchronized (orphans) {
            list.forEach(orphans::add);
        }
    }

    /** Records a DEALLOCATE for every collected sample enqueued so far; waits up to {@code waitMillis} for the first. */
    int drain(AllocationSink sink, long waitMillis) throws InterruptedException {
        int n = 0;
        Reference<?> r = waitMillis > 0 ? queue.remove(waitMillis) : queue.poll();
        while (r != null) {
            if (r instanceof SampleRef && ((SampleRef) r).settle()) {
                collected(sink, (SampleRef) r);
                n++;
            }
            r = queue.poll();
        }
        return n;
    }

    private void collected(AllocationSink sink, SampleRef s) {
        liveSites.collected(s);
        sink.record(MemoryEventType.DEALLOCATE, s.id, s.size, System.nanoTime() - s.allocatedNanos, s.site, 0, null);
    }

    /**
     * After a full GC: every sample whose referent is gone is collected, whether or not the reference handler has
     * enqueued it yet. Deterministic end-of-run liveness. Then forgets every reference (the capture ends).
     */
    int sweep(AllocationSink sink) {
        int n = 0;
        for (ThreadState ts : ThreadState.ALL) {
            SampleList list = ts.samples;
            if (list != null && list.generation == generation) {
                n += sweep(sink, list);
                ts.samples = null;
            }
        }
        synchronized (orphans) {
            n += sweep(sink, orphans);
        }
        return n;
    }

    private int sweep(AllocationSink sink, SampleList list) {
        int[] n = {0};
        list.forEach(new java.util.function.Consumer<SampleRef>() {
            @Override
            public void accept(SampleRef s) {
                if (s.refersTo(null) && s.settle()) {
                    collected(sink, s);
                    n[0]++;
                }
            }
        });
        return n[0];
    }

    /**
     * Calls {@code action} for every sample of this capture not settled yet (any thread; a sample being added
     * meanwhile may be missed, see {@link SampleList}). Whether its object is still reachable is
     * {@code !s.refersTo(null)}.
     */
    void forEachTracked(java.util.function.Consumer<SampleRef> action) {
        for (ThreadState ts : ThreadState.ALL) {
            SampleList list = ts.samples;
            if (list != null && list.generation == generation) {
                list.forEach(action);
            }
        }
        synchronized (orphans) {
            orphans.forEach(action);
        }
    }
}
