package io.memscope.agent.capture;

import io.memscope.internal.recording.RecordingWriter;
import io.memscope.internal.store.StringTable;

import java.util.ArrayList;
import java.util.List;

/**
 * The scope entries and exits of one capture: a {@link ScopeEdgeLog} per application thread that entered a scope,
 * merged by time into the recording's SCOPE_EDGES at each drain, and the pool of full-size blocks the drains
 * have read, for the threads to reuse.
 *
 * <p>Lossless: every edge a thread wrote is in the recording after the next drain (the thread's log grows while
 * the drains fall behind). The logs of ended threads are dropped once drained.
 */
final class ScopeEdges {
    /** Full-size blocks kept for reuse (at most 6 MiB); more are left to the garbage collector. */
    static final int POOL_BLOCKS = 256;
    /**
     * Full-size blocks a thread allocates, the pool being empty, before it wakes the drain: by then at least this
     * many blocks wait, as many edges as the drain's flush threshold.
     */
    static final int BLOCKS_BEFORE_WAKE = 64;

    private final StringTable strings;
    private final List<ScopeEdgeLog> logs = new ArrayList<>();
    private final ScopeEdgeLog.Block[] pool = new ScopeEdgeLog.Block[POOL_BLOCKS];
    private int pooled;
    /** Wakes the drain early when threads outrun it (the JVM sampler's wait), or null: the drain's own pace. */
    private volatile Runnable wakeDrain;

    ScopeEdges(StringTable strings) {
        this.strings = strings;
    }

    /**
     * Lets threads that outrun the drain wake it ({@link #behind()}): without that the drain may wait out its idle
     * period while a busy thread fills hundreds of blocks the pool cannot hold, allocating each afresh.
     */
    void wakeDrainWith(Runnable wake) {
        wakeDrain = wake;
    }

    /** A thread allocated {@value #BLOCKS_BEFORE_WAKE} full-size blocks with the pool empty: the drain is behind. */
    void behind() {
        Runnable w = wakeDrain;
        if (w != null) {
            w.run();
        }
    }

    /** The calling thread's first edge in this capture: its log, registered (allocates, the caller measures). */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    ScopeEdgeLog register() {
        Thread t = Thread.currentThread();
        ScopeEdgeLog log = new ScopeEdgeLog(this, t, t.getId(), strings.intern(t.getName()));
        synchronized (logs) {
            logs.add(log);
        }
        return log;
    }

    /** @return a full-size block the drain has read, or null (application threads, once per block) */
    ScopeEdgeLog.Block reuse() {
        synchronized (pool) {
            if (pooled == 0) {
                return null;
            }
            ScopeEdgeLog.Block b = pool[--pooled];
            pool[pooled] = null;
            return b;
        }
    }

    /** Gives back a full-size block whose edges are drained (the drain). */
    void recycle(ScopeEdgeLog.Block b) {
        synchronized (pool) {
            if (pooled < pool.length) {
                pool[pooled++] = b;
            }
        }
    }

    /** @return edges written and not yet drained, over all threads */
    long pending() {
        long n = 0;
        synchronized (logs) {
            for (ScopeEdgeLog l : logs) {
                n += l.pending();
            }
        }
        return n;
    }

    /** Receives drained edges ({@link RecordingWriter#scopeEdge} in the capture). */
    interface Sink {
        void edge(long nanos, long threadId, int threadNameId, boolean exit, int pathId, long taskId,
                  long allocatedBytes);
    }

    /** @return threads whose logs are kept (ended threads' logs go once drained) */
    int threads() {
        synchronized (logs) {
            return logs.size();
        }
    }

    /**
     * Writes every edge published so far into the recording, in time order across threads (each thread's own edges
     * in their order), and drops the logs of ended threads that are empty. One drain at a time (the recording
     * stream's lock).
     *
     * @return how many edges were written
     */
    long drainTo(Sink w) {
        List<ScopeEdgeLog.Cursor> cursors = new ArrayList<>();
        synchronized (logs) {
            if (logs.isEmpty()) {
                return 0;
            }
            // a loop, not removeIf with a method reference: the first drain runs during the application's start-up
            for (java.util.Iterator<ScopeEdgeLog> it = logs.iterator(); it.hasNext(); ) {
                if (it.next().finished()) {
                    it.remove();
                }
            }
            for (ScopeEdgeLog l : logs) {
                ScopeEdgeLog.Cursor c = l.cursor();
                if (c != null) {
                    cursors.add(c);
                }
            }
        }
        int k = cursors.size();
        if (k == 0) {
            return 0;
        }
        ScopeEdgeLog.Cursor[] heap = cursors.toArray(new ScopeEdgeLog.Cursor[0]);
        for (int i = k / 2 - 1; i >= 0; i--) {
            siftDown(heap, k, i);
        }
        long n = 0;
        try {
            while (k > 0) {
                ScopeEdgeLog.Cursor c = heap[0];
                boolean exit = (c.pathAndKind & ScopeEdgeLog.EXIT) != 0;
                int path = (int) c.pathAndKind;
                w.edge(c.nanos, c.threadId(), c.threadNameId(), exit, path, exit ? 0 : c.value,
                        exit ? c.value : -1);
                n++;
                if (!c.advance()) {
                    heap[0] = heap[--k];
                }
                siftDown(heap, k, 0);
            }
        } finally {
            for (int i = 0; i < k; i++) {
                heap[i].save(); // a sink that failed: what it took stays drained, the rest waits for the next drain
            }
        }
        return n;
    }

    /** Min-heap on the current edge's time; equal times keep no particular order between threads. */
    private static void siftDown(ScopeEdgeLog.Cursor[] heap, int n, int i) {
        ScopeEdgeLog.Cursor x = heap[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            ScopeEdgeLog.Cursor c = heap[child];
            if (child + 1 < n && heap[child + 1].nanos < c.nanos) {
                child++;
                c = heap[child];
            }
            if (c.nanos >= x.nanos) {
                break;
            }
            heap[i] = c;
            i = child;
        }
        heap[i] = x;
    }
}
