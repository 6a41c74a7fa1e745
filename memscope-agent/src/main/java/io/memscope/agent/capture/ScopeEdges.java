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

    /** The capture's string table (thread names); null once released. */
    private volatile StringTable strings;
    private final List<ScopeEdgeLog> logs = new ArrayList<>();
    private final ScopeEdgeLog.Block[] pool = new ScopeEdgeLog.Block[POOL_BLOCKS];
    private int pooled;
    /** Set by {@link #release}: nothing is kept any more. */
    private volatile boolean released;
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
        StringTable s = strings;
        ScopeEdgeLog log = new ScopeEdgeLog(this, t, t.getId(), s == null ? 0 : s.internName(t.getName()));
        synchronized (logs) {
            if (!released) {
                logs.add(log);
            }
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
            if (!released && pooled < pool.length) {
                pool[pooled++] = b;
            }
        }
    }

    /**
     * The capture ended and its last drain ran: lets go of everything a thread's log could keep reachable. A thread
     * keeps its log in its {@link ThreadState} until its next scope in a later capture (only it may write that
     * field), and the log reaches this object: without this, the pool's blocks (up to {@value #POOL_BLOCKS} of
     * them), every thread's log and the capture's string table would stay for as long as any such thread lives. What
     * stays is each such thread's own last block, which it writes over from then on (a thread that read the capture
     * just before it ended may still write a few edges): they are not recorded, the capture is over.
     */
    void release() {
        wakeDrain = null;
        strings = null;
        synchronized (logs) {
            released = true;
            logs.clear();
        }
        synchronized (pool) {
            java.util.Arrays.fill(pool, null);
            pooled = 0;
        }
    }

    /** @return whether {@link #release} ran: the capture is over and its logs are not drained any more */
    boolean released() {
        return released;
    }

    /** @return full-size blocks in the pool */
    int pooled() {
        synchronized (pool) {
            return pooled;
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
