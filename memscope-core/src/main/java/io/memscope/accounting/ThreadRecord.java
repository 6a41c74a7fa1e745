package io.memscope.accounting;

import java.lang.ref.WeakReference;

/**
 * A thread known to one registry: found through the registry's ThreadLocal, and listed (weakly) so that readers
 * see its rows and the reaper aggregates its statistics when the thread has ended.
 */
final class ThreadRecord {
    final long threadId;
    final WeakReference<Thread> thread;
    private final String nameAtStart;
    /** The thread's current owner (its account since the last switch). Written by the thread only. */
    volatile Owner segment;
    /** Accounting enabled for this thread (set by the thread itself or by another one). */
    volatile boolean enabled = true;
    /**
     * The registry truncate generation this thread's stats were last rebased to. Written by the thread (or by the
     * reaper once it ended); readers on other threads read it racily (an int is never torn) to decide whether to
     * show the thread's values rebased.
     */
    int generation;
    /** Scratch for watermark deltas, used only by this thread (or by the reaper once the thread has ended). */
    final long[] delta = new long[2];

    ThreadRecord(Thread t, int generation) {
        this.threadId = ThreadIds.of(t);
        this.thread = new WeakReference<>(t);
        this.nameAtStart = t.getName();
        this.generation = generation;
    }

    /** @return true if this is the record of {@code t}, whose {@link ThreadIds#of id} is {@code id} */
    boolean isThread(Thread t, long id) {
        return ThreadIds.GENUINE ? threadId == id : thread.get() == t;
    }

    /** @return true if this is the current thread's record */
    boolean isCurrentThread() {
        Thread t = Thread.currentThread();
        return isThread(t, ThreadIds.of(t));
    }

    String threadName() {
        Thread t = thread.get();
        return t == null ? nameAtStart : t.getName();
    }

    /**
     * True once the thread has terminated. {@code isAlive() == false} happens-after every action of the thread
     * (JLS 17.4.4), so its plain stats can then be read and aggregated by another thread; a cleared reference
     * means the Thread object was collected, long after it terminated.
     */
    boolean ended() {
        Thread t = thread.get();
        return t == null || !t.isAlive();
    }
}
