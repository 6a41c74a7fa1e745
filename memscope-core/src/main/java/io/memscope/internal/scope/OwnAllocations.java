package io.memscope.internal.scope;

/**
 * Leaves memscope's own allocations out of the allocated bytes of the scopes open on the current thread: memscope
 * API code that allocates (pool leases, tracked-object records) runs between {@link #begin()} and {@link #end}.
 * Not an API: the scope package installs its {@link Counter} when the global scope tracker is created; until then
 * no scope can be open and both methods do nothing. It costs two reads of the thread's allocated-bytes counter
 * when a scope of the global tracker is open on the thread, nothing otherwise.
 */
public final class OwnAllocations {
    /** What the global scope tracker does for {@link #begin()} and {@link #end}. */
    public interface Counter {
        /** @return the thread's allocated bytes now when a scope is open on it, else -1 */
        long begin();

        /** Counts what the thread allocated since {@code token} (not -1) as memscope's own. */
        void end(long token);
    }

    private static volatile Counter counter;

    private OwnAllocations() {
    }

    /** Installs the global scope tracker's counter (once, when that tracker is created). */
    public static void install(Counter c) {
        counter = c;
    }

    /** @return a token for {@link #end}: the thread's allocated bytes now, or -1 when no scope is open */
    public static long begin() {
        Counter c = counter;
        return c == null ? -1 : c.begin();
    }

    /** Counts what the thread allocated since {@link #begin()} as memscope's own. */
    public static void end(long token) {
        Counter c = counter;
        if (token >= 0 && c != null) {
            c.end(token);
        }
    }
}
