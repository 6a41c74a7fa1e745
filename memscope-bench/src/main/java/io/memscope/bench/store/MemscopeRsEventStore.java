package io.memscope.bench.store;

import io.memscope.MemoryEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * memscope-rs's event store ported faithfully to Java, as the baseline: a lock-free queue of event objects
 * (SegQueue becomes {@link ConcurrentLinkedQueue}), a read-write-locked cache list filled from the queue on
 * snapshot, and an atomic count. Its limitations are kept on purpose: one object (plus a queue node) per event,
 * a shared queue and counter on the hot path, the clear/record race.
 */
public final class MemscopeRsEventStore {
    private final ConcurrentLinkedQueue<MemoryEvent> queue = new ConcurrentLinkedQueue<>();
    private final ReentrantReadWriteLock cacheLock = new ReentrantReadWriteLock();
    private final List<MemoryEvent> cache = new ArrayList<>();
    private final AtomicLong count = new AtomicLong();

    /** memscope-rs: {@code queue.push(event); count.fetch_add(1, Release)}. */
    public void record(MemoryEvent event) {
        queue.add(event);
        count.incrementAndGet();
    }

    private void flushToCache() {
        cacheLock.writeLock().lock();
        try {
            MemoryEvent e;
            while ((e = queue.poll()) != null) {
                cache.add(e);
            }
        } finally {
            cacheLock.writeLock().unlock();
        }
    }

    /** memscope-rs: flush the queue into the cache, then clone the cache under the read lock. */
    public List<MemoryEvent> snapshot() {
        flushToCache();
        cacheLock.readLock().lock();
        try {
            return new ArrayList<>(cache);
        } finally {
            cacheLock.readLock().unlock();
        }
    }

    /** memscope-rs: the approximate count. */
    public long len() {
        return count.get();
    }

    /** memscope-rs: write lock, pop the queue empty, clear the cache, reset the count. */
    public void clear() {
        cacheLock.writeLock().lock();
        try {
            while (queue.poll() != null) {
                // drain
            }
            cache.clear();
            count.set(0);
        } finally {
            cacheLock.writeLock().unlock();
        }
    }
}
