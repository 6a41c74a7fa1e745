package io.memscope;

import io.memscope.pool.PoolTracker;
import io.memscope.scope.MemoryScope;
import io.memscope.scope.ScopeSnapshot;
import io.memscope.scope.ScopeTracker;
import io.memscope.track.ObjectTracker;

import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;

/**
 * memscope's API for application code: scopes (memory and time per named region of work, after memscope-rs's scope
 * tracker), named objects (memscope-rs's {@code track_var}) and pooled resources (borrow / return, leaks). Everything
 * works in-process without an agent; when the memscope agent captures, it also receives what happens here and writes it
 * into its recording (docs/scopes.md).
 *
 * <pre>{@code
 * try (MemoryScope s = Memscope.scope("import-batch")) {
 *     ...                                    // time and allocated bytes count under import-batch
 *     pool.submit(s.wrap(() -> parse(f)));   // and so does this task, on the pool's thread
 * }
 * Memscope.track("userCache", cache);        // its type, size, age; collected or not
 * PoolTracker db = Memscope.pool("db");      // PoolTracker.Lease l = db.borrow(conn, 0); ... l.release();
 * }</pre>
 *
 * None of these methods throws into the application (a pool name that is not valid is the one configuration
 * error); misuse is counted. See docs/scopes.md.
 */
public final class Memscope {
    private Memscope() {
    }

    /**
     * Enters a scope on the current thread, nested in the innermost scope open there; close it (try-with-resources).
     *
     * @param name the scope's name (its path is the enclosing path, {@code /}, this name)
     */
    public static MemoryScope scope(String name) {
        return ScopeTracker.global().enter(name);
    }

    /** @return the figures of every scope path so far */
    public static ScopeSnapshot scopes() {
        return ScopeTracker.global().snapshot();
    }

    /** @return {@code task} running inside the current scope path on any thread ({@code task} when none is open) */
    public static Runnable wrap(Runnable task) {
        return ScopeTracker.global().wrap(task);
    }

    /** @return {@code task} running inside the current scope path on any thread ({@code task} when none is open) */
    public static <V> Callable<V> wrap(Callable<V> task) {
        return ScopeTracker.global().wrap(task);
    }

    /** @return {@code executor} whose tasks run inside the scope path open when each was submitted */
    public static ExecutorService scoped(ExecutorService executor) {
        return ScopeTracker.global().scoped(executor);
    }

    /** @return {@code executor} whose tasks run inside the scope path open when each was submitted */
    public static Executor scoped(Executor executor) {
        ScopeTracker t = ScopeTracker.global();
        return task -> executor.execute(t.wrap(task));
    }

    /** Follows {@code object} under {@code name} until it is collected, without keeping it alive. */
    public static void track(String name, Object object) {
        ObjectTracker.global().track(name, object);
    }

    /** @return the tracker of the pool named {@code name} (created on first use) */
    public static PoolTracker pool(String name) {
        return PoolTracker.of(name);
    }

    /** @return the version memscope-core was built as, for example {@code 0.1.0-SNAPSHOT} ({@code unknown} if the build lost it) */
    public static String version() {
        return io.memscope.internal.version.BuildVersion.get();
    }
}
