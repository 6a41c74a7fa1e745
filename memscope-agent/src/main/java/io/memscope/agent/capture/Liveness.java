package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tracks sampled heap objects through weak references: when the GC collects one, its reference is enqueued and
 * {@link #drain} turns it into a DEALLOCATE event whose {@code previousSize} is the object's lifetime in
 * nanoseconds (allocation to the moment memscope saw the reference enqueued; precision: the drain period).
 */
final class Liveness {
    private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    private static final Set<SampleRef> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicLong IDS = new AtomicLong();

    private Liveness() {
    }

    /** A weak reference to one sampled object, with what its DEALLOCATE event needs. */
    private static final class SampleRef extends WeakReference<Object> {
        final long id;
        final int site;
        final long size;
        final long allocatedNanos;
        /** Horvitz-Thompson weight of the sample (see {@link LiveSites}). */
        final double weight;

        SampleRef(Object referent, long id, int site, long size, double weight) {
            super(referent, QUEUE);
            this.id = id;
            this.site = site;
            this.size = size;
            this.weight = weight;
            this.allocatedNanos = System.nanoTime();
        }
    }

    /** Starts tracking an object; @return its sample id (the "address" of its events) */
    static long track(Object o, int site, long size, double weight) {
        long id = IDS.incrementAndGet();
        LIVE.add(new SampleRef(o, id, site, size, weight));
        LiveSites.sampled(site, size, weight);
        return id;
    }

    /** Records a DEALLOCATE for every collected sample enqueued so far; waits up to {@code waitMillis} for the first. */
    static int drain(AllocationSink sink, long waitMillis) throws InterruptedException {
        int n = 0;
        Reference<?> r = waitMillis > 0 ? QUEUE.remove(waitMillis) : QUEUE.poll();
        while (r != null) {
            if (r instanceof SampleRef && LIVE.remove(r)) {
                SampleRef s = (SampleRef) r;
                LiveSites.collected(s.site, s.size, s.weight);
                sink.record(MemoryEventType.DEALLOCATE, s.id, s.size, System.nanoTime() - s.allocatedNanos, s.site,
                        0, null);
                n++;
            }
            r = QUEUE.poll();
        }
        return n;
    }

    /**
     * After a full GC: every sample whose referent is gone is collected, whether or not the reference handler has
     * enqueued it yet. Deterministic end-of-run liveness.
     */
    static int sweep(AllocationSink sink) {
        int n = 0;
        for (SampleRef s : LIVE) {
            if (s.refersTo(null) && LIVE.remove(s)) {
                LiveSites.collected(s.site, s.size, s.weight);
                sink.record(MemoryEventType.DEALLOCATE, s.id, s.size, System.nanoTime() - s.allocatedNanos, s.site,
                        0, null);
                n++;
            }
        }
        return n;
    }

    /** @return samples not yet seen collected */
    static int live() {
        return LIVE.size();
    }

    /** Forgets every tracked sample (detach / new capture). */
    static void clear() {
        LIVE.clear();
        while (QUEUE.poll() != null) {
            // discard
        }
    }
}
