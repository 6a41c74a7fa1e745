package io.memscope.analysis;

import java.util.Arrays;

/**
 * One recorded thread's open scopes (scope path, start, time and bytes of the scopes inside it, task or not), and its
 * heap samples waiting to be placed in the scope open at their time, for {@link ApiAnalysis}: a sample waits until
 * the thread's next scope edge, or until the file has gone far enough past it ({@link ApiAnalysis#WINDOW_NANOS}). The waiting
 * samples are a ring of ids and allocation times, grown by doubling.
 */
final class ThreadScopeStack {
    /** Places a sample (its slot in {@link PendingSamples}) in a scope path (0: outside every scope). */
    interface Placement {
        void place(int slot, int pathId);
    }

    final long id;
    int depth;
    int[] path = new int[8];
    long[] start = new long[8];
    long[] childNanos = new long[8];
    long[] childBytes = new long[8];
    boolean[] task = new boolean[8];
    /** Samples waiting to be placed, oldest first: a ring of their ids and allocation times. */
    long[] waitingIds = new long[16];
    long[] waitingAt = new long[16];
    int head;
    int waiting;

    private final PendingSamples pending;
    private final Placement placement;

    ThreadScopeStack(long id, PendingSamples pending, Placement placement) {
        this.id = id;
        this.pending = pending;
        this.placement = placement;
    }

    void await(long sampleId, long allocated) {
        if (waiting == waitingIds.length) {
            int n = waiting * 2;
            long[] ids = new long[n];
            long[] at = new long[n];
            for (int i = 0; i < waiting; i++) {
                ids[i] = waitingIds[(head + i) & (waiting - 1)];
                at[i] = waitingAt[(head + i) & (waiting - 1)];
            }
            waitingIds = ids;
            waitingAt = at;
            head = 0;
        }
        int i = (head + waiting) & (waitingIds.length - 1);
        waitingIds[i] = sampleId;
        waitingAt[i] = allocated;
        waiting++;
    }

    void push(int pathId, long t, boolean isTask) {
        if (depth == path.length) {
            int n = depth * 2;
            path = Arrays.copyOf(path, n);
            start = Arrays.copyOf(start, n);
            childNanos = Arrays.copyOf(childNanos, n);
            childBytes = Arrays.copyOf(childBytes, n);
            task = Arrays.copyOf(task, n);
        }
        path[depth] = pathId;
        start[depth] = t;
        childNanos[depth] = 0;
        childBytes[depth] = 0;
        task[depth] = isTask;
        depth++;
    }

    /** Places the waiting samples older than {@code t} in the innermost scope open now. */
    void attributeBefore(long t) {
        while (waiting > 0 && waitingAt[head] < t) {
            long sampleId = waitingIds[head];
            head = (head + 1) & (waitingIds.length - 1);
            waiting--;
            int slot = pending.find(sampleId);
            if (slot >= 0 && pending.placement(slot) == PendingSamples.WAITING) {
                placement.place(slot, depth == 0 ? 0 : path[depth - 1]);
            }
        }
    }
}
