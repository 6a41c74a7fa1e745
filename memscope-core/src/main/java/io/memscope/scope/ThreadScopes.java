package io.memscope.scope;

import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * One thread's stack of open scopes in one {@link ScopeTracker}, and the statistics shard it writes. Touched only
 * by the thread it is bound to (plain fields); a platform thread keeps it for life, a virtual thread gives it back
 * to the tracker's pool when its last scope closes (a virtual thread usually runs one task, so that per-thread
 * state does not pile up).
 *
 * <p>Frame {@code d} (0 = outermost) is held in parallel arrays: its path, its handle, when it started, the
 * thread's allocated bytes at its start (-1 unknown), memscope's own bytes at its start, and the time and bytes of
 * its children so far (for self figures).
 */
final class ThreadScopes {
    /** Frames per thread at most; deeper scopes are refused (counted, a no-op handle). */
    static final int MAX_DEPTH = 4096;

    /** The thread it is bound to; changes only while the thread has no open scope (virtual-thread pooling). */
    Thread owner;
    /** A weak copy of {@link #owner} for the tracker's scans for ended platform threads. */
    WeakReference<Thread> ownerRef;
    boolean virtual;
    /** The tracker's hot-path slot this state holds, -1 none. */
    int slot = -1;
    final StatsShard shard;
    int depth;
    PathNode[] paths = new PathNode[8];
    MemoryScope[] handles = new MemoryScope[8];
    long[] start = new long[8];
    long[] startBytes = new long[8];
    long[] ownAtStart = new long[8];
    long[] childNanos = new long[8];
    long[] childBytes = new long[8];
    /** 1 = a task handed to this thread by {@code wrap}. */
    byte[] task = new byte[8];
    /**
     * Heap bytes memscope allocated on this thread while a scope was open (scope handles, tables growing, agent
     * buffers): a frame leaves {@code ownBytes - ownAtStart} out of its allocated bytes.
     */
    long ownBytes;
    /** The agent's own bytes on this thread ({@code AgentLink.ownBytes()}) already added to {@link #ownBytes}. */
    long agentOwnSeen;

    ThreadScopes(int paths) {
        this.shard = new StatsShard(paths);
    }

    void bind(Thread t, boolean isVirtual) {
        owner = t;
        ownerRef = new WeakReference<>(t);
        virtual = isVirtual;
    }

    /** @return false when {@link #MAX_DEPTH} frames are open; otherwise room for one more (may allocate) */
    boolean ensureRoom() {
        int n = paths.length;
        if (depth < n) {
            return true;
        }
        if (n >= MAX_DEPTH) {
            return false;
        }
        int m = Math.min(MAX_DEPTH, n * 2);
        paths = Arrays.copyOf(paths, m);
        handles = Arrays.copyOf(handles, m);
        start = Arrays.copyOf(start, m);
        startBytes = Arrays.copyOf(startBytes, m);
        ownAtStart = Arrays.copyOf(ownAtStart, m);
        childNanos = Arrays.copyOf(childNanos, m);
        childBytes = Arrays.copyOf(childBytes, m);
        task = Arrays.copyOf(task, m);
        return true;
    }

    /** Forgets the open frames of a thread that ended with scopes open; @return how many there were */
    int abandon() {
        int d = depth;
        Arrays.fill(handles, 0, d, null);
        Arrays.fill(paths, 0, d, null);
        depth = 0;
        return d;
    }
}
