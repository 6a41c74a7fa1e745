package io.memscope.internal.store;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded {@link EventStore}'s capacity: the events neither stored nor leased to a thread. Threads reserve it in
 * leases of up to 1/16 of the capacity (at most 1024 events), so that recording asks for capacity once per lease;
 * when none is left, {@link OverflowPolicy#DROP_OLDEST} removes the oldest events (oldest thread head first) and
 * {@link OverflowPolicy#DROP_NEWEST} counts the event as dropped in its thread's buffer.
 */
final class StoreCapacity {
    private final OverflowPolicy overflow;
    private final int leaseSize;
    private final AtomicLong free;
    private final BufferRegistry registry;
    /** The store's maintenance lock: eviction removes events. */
    private final ReentrantLock maintenance;
    /** Events removed by drop-oldest since creation or the last clear (written under the lock). */
    private volatile long evicted;

    StoreCapacity(long capacity, OverflowPolicy overflow, BufferRegistry registry, ReentrantLock maintenance) {
        this.overflow = overflow;
        this.leaseSize = (int) Math.max(1, Math.min(1024, capacity / 16));
        this.free = new AtomicLong(capacity);
        this.registry = registry;
        this.maintenance = maintenance;
    }

    /** On the owner thread: gets a new lease, making room or counting a drop if full. */
    boolean reserve(ThreadBuffer b) {
        long got = takeFree();
        if (got == 0 && overflow == OverflowPolicy.DROP_OLDEST && maintenance.tryLock()) {
            try {
                evictOldestLocked(leaseSize);
            } finally {
                maintenance.unlock();
            }
            got = takeFree();
        }
        if (got == 0) {
            b.countDropped();
            return false;
        }
        b.grantLease(got);
        return true;
    }

    /** Gives back {@code events} of capacity: events removed, or a lease an ended thread did not use. */
    void release(long events) {
        if (events > 0) {
            free.addAndGet(events);
        }
    }

    /** @return events removed by drop-oldest since creation or the last {@link #resetEvicted()} */
    long evicted() {
        return evicted;
    }

    /** Under the lock (a clear). */
    void resetEvicted() {
        evicted = 0;
    }

    private long takeFree() {
        while (true) {
            long f = free.get();
            if (f <= 0) {
                return 0;
            }
            long take = Math.min(leaseSize, f);
            if (free.compareAndSet(f, f - take)) {
                return take;
            }
        }
    }

    /** Under the lock: removes about {@code need} of the oldest events, oldest thread head first. */
    private void evictOldestLocked(long need) {
        BufferRegistry.Table r = registry.table();
        int n = r.count;
        long removed = 0;
        while (removed < need) {
            ThreadBuffer oldest = null;
            long oldestTimestamp = Long.MAX_VALUE;
            for (int i = 0; i < n; i++) {
                ThreadBuffer b = r.slots[i];
                long s = b.start();
                if (s < b.end()) {
                    long t = b.timestampAt(s);
                    if (oldest == null || t < oldestTimestamp) {
                        oldest = b;
                        oldestTimestamp = t;
                    }
                }
            }
            if (oldest == null) {
                break;
            }
            long s = oldest.start();
            long take = Math.min(need - removed, oldest.end() - s);
            removed += oldest.removeUpTo(s + take);
        }
        if (removed > 0) {
            evicted = evicted + removed;
            free.addAndGet(removed);
        }
    }
}
