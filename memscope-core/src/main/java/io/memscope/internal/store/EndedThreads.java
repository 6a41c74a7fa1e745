package io.memscope.internal.store;

/**
 * The buffers of an {@link EventStore}'s ended threads: under the store's maintenance lock, {@link #reapLocked}
 * moves the events of ended threads (up to {@value #BURY_LIMIT} per thread; 32 bytes each, with their thread id and
 * name) into one shared "graveyard" buffer and unregisters the buffers of ended threads holding no events (and an
 * empty graveyard), returning their unused lease and keeping their drop counts. Buffers of ended threads with more
 * events are unregistered once drained.
 *
 * <p>Meanwhile the sums of per-buffer counters ({@link #size()}, {@link #dropped}) wait, on a seqlock, so that they
 * never count a moving event twice or not at all.
 */
final class EndedThreads {
    /**
     * Ended threads holding at most this many events have them moved to the graveyard (their buffer's overhead
     * matters next to so few events); larger ones keep their buffer until drained.
     */
    static final int BURY_LIMIT = Chunk.MAX_CAPACITY;

    private final BufferRegistry registry;
    private final BufferLookup lookup;
    private final ChunkPool pool;
    /** Bounded mode's capacity (unused leases go back to it); null when unbounded. */
    private final StoreCapacity capacity;
    /** Drop-newest counts of buffers already unregistered (written under the lock). */
    private volatile long reapedDropped;
    /**
     * The events of ended threads, moved out of their buffers so that those can be released before the events are
     * drained. Written only under the maintenance lock (its "owner"); null while there is none.
     */
    private ThreadBuffer graveyard;
    /**
     * Seqlock for readers that sum per-buffer counters ({@link #size()}, {@link #dropped}): odd while events or
     * counts move between buffers (compaction, reaping), so that such a sum is retried instead of seeing an event
     * twice or not at all.
     */
    private volatile long moving;

    EndedThreads(BufferRegistry registry, BufferLookup lookup, ChunkPool pool, StoreCapacity capacity) {
        this.registry = registry;
        this.lookup = lookup;
        this.pool = pool;
        this.capacity = capacity;
    }

    /** @return the events in the registered buffers: exact as soon as their {@code record} returned */
    long size() {
        while (true) {
            long seq = moving;
            if ((seq & 1) == 0) {
                BufferRegistry.Table r = registry.table();
                int n = r.count;
                long sum = 0;
                for (int i = 0; i < n; i++) {
                    sum += r.slots[i].size();
                }
                if (moving == seq) {
                    return sum;
                }
            }
            Thread.yield(); // events are moving between buffers (rare, under the lock): wait for the end
        }
    }

    /**
     * @param evicted events removed by drop-oldest
     * @return events dropped since the last clear: {@code evicted}, plus the drop-newest counts of every buffer,
     *         registered or not
     */
    long dropped(long evicted) {
        while (true) {
            long seq = moving;
            if ((seq & 1) == 0) {
                BufferRegistry.Table r = registry.table();
                int n = r.count;
                long sum = evicted + reapedDropped;
                for (int i = 0; i < n; i++) {
                    ThreadBuffer b = r.slots[i];
                    sum += b.droppedNewest() - b.droppedBaseline;
                }
                if (moving == seq) {
                    return sum;
                }
            }
            Thread.yield(); // events are moving between buffers (rare, under the lock): wait for the end
        }
    }

    /** Under the lock (a clear): the drop counts of unregistered buffers start again from 0. */
    void resetDropped() {
        reapedDropped = 0;
    }

    /**
     * Under the lock: moves the events of ended threads into the graveyard, then unregisters the buffers of ended
     * threads (and an empty graveyard), returning their unused lease and keeping their drop counts.
     */
    void reapLocked() {
        BufferRegistry.Table r = registry.table();
        int n = r.count;
        boolean any = false;
        for (int i = 0; i < n && !any; i++) {
            ThreadBuffer b = r.slots[i];
            any = b.ownerDead() || (b.isGraveyard() && b.size() == 0);
        }
        if (!any) {
            return;
        }
        moving++; // odd: size() and dropped() wait
        try {
            for (int i = 0; i < n; i++) {
                ThreadBuffer b = r.slots[i];
                long size = b.size();
                if (size > 0 && size <= BURY_LIMIT && b.ownerDead()) {
                    buryLocked(b);
                }
            }
            long[] dropped = {reapedDropped};
            registry.removeIf(EndedThreads::releasable, b -> {
                lookup.forget(b);
                dropped[0] += b.droppedNewest() - b.droppedBaseline;
                if (capacity != null) {
                    capacity.release(b.takeBackLease());
                }
                if (b == graveyard) {
                    graveyard = null;
                }
            });
            reapedDropped = dropped[0];
        } finally {
            moving++; // even again
        }
    }

    /** A dead thread's buffer, or the graveyard, holding no events. Under the lock. */
    private static boolean releasable(ThreadBuffer b) {
        return (b.ownerDead() || b.isGraveyard()) && b.start() == b.end();
    }

    /**
     * Under the lock, inside {@code moving}: moves the events of an ended thread's buffer to the graveyard (with
     * their contexts, so thread ids and names stay), so that the buffer, its chunks and its context table can be
     * released before the events are drained.
     */
    private void buryLocked(ThreadBuffer dead) {
        ThreadBuffer g = graveyard;
        if (g == null) {
            g = new ThreadBuffer(null, 0, 0, pool, null);
            registry.add(g);
            graveyard = g;
        }
        long from = dead.start();
        long to = dead.end();
        dead.contexts.size(); // acquire: the entries cover every event below the end read above
        ContextTable.Entries e = dead.contexts.entries();
        Chunk c = dead.chunkAt(from);
        int i = (int) (from - c.base);
        long p = from;
        for (; p < to; p++, i++) {
            if (i == c.capacity) {
                c = c.next;
                i = 0;
            }
            int context = c.contexts[i];
            int k = context & ContextTable.INDEX_MASK;
            int moved = g.contexts.indexOf(e.threadIds[k], e.threadNames[k], e.sites[k], e.stacks[k],
                    e.typeNames[k], e.variableNames[k], e.previousSizes[k]);
            if (moved < 0) {
                break; // graveyard context table full: the rest stays where it is
            }
            g.append(c.timestamps[i], (context & ~ContextTable.INDEX_MASK) | moved, c.addresses[i], c.sizes[i],
                    c.previous[i]);
        }
        dead.removeUpTo(p);
    }
}
