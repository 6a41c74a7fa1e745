package io.memscope.accounting;

/**
 * Sets the current thread's user and host for a block, and restores the previous ones on {@link #close()}:
 * <pre>{@code
 * try (OwnerScope s = accounting.scope("alice", "eu-1")) {
 *     Owner o = accounting.alloc(cacheEntries, 4096);   // charged to alice@eu-1
 * }
 * }</pre>
 * Entering or leaving a scope that changes the account aggregates the thread's statistics into the account it
 * leaves (as MySQL does when a connection changes user), costing O(instruments the thread used) and one small
 * allocation; staying in the same account costs nothing. Must be closed on the thread that opened it.
 */
public final class OwnerScope implements AutoCloseable {
    private final MemoryAccounting registry;
    private final ThreadRecord record;
    private final Node previous;
    private boolean closed;

    OwnerScope(MemoryAccounting registry, ThreadRecord record, Node previous) {
        this.registry = registry;
        this.record = record;
        this.previous = previous;
    }

    /** Restores the user and host the thread had before this scope. Idempotent; never throws (non-strict). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        registry.closeScope(record, previous);
    }
}
