package io.memscope.internal.store;

import java.util.Arrays;

/**
 * Full-size {@link Chunk}s freed by clear, drain or eviction, kept for reuse so that a store that is emptied
 * regularly (streamed to a file, or bounded with drop-oldest) records without allocating. Holds at most
 * {@code limit} chunks; more are left to the garbage collector. Touched once per {@value Chunk#MAX_CAPACITY}
 * events, so a plain monitor is fine.
 */
final class ChunkPool {
    private final Chunk[] chunks;
    private int count;

    ChunkPool(int limit) {
        this.chunks = new Chunk[Math.max(0, limit)];
    }

    synchronized Chunk take() {
        if (count == 0) {
            return null;
        }
        Chunk c = chunks[--count];
        chunks[count] = null;
        return c;
    }

    synchronized void give(Chunk c) {
        if (count < chunks.length) {
            chunks[count++] = c;
        }
    }

    synchronized int size() {
        return count;
    }

    synchronized void clear() {
        Arrays.fill(chunks, 0, count, null);
        count = 0;
    }
}
