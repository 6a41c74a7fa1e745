package io.memscope.internal.store;

import java.util.List;

/**
 * A cursor over a stretch of one {@link ThreadBuffer} whose timestamps never decrease: the unit of the k-way
 * merge. Used only under the store's maintenance lock, so the chunks it walks are neither unlinked nor reused.
 */
final class Run {
    final ThreadBuffer buffer;
    final ContextTable.Entries contexts;
    /** Added to the buffer-local context index to get the snapshot-wide one. */
    final int contextOffset;
    Chunk chunk;
    int index;
    long remaining;

    private Run(ThreadBuffer buffer, ContextTable.Entries contexts, int contextOffset, Chunk chunk, int index,
                long remaining) {
        this.buffer = buffer;
        this.contexts = contexts;
        this.contextOffset = contextOffset;
        this.chunk = chunk;
        this.index = index;
        this.remaining = remaining;
    }

    long timestamp() {
        return chunk.timestamps[index];
    }

    /** Moves to the next event. @return false when the run is exhausted */
    boolean advance() {
        if (--remaining == 0) {
            return false;
        }
        if (++index == chunk.capacity) {
            chunk = chunk.next;
            index = 0;
        }
        return true;
    }

    /**
     * Adds the runs covering positions [from, to) of {@code buffer}: one run, or several when the buffer holds
     * timestamps out of order (events recorded with their own timestamps).
     */
    static void split(ThreadBuffer buffer, ContextTable.Entries contexts, int contextOffset, long from, long to,
                      List<Run> out) {
        if (from >= to) {
            return;
        }
        Chunk c = buffer.chunkAt(from);
        int i = (int) (from - c.base);
        if (buffer.lastDescent() <= from) {
            out.add(new Run(buffer, contexts, contextOffset, c, i, to - from));
            return;
        }
        Chunk runChunk = c;
        int runIndex = i;
        long runStart = from;
        long previous = c.timestamps[i];
        for (long p = from + 1; p < to; p++) {
            if (++i == c.capacity) {
                c = c.next;
                i = 0;
            }
            long t = c.timestamps[i];
            if (t < previous) {
                out.add(new Run(buffer, contexts, contextOffset, runChunk, runIndex, p - runStart));
                runChunk = c;
                runIndex = i;
                runStart = p;
            }
            previous = t;
        }
        out.add(new Run(buffer, contexts, contextOffset, runChunk, runIndex, to - runStart));
    }
}
