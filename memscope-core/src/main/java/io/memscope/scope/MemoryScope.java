package io.memscope.scope;

import java.util.concurrent.Callable;
import java.util.concurrent.Executor;

/**
 * An open scope: a named region of one thread's work whose time and allocated memory are counted under its path
 * (memscope-rs's scope guard). Entered with {@code Memscope.scope(name)} or {@link ScopeTracker#enter}, closed with
 * try-with-resources:
 * <pre>{@code
 * try (MemoryScope request = Memscope.scope("request")) {
 *     try (MemoryScope parse = Memscope.scope("parse")) {      // path request/parse
 *         ...
 *     }
 *     executor.submit(request.wrap(() -> render(doc)));        // runs as request on the pool's thread
 * }
 * }</pre>
 *
 * <p>{@link #close()} never throws: closing a scope while inner scopes are still open closes those first
 * (counted as out-of-order exits), closing it twice or on another thread is ignored (counted). A handle is one
 * object per entry; keeping it after close is harmless.
 */
public final class MemoryScope implements AutoCloseable {
    /** The handle of a scope that could not be entered (too deep): closing it does nothing. */
    static final MemoryScope NONE = new MemoryScope(null, null, 0, null);

    final ScopeTracker tracker;
    final ThreadScopes frames;
    final int depth;
    final PathNode node;

    MemoryScope(ScopeTracker tracker, ThreadScopes frames, int depth, PathNode node) {
        this.tracker = tracker;
        this.frames = frames;
        this.depth = depth;
        this.node = node;
    }

    /** Exits the scope (and any scope still open inside it). Never throws; idempotent. */
    @Override
    public void close() {
        if (frames != null) {
            tracker.exit(this);
        }
    }

    /** @return the full path, e.g. {@code request/parse} ({@code ""} for a scope that could not be entered) */
    public String path() {
        return node == null ? ScopeText.EMPTY : node.path;
    }

    /** @return the scope's own name, the last part of its path */
    public String name() {
        return node == null ? ScopeText.EMPTY : node.name;
    }

    /** @return 1 for a root scope, 2 for a scope inside it, ... (0 for a scope that could not be entered) */
    public int depth() {
        return node == null ? 0 : node.depth;
    }

    /** @return the path of the enclosing scope, {@code ""} for a root scope */
    public String parentPath() {
        return node == null || node.parent == null ? ScopeText.EMPTY : node.parent.path;
    }

    /**
     * @return a task that runs {@code task} inside this scope's path on whatever thread runs it: its time and
     *         allocated bytes count under this path (as a task, see {@link ScopeSnapshot.PathStats#tasks()}), and scopes it
     *         opens nest below it. Run on the thread that is inside this very path already, it just runs.
     */
    public Runnable wrap(Runnable task) {
        return node == null ? task : new ScopedTask.OfRunnable(tracker, node, task);
    }

    /** @return {@code task} running inside this scope's path, as {@link #wrap(Runnable)} */
    public <V> Callable<V> wrap(Callable<V> task) {
        return node == null ? task : new ScopedTask.OfCallable<>(tracker, node, task);
    }

    /** @return an executor that runs every task inside this scope's path ({@link #wrap(Runnable)}) on {@code e} */
    public Executor wrap(Executor e) {
        return node == null ? e : task -> e.execute(wrap(task));
    }

    @Override
    public String toString() {
        return ScopeText.describe(this, path());
    }
}
