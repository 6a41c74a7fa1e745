package io.memscope.scope;

import io.memscope.internal.link.AgentLink;

import java.lang.invoke.MethodHandle;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The thread states ({@link ThreadScopes}) of one {@link ScopeTracker}: found on the hot path through a slot by
 * thread id (a {@link ThreadLocal} as the fallback), pooled for virtual threads (a state goes back to an idle slot
 * when its thread closes its last scope), reaped when their platform thread ended (their open scopes abandoned), and
 * retired when the pool is full: a retired state's figures are summed into one row per path, so that figures outlive
 * the threads that wrote them.
 *
 * <p>Creation, reaping and retiring take the tracker's lock (shared with its {@link PathTable}); the slots and the
 * idle pool are read without it.
 */
final class ScopeThreads {
    private static final int IDLE_SLOTS = 64;
    private static final int BY_ID_SLOTS = 1024;
    private static final MethodHandle IS_VIRTUAL = ScopeText.isVirtualHandle();

    static {
        // the JDK customizes a method handle at its 128th call, spinning a class on the calling thread: here, not in
        // an application's scope
        for (int i = 0; i < AgentLink.WARM_UP_CALLS; i++) {
            isVirtual(Thread.currentThread());
        }
    }

    private final Object lock;
    private final PathTable paths;
    private final ThreadLocal<ThreadScopes> local = new ThreadLocal<>();
    /**
     * The hot-path lookup of a thread's state: slot {@code threadId & (BY_ID_SLOTS - 1)}, valid when the state's
     * owner is the current thread (a few dependent loads, against several more for the {@link #local} lookup, which
     * stays the fallback for threads whose slot another holds). Cleared when a state is released or reaped.
     */
    private final ThreadScopes[] byId = new ThreadScopes[BY_ID_SLOTS];
    private final AtomicReferenceArray<ThreadScopes> idle = new AtomicReferenceArray<>(IDLE_SLOTS);
    /** Every thread's state, bound or idle (guarded by {@link #lock}); retired ones are folded into {@link #retired}. */
    private final ArrayList<ThreadScopes> all = new ArrayList<>();
    private int scanAt = 64;
    /** Sums (and maxima) of retired shards, per path id; guarded by {@link #lock}. */
    private long[] retired = new long[0];
    /** Scopes left open by threads that ended. */
    private final LongAdder abandoned = new LongAdder();

    ScopeThreads(Object lock, PathTable paths) {
        this.lock = lock;
        this.paths = paths;
    }

    /** @return the current thread's state, or null when it has none bound */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    ThreadScopes state() {
        Thread t = Thread.currentThread();
        int slot = (int) t.getId() & (BY_ID_SLOTS - 1);
        ThreadScopes ts = byId[slot];
        if (ts != null && ts.owner == t) {
            return ts;
        }
        ts = local.get();
        if (ts != null) {
            ThreadScopes held = byId[slot];
            if (held == null || held.owner == null) {
                byId[slot] = ts;
                ts.slot = slot;
            }
        }
        return ts;
    }

    /** @return the current thread's state, bound now (an idle one if any, else a new one) when it had none */
    ThreadScopes stateOrBind() {
        ThreadScopes ts = state();
        return ts != null ? ts : bind();
    }

    /** Forgets {@code ts} in its thread's slot (released or reaped: its owner is about to change). */
    private void unslot(ThreadScopes ts) {
        int slot = ts.slot;
        if (slot >= 0 && byId[slot] == ts) {
            byId[slot] = null;
        }
        ts.slot = -1;
    }

    /** Binds a thread state to the current thread: an idle one if any, else a new one. */
    private ThreadScopes bind() {
        Thread t = Thread.currentThread();
        boolean v = isVirtual(t);
        ThreadScopes ts = takeIdle(t);
        if (ts == null) {
            synchronized (lock) {
                if (all.size() >= scanAt) {
                    reapLocked();
                    scanAt = Math.max(64, all.size() * 2);
                }
                ts = takeIdle(t);
                if (ts == null) {
                    ts = new ThreadScopes(paths.count());
                    all.add(ts);
                }
            }
        }
        ts.bind(t, v);
        local.set(ts);
        return ts;
    }

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    private ThreadScopes takeIdle(Thread t) {
        int start = (int) t.getId() & (IDLE_SLOTS - 1);
        for (int i = 0; i < IDLE_SLOTS; i++) {
            int slot = (start + i) & (IDLE_SLOTS - 1);
            ThreadScopes ts = idle.get(slot);
            if (ts != null && idle.compareAndSet(slot, ts, null)) {
                return ts;
            }
        }
        return null;
    }

    /** A virtual thread closed its last scope: its state goes back to the pool (or is retired when it is full). */
    void release(ThreadScopes ts) {
        local.remove();
        unslot(ts);
        ts.owner = null;
        ts.ownerRef = null;
        if (!offerIdle(ts)) {
            synchronized (lock) {
                retireLocked(ts);
            }
        }
    }

    @SuppressWarnings("deprecation")
    private boolean offerIdle(ThreadScopes ts) {
        int start = (int) Thread.currentThread().getId() & (IDLE_SLOTS - 1);
        for (int i = 0; i < IDLE_SLOTS; i++) {
            int slot = (start + i) & (IDLE_SLOTS - 1);
            if (idle.get(slot) == null && idle.compareAndSet(slot, null, ts)) {
                return true;
            }
        }
        return false;
    }

    /** Threads that ended: their open scopes are abandoned, their state becomes idle (or retired). Under the lock. */
    void reapLocked() {
        List<ThreadScopes> dead = new ArrayList<>();
        for (ThreadScopes ts : all) {
            WeakReference<Thread> r = ts.ownerRef;
            Thread t = r == null ? null : r.get();
            if (r != null && (t == null || !t.isAlive())) {
                dead.add(ts);
            }
        }
        for (ThreadScopes ts : dead) {
            // the thread has ended: everything it wrote happens-before isAlive() returned false
            abandoned.add(ts.abandon());
            unslot(ts);
            ts.owner = null;
            ts.ownerRef = null;
            if (!offerIdle(ts)) {
                retireLocked(ts);
            }
        }
    }

    private void retireLocked(ThreadScopes ts) {
        int n = paths.count();
        if (retired.length < n * StatsShard.STRIDE) {
            retired = Arrays.copyOf(retired, n * StatsShard.STRIDE);
        }
        long[] row = new long[StatsShard.STRIDE];
        for (int id = 1; id < n; id++) {
            Arrays.fill(row, 0);
            ts.shard.addTo(id, row);
            merge(row, retired, id * StatsShard.STRIDE);
        }
        all.remove(ts);
    }

    private static void merge(long[] row, long[] into, int offset) {
        for (int f = 0; f < StatsShard.STRIDE; f++) {
            if (f == StatsShard.MAX_NS || f == StatsShard.MAX_ALLOCATED) {
                into[offset + f] = Math.max(into[offset + f], row[f]);
            } else {
                into[offset + f] += row[f];
            }
        }
    }

    /**
     * The figures of paths {@code 1 .. n - 1}, retired threads' and live ones' summed (maxima kept). Under the lock,
     * after {@link #reapLocked()}.
     *
     * @return one row of {@link StatsShard#STRIDE} figures per path id
     */
    long[][] sumsLocked(int n) {
        long[][] sums = new long[n][StatsShard.STRIDE];
        for (int id = 1; id < n; id++) {
            if (retired.length >= (id + 1) * StatsShard.STRIDE) {
                System.arraycopy(retired, id * StatsShard.STRIDE, sums[id], 0, StatsShard.STRIDE);
            }
            for (ThreadScopes ts : all) {
                ts.shard.addTo(id, sums[id]);
            }
        }
        return sums;
    }

    /** @return thread states held for threads (bound, idle or of ended threads not yet reaped) */
    int count() {
        synchronized (lock) {
            return all.size();
        }
    }

    /** @return scopes left open by threads that ended */
    long abandoned() {
        return abandoned.sum();
    }

    private static boolean isVirtual(Thread t) {
        MethodHandle h = IS_VIRTUAL;
        if (h == null) {
            return false;
        }
        try {
            return (boolean) h.invokeExact(t);
        } catch (Throwable e) {
            return false;
        }
    }
}
