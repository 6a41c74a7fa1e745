package io.memscope.internal.store;

import io.memscope.error.MemscopeException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * The events one thread recorded into one {@link EventStore}: a linked list of {@link Chunk}s (16 events for a
 * new thread, doubling up to {@value Chunk#MAX_CAPACITY}) and the thread's {@link ContextTable}.
 *
 * <p>Events have logical positions 0, 1, 2, ... in recording order. Two counters delimit what is stored:
 * <pre>
 *   removed            stored                    being written
 *  [ 0 ........ start )[ start ........... end )[ end ...
 *                      ^ written by removers     ^ written by the owner only (release store)
 *                        under the store's lock
 * </pre>
 * The owner thread fills slot {@code end} and then publishes {@code end + 1} with a release store; that store is
 * the instant the event counts as recorded. Removers ({@code clear}, {@code drainTo}, drop-oldest eviction) hold
 * the store's maintenance lock, read {@code end} with an acquire load, and advance {@code start} to a position no
 * greater than what they read. So every event is either entirely below a remover's cut (removed) or at/after it
 * (kept): there is no half-removed or lost event, and the owner never waits for a remover.
 *
 * <p>Chunks wholly below {@code start} are unlinked from {@code head} (never the tail, which the owner may still
 * link from) and full-size ones go to the store's {@link ChunkPool} for reuse.
 */
final class ThreadBuffer {
    private static final VarHandle END;
    private static final VarHandle DROPPED;
    private static final VarHandle LAST_DESCENT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            END = lookup.findVarHandle(ThreadBuffer.class, "end", long.class);
            DROPPED = lookup.findVarHandle(ThreadBuffer.class, "droppedNewest", long.class);
            LAST_DESCENT = lookup.findVarHandle(ThreadBuffer.class, "lastDescent", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The owner, weakly: cleared or not alive means no more events will come. Null for the store's graveyard. */
    private final WeakReference<Thread> owner;
    final long threadId;
    final int threadNameId;
    final ContextTable contexts = new ContextTable();
    private final ChunkPool pool;
    /** The store's capacity, for bounded mode's leases; null when unbounded. */
    private final StoreCapacity bounded;

    // ---- owner thread only ----
    /** The chunk holding position {@code end} (or full, when {@code end} is its last position + 1). */
    private Chunk tail;
    private long lastTimestamp = Long.MIN_VALUE;
    /**
     * Bounded mode: positions below this may be written without asking the store for capacity (a lease of
     * {@code leaseEnd - end} events). Read and reset by reapers once the owner is dead.
     */
    long leaseEnd;

    // ---- published by the owner (release stores), read by anyone ----
    @SuppressWarnings("unused") private volatile long end;
    /** The highest position p whose timestamp is lower than that of p - 1 (0 = none): runs are split there. */
    @SuppressWarnings("unused") private volatile long lastDescent;
    /** Events this thread did not store because the store was full. */
    @SuppressWarnings("unused") private volatile long droppedNewest;

    // ---- written under the store's maintenance lock ----
    private volatile long start;
    private volatile Chunk head;
    /** {@link #droppedNewest()} at the last clear, so that clear resets the dropped count. */
    volatile long droppedBaseline;

    ThreadBuffer(Thread thread, long threadId, int threadNameId, ChunkPool pool, StoreCapacity bounded) {
        this.bounded = bounded;
        this.owner = thread == null ? null : new WeakReference<>(thread);
        this.threadId = threadId;
        this.threadNameId = threadNameId;
        this.pool = pool;
        Chunk first = new Chunk(Chunk.MIN_CAPACITY);
        this.tail = first;
        this.head = first;
    }

    // ------------------------------------------------------------------------------------------ owner side

    /**
     * Owner thread only: stores one event (interning its context) and publishes it, or counts it as dropped when
     * a bounded store is full. Kept small, with the rare paths in other methods, so that the JIT inlines it.
     */
    void put(long timestamp, int typeCode, long address, long size, long previousSize, long threadId,
             int threadNameId, int siteId, long stackId, int typeNameId, int variableNameId) {
        if (bounded != null && (long) END.get(this) == leaseEnd && !bounded.reserve(this)) {
            return;
        }
        int previous = (previousSize >>> 31) == 0 ? (int) previousSize : -1; // else kept in the context
        int context = contexts.indexOf(threadId, threadNameId, siteId, stackId, typeNameId, variableNameId,
                previous < 0 ? previousSize : 0);
        if (context < 0) {
            contextsFull(threadId);
            return;
        }
        append(timestamp, (typeCode << ContextTable.TYPE_SHIFT) | context, address, size, previous);
    }

    private void contextsFull(long threadId) {
        countDropped();
        throw MemscopeException.memory("thread " + threadId + " used more than "
                + ContextTable.MAX_CONTEXTS + " distinct event contexts; event dropped and counted");
    }

    /**
     * Owner thread only: stores one event and publishes it. Seven stores: the five columns, the last timestamp
     * and the end; the owner reads its own {@code end} plainly (it is its only writer) and derives the slot from it.
     */
    void append(long timestamp, int context, long address, long size, int previous) {
        long position = (long) END.get(this);
        Chunk c = tail;
        int i = (int) (position - c.base);
        if (i == c.capacity) {
            c = grow(c);
            i = 0;
        }
        c.timestamps[i] = timestamp;
        c.addresses[i] = address;
        c.sizes[i] = size;
        c.contexts[i] = context;
        c.previous[i] = previous;
        if (timestamp < lastTimestamp) {
            LAST_DESCENT.setRelease(this, position);
        }
        lastTimestamp = timestamp;
        END.setRelease(this, position + 1);
    }

    /** Bounded mode, owner thread only: may write {@code events} more events without asking the store. */
    void grantLease(long events) {
        leaseEnd = (long) END.get(this) + events;
    }

    /**
     * Bounded mode, under the store's lock, once the owner is dead (its end is final): takes back the unused
     * part of the lease. @return how many events of capacity it held
     */
    long takeBackLease() {
        long unused = leaseEnd - end();
        leaseEnd = end();
        return Math.max(0, unused);
    }

    private Chunk grow(Chunk full) {
        int capacity = Math.min(Chunk.MAX_CAPACITY, full.capacity * 2);
        Chunk next = capacity == Chunk.MAX_CAPACITY ? pool.take() : null;
        if (next == null) {
            next = new Chunk(capacity);
        }
        next.base = full.base + full.capacity;
        next.next = null;
        full.next = next; // volatile: publishes base and the cleared link
        tail = next;
        return next;
    }

    /** Owner thread only: counts one event not stored. */
    void countDropped() {
        DROPPED.setRelease(this, (long) DROPPED.get(this) + 1);
    }

    // ------------------------------------------------------------------------------------------ reader side

    /** @return the published end: every position below it is fully written */
    long end() {
        return (long) END.getAcquire(this);
    }

    long start() {
        return start;
    }

    long droppedNewest() {
        return (long) DROPPED.getAcquire(this);
    }

    long lastDescent() {
        return (long) LAST_DESCENT.getAcquire(this);
    }

    /** @return events stored now (exact when no remover runs concurrently) */
    long size() {
        long s = start;          // start never exceeds an end already published,
        return end() - s;        // and end only grows: never negative
    }

    /** @return true once the owner is gone: no event will be added any more (false for the graveyard) */
    boolean ownerDead() {
        if (owner == null) {
            return false;
        }
        Thread t = owner.get();
        return t == null || !t.isAlive();
    }

    /** @return true if {@code t} is this buffer's owner (false for the graveyard) */
    boolean isOwnedBy(Thread t) {
        return owner != null && owner.refersTo(t);
    }

    /** @return true for the store's graveyard, which holds the events of ended threads and has no owner */
    boolean isGraveyard() {
        return owner == null;
    }

    /** Under the store's lock, for a position in [start, end): the chunk holding it. */
    Chunk chunkAt(long position) {
        Chunk c = head;
        while (position >= c.base + c.capacity) {
            c = c.next;
        }
        return c;
    }

    /** Under the store's lock, for a position in [start, end). */
    long timestampAt(long position) {
        Chunk c = chunkAt(position);
        return c.timestamps[(int) (position - c.base)];
    }

    /**
     * Under the store's lock: removes every event below {@code newStart} (no greater than a published end), and
     * recycles the chunks no longer needed.
     *
     * @return how many events were removed
     */
    long removeUpTo(long newStart) {
        long s = start;
        if (newStart <= s) {
            return 0;
        }
        start = newStart;
        Chunk h = head;
        Chunk n;
        while ((n = h.next) != null && h.base + h.capacity <= newStart) {
            if (h.capacity == Chunk.MAX_CAPACITY) {
                pool.give(h);
            }
            h = n;
        }
        head = h;
        return newStart - s;
    }

    /** @return bytes held by this buffer's linked chunks and context table (payloads) */
    long payloadBytes() {
        long bytes = contexts.payloadBytes();
        for (Chunk c = head; c != null; c = c.next) {
            bytes += c.payloadBytes();
        }
        return bytes;
    }
}
