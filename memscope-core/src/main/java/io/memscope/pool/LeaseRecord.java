package io.memscope.pool;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.List;

/**
 * What a {@link PoolTracker} knows of one lease while it is out: a weak reference to the {@link PoolTracker.Lease} (enqueued
 * when the application lost it), and the resource only weakly, so that a resource that refers to its own lease
 * (a connection proxy holding it) does not keep the lease reachable from the tracker.
 */
final class LeaseRecord extends WeakReference<PoolTracker.Lease> {
    static final int BORROWED = 0;
    static final int RELEASED = 1;
    static final int LEAKED = 2;

    final PoolTracker pool;
    final long id;
    final long size;
    final long borrowNanos;
    final long threadId;
    final String threadName;
    final String resourceType;
    final WeakReference<Object> resource;
    final int resourceHash;
    final List<String> stack;
    /** Guarded by the pool's lock. */
    int state;
    long releaseNanos;
    /** The next record whose resource has the same identity hash (guarded by the pool's lock). */
    LeaseRecord nextSameHash;

    LeaseRecord(PoolTracker.Lease lease, ReferenceQueue<PoolTracker.Lease> queue, PoolTracker pool, long id, long size, long borrowNanos,
                long threadId, String threadName, Object resource, List<String> stack) {
        super(lease, queue);
        this.pool = pool;
        this.id = id;
        this.size = size;
        this.borrowNanos = borrowNanos;
        this.threadId = threadId;
        this.threadName = threadName;
        this.resourceType = PoolText.typeOf(resource);
        this.resource = resource == null ? null : new WeakReference<>(resource);
        this.resourceHash = System.identityHashCode(resource);
        this.stack = stack;
    }

    boolean holds(Object r) {
        return resource == null ? r == null : resource.get() == r;
    }

    PoolTracker.Leak leak(PoolTracker.Leak.Kind kind, long foundNanos) {
        return new PoolTracker.Leak(pool.name(), kind, id, resourceType, size, borrowNanos, foundNanos, threadId, threadName,
                stack);
    }
}
