package io.memscope.agent.capture;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * One application thread's scope entries and exits in one capture, in the order they happened: written by that
 * thread only (plain stores, one release store per edge, no lock, no allocation but once per block), read by the
 * recording's drain ({@link ScopeEdges}) under its lock. The cost of an edge on the application's thread is three
 * array stores and a release store of the count.
 *
 * <pre>
 * A block: its capacity's worth of edges, three longs each
 * +---------------------+--------------------------------------------+--------------------------------------+
 * | [3i]   nanos        | [3i+1] path id (bits 0..31), EXIT (bit 32) | [3i+2] entry: task id (0 = none)     |
 * |  System.nanoTime()  |                                            |        exit: allocated bytes, -1 unknown |
 * +---------------------+--------------------------------------------+--------------------------------------+
 * </pre>
 *
 * Blocks grow from {@value #FIRST_EDGES} edges (a virtual thread that enters one scope keeps a few hundred bytes,
 * not a full block) to {@value #BLOCK_EDGES}; full-size blocks the drain has read go back to the capture's pool
 * ({@link ScopeEdges#recycle}) and are reused, so that a thread that keeps entering scopes allocates nothing once
 * the drains keep up. A block the thread allocates is measured and handed back to the scope that reported the
 * edge ({@link ApiHooks#scopeEntered}), which leaves it out of its allocated bytes.
 *
 * <p>Publication: the thread writes an edge's three slots, links a new block before its first edge, then
 * release-stores {@link #written}; the drain acquire-reads it and reads only edges below it.
 */
final class ScopeEdgeLog {
    static final int FIRST_EDGES = 16;
    static final int BLOCK_EDGES = 1024;
    static final long EXIT = 1L << 32;

    private static final VarHandle WRITTEN;

    static {
        try {
            WRITTEN = MethodHandles.lookup().findVarHandle(ScopeEdgeLog.class, "written", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final ScopeEdges capture;
    final long threadId;
    final int threadNameId;
    private final WeakReference<Thread> owner;

    // the thread's side
    private Block tail;
    private int tailEdges;
    /** Full-size blocks this thread allocated in a row, the pool being empty ({@link ScopeEdges#behind()}). */
    private int blocksSinceReuse;
    /** Edges published: written by the thread (release), read by the drain (acquire). */
    @SuppressWarnings("unused") // through WRITTEN
    private volatile long written;

    // the drain's side
    private Block head;
    private int headEdges;
    private long read;

    ScopeEdgeLog(ScopeEdges capture, Thread owner, long threadId, int threadNameId) {
        this.capture = capture;
        this.owner = new WeakReference<>(owner);
        this.threadId = threadId;
        this.threadNameId = threadNameId;
        this.tail = new Block(FIRST_EDGES);
        this.head = tail;
    }

    /**
     * The thread only: appends one edge.
     *
     * @return heap bytes allocated for it (a new block; usually 0)
     */
    long add(long nanos, long pathAndKind, long value) {
        Block b = tail;
        int i = tailEdges;
        long allocated = 0;
        if (i == b.edges) {
            long before = OwnBytes.before();
            b = next(b);
            allocated = OwnBytes.since(before);
            i = 0;
        }
        long[] v = b.values;
        int o = i * 3;
        v[o] = nanos;
        v[o + 1] = pathAndKind;
        v[o + 2] = value;
        tailEdges = i + 1;
        WRITTEN.setRelease(this, (long) WRITTEN.get(this) + 1);
        return allocated;
    }

    private Block next(Block full) {
        if (capture.released()) {
            // nothing drains this log any more: the thread writes over its last block instead of growing the log
            tailEdges = 0;
            return full;
        }
        Block b = full.edges == BLOCK_EDGES ? capture.reuse() : null;
        if (b == null) {
            b = new Block(Math.min(BLOCK_EDGES, full.edges * 2));
            if (b.edges == BLOCK_EDGES && ++blocksSinceReuse == ScopeEdges.BLOCKS_BEFORE_WAKE) {
                blocksSinceReuse = 0;
                capture.behind();
            }
        } else {
            blocksSinceReuse = 0;
        }
        b.next = null;
        full.next = b; // published by the release store of the edge that follows
        tail = b;
        tailEdges = 0;
        return b;
    }

    // ------------------------------------------------------------------------------------------ the drain's side

    /** @return edges published and not drained yet (the drain) */
    long pending() {
        return (long) WRITTEN.getAcquire(this) - read;
    }

    /** @return whether the thread ended and everything it wrote was drained: the log can be dropped */
    boolean finished() {
        Thread t = owner.get();
        return (t == null || !t.isAlive()) && pending() == 0;
    }

    /** A cursor over the edges published now, for one drain; the drain consumes them with {@link Cursor#advance}. */
    Cursor cursor() {
        long cut = (long) WRITTEN.getAcquire(this);
        return cut == read ? null : new Cursor(cut);
    }

    /**
     * Reads one drain's edges of this log, oldest first; full blocks left behind go back to the pool. The cursor
     * keeps its position in its own fields and stores it into the log when it leaves a block and at
     * {@link #save()}: the log's fields share a cache line with the ones its thread writes at every edge, so a store
     * per edge read here would cost the application's thread a cache miss per edge it writes meanwhile.
     */
    final class Cursor {
        private final long cut;
        private Block block;
        private int blockEdges;
        private long position;
        long nanos;
        long pathAndKind;
        long value;

        Cursor(long cut) {
            this.cut = cut;
            this.block = head;
            this.blockEdges = headEdges;
            this.position = read;
            load();
        }

        private void load() {
            Block b = block;
            if (blockEdges == b.edges) {
                Block left = b;
                b = b.next;
                block = b;
                blockEdges = 0;
                // The log moves past the block before it goes back to the pool (a store once per block, not per
                // edge), so that the pool's blocks come back while a long drain goes on.
                save();
                if (left.edges == BLOCK_EDGES) {
                    capture.recycle(left);
                }
            }
            int o = blockEdges * 3;
            long[] v = b.values;
            nanos = v[o];
            pathAndKind = v[o + 1];
            value = v[o + 2];
        }

        /**
         * Moves past the current edge; @return whether there is another one in this drain (when not, the position
         * is saved)
         */
        boolean advance() {
            blockEdges++;
            position++;
            if (position == cut) {
                save();
                return false;
            }
            load();
            return true;
        }

        /** Stores the position into the log: the edges before it are drained. Idempotent. */
        void save() {
            head = block;
            headEdges = blockEdges;
            read = position;
        }

        long threadId() {
            return threadId;
        }

        int threadNameId() {
            return threadNameId;
        }
    }

    /** A block of edges; {@link #next} is written by the thread before the release that publishes its first edge. */
    static final class Block {
        final long[] values;
        final int edges;
        Block next;

        Block(int edges) {
            this.edges = edges;
            this.values = new long[edges * 3];
        }
    }
}
