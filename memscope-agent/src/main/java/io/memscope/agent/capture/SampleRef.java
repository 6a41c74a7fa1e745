package io.memscope.agent.capture;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

/**
 * A weak reference to one sampled heap object, with what its DEALLOCATE event needs. Made by the allocating thread
 * and kept strongly reachable by that thread's {@link SampleList} until it has been {@link #settle settled}: seen
 * collected, exactly once, by whichever thread noticed first (the background thread draining the reference queue,
 * or the end-of-capture sweep).
 */
final class SampleRef extends WeakReference<Object> {
    private static final VarHandle SETTLED;

    static {
        try {
            SETTLED = MethodHandles.lookup().findVarHandle(SampleRef.class, "settled", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The sample id (the "address" of its events). */
    final long id;
    final int site;
    /** Bytes of the object as allocated. */
    final long size;
    /** {@link System#nanoTime()} when it was sampled. */
    final long allocatedNanos;
    /** Horvitz-Thompson weight of the sample (see {@link LiveSites}). */
    final double weight;
    /** The capture it belongs to ({@link Liveness#clear} starts a new one). */
    final int generation;
    /** The allocating thread's id ({@code Thread.getId()}). */
    final long threadId;
    /** The id of the allocation's stack in {@link StackTable} (0 = none). */
    final long stack;
    /**
     * Where {@link LiveSites} counts it: {@link LiveSites#NEW}, {@link LiveSites#UNCONFIRMED} (survived a GC) or
     * {@link LiveSites#CONFIRMED} (reachable at a GC that examined the whole heap); guarded by its lock.
     */
    int state;
    /** 0 while tracked, 1 once settled. Written only through {@link #SETTLED}. */
    @SuppressWarnings("unused")
    private volatile int settled;

    SampleRef(Object referent, ReferenceQueue<Object> queue, long id, int site, long size, double weight,
              int generation, long threadId, long stack) {
        super(referent, queue);
        this.threadId = threadId;
        this.stack = stack;
        this.id = id;
        this.site = site;
        this.size = size;
        this.weight = weight;
        this.generation = generation;
        this.allocatedNanos = System.nanoTime();
    }

    /** @return true for the one caller that settles this sample (later callers get false) */
    boolean settle() {
        return SETTLED.compareAndSet(this, 0, 1);
    }

    /** @return whether the sample has been settled (its owner's list may drop it) */
    boolean settled() {
        return settled != 0;
    }
}
