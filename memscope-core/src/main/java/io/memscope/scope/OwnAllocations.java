package io.memscope.scope;

/**
 * Leaves memscope's own allocations out of the allocated bytes of the scopes open on the current thread: memscope
 * API code that allocates (pool leases, tracked-object records) runs between {@link #begin()} and {@link #end}.
 * Not for applications; it costs two reads of the thread's allocated-bytes counter when a scope of the global
 * tracker is open on the thread, nothing otherwise.
 */
public final class OwnAllocations {
    private OwnAllocations() {
    }

    /** @return a token for {@link #end}: the thread's allocated bytes now, or -1 when no scope is open */
    public static long begin() {
        return ScopeTracker.global().ownBegin();
    }

    /** Counts what the thread allocated since {@link #begin()} as memscope's own. */
    public static void end(long token) {
        if (token >= 0) {
            ScopeTracker.global().ownEnd(token);
        }
    }
}
