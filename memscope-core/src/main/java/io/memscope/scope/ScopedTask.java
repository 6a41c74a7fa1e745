package io.memscope.scope;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A task handed to another thread inside a scope path: when it runs, its thread enters the path (as a task
 * frame), runs it, and exits. Each run is an ownership move of the scope's work to the running thread (a MOVE
 * for the agent, with the thread that wrapped the task).
 */
abstract class ScopedTask {
    private static final AtomicLong IDS = new AtomicLong();

    final ScopeTracker tracker;
    final PathNode node;
    /** The thread that wrapped the task. */
    final long fromThreadId;
    /** Unique per wrapped task in this JVM (per copy of memscope-core). */
    final long id;

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    ScopedTask(ScopeTracker tracker, PathNode node) {
        this.tracker = tracker;
        this.node = node;
        this.fromThreadId = Thread.currentThread().getId();
        this.id = IDS.incrementAndGet();
    }

    @Override
    public String toString() {
        return ScopeText.describe(this, node.path);
    }

    static final class OfRunnable extends ScopedTask implements Runnable {
        private final Runnable task;

        OfRunnable(ScopeTracker tracker, PathNode node, Runnable task) {
            super(tracker, node);
            this.task = task;
        }

        @Override
        public void run() {
            MemoryScope s = tracker.enterTask(this);
            try {
                task.run();
            } finally {
                s.close();
            }
        }

    }

    static final class OfCallable<V> extends ScopedTask implements Callable<V> {
        private final Callable<V> task;

        OfCallable(ScopeTracker tracker, PathNode node, Callable<V> task) {
            super(tracker, node);
            this.task = task;
        }

        @Override
        public V call() throws Exception {
            MemoryScope s = tracker.enterTask(this);
            try {
                return task.call();
            } finally {
                s.close();
            }
        }

    }
}
