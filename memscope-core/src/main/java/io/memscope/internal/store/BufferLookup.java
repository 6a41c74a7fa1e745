package io.memscope.internal.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * Finds the calling thread's {@link ThreadBuffer} in an {@link EventStore}: first in a small array by thread id
 * (slot {@code threadId & 255}, valid when the buffer's owner is this very thread: a few dependent loads), else
 * through a {@code ThreadLocal} (several more, about 5 ns here). A slot holds the buffer of the first live thread
 * registered with that low thread id (taken over, by CAS, once its owner ends) and is cleared when that buffer is
 * unregistered, so it keeps nothing alive that the store's registry does not; threads whose slot is taken use the
 * {@code ThreadLocal}, which holds only a weak reference to the buffer, so neither an ended thread's buffer nor a
 * discarded store is kept alive by a thread.
 */
final class BufferLookup {
    private static final int BY_THREAD_ID_SLOTS = 256;
    private static final int BY_THREAD_ID_MASK = BY_THREAD_ID_SLOTS - 1;

    /**
     * The handle on {@link #byThreadId}'s slots, made when a thread registers its first buffer, not with this class:
     * the agent makes its stores before the application's main, where the JVM's first {@code VarHandle} costs
     * milliseconds, and a store may never register a buffer.
     */
    private static final class Slots {
        static final VarHandle BY_THREAD_ID = MethodHandles.arrayElementVarHandle(ThreadBuffer[].class);
    }

    private final ThreadLocal<WeakReference<ThreadBuffer>> local = new ThreadLocal<>();
    private final ThreadBuffer[] byThreadId = new ThreadBuffer[BY_THREAD_ID_SLOTS];

    /** @return the buffer of thread {@code t} (the current thread), or null when it has none yet */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    ThreadBuffer find(Thread t) {
        ThreadBuffer b = byThreadId[(int) t.getId() & BY_THREAD_ID_MASK]; // racy read: owner is a final field
        if (b != null && b.isOwnedBy(t)) {
            return b;
        }
        WeakReference<ThreadBuffer> ref = local.get();
        return ref == null ? null : ref.get();
    }

    /** On the owner thread, once its buffer is registered: makes {@link #find} answer it. */
    void remember(ThreadBuffer b) {
        local.set(new WeakReference<>(b));
        int slot = (int) b.threadId & BY_THREAD_ID_MASK;
        ThreadBuffer taken = (ThreadBuffer) Slots.BY_THREAD_ID.getVolatile(byThreadId, slot);
        if (taken == null || taken.ownerDead()) {
            Slots.BY_THREAD_ID.compareAndSet(byThreadId, slot, taken, b); // lost a race: the ThreadLocal path serves
        }
    }

    /** An unregistered buffer leaves its slot (when it holds one). */
    void forget(ThreadBuffer b) {
        Slots.BY_THREAD_ID.compareAndSet(byThreadId, (int) b.threadId & BY_THREAD_ID_MASK, b, null);
    }
}
