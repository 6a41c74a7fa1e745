package io.memscope.pool;

import io.memscope.error.MemscopeException;
import io.memscope.recording.Anomaly;

/**
 * The strings of the pool classes, kept out of {@link PoolTracker}, {@link PoolTracker.Lease} and {@link LeaseRecord} for the
 * reason given in {@code io.memscope.scope.ScopeText}: a C2 compilation of their methods would otherwise turn their
 * unused literals into {@code String}s on the application's thread, inside its scopes.
 */
final class PoolText {
    static final String NULL;
    static final String BORROW;
    static final String RELEASE;
    static final String LEAK;
    static final String DOUBLE_RETURN;
    static final String UNKNOWN_RETURN;

    static {
        NULL = "null";
        BORROW = "pool.borrow";
        RELEASE = "pool.release";
        LEAK = Anomaly.Kind.POOL_LEAK.wireName();
        DOUBLE_RETURN = Anomaly.Kind.POOL_DOUBLE_RETURN.wireName();
        UNKNOWN_RETURN = Anomaly.Kind.POOL_UNKNOWN_RETURN.wireName();
    }

    private PoolText() {
    }

    static String typeOf(Object resource) {
        return resource == null ? NULL : resource.getClass().getTypeName();
    }

    static MemscopeException tooManyPools(String name, int max) {
        return MemscopeException.configuration("cannot track pool " + name + ": " + max + " pools are tracked already");
    }

    static void validate(String name) {
        if (name == null || name.isEmpty() || name.length() > 200) {
            throw MemscopeException.configuration("pool name must be 1 to 200 characters, was "
                    + (name == null ? "null" : "'" + (name.length() > 40 ? name.substring(0, 40) + "..." : name)
                    + "'"));
        }
    }

    /** @return whether a frame is memscope's own API (the walker retains class references), left out of stacks */
    static boolean ownFrame(StackWalker.StackFrame f) {
        Class<?> c = f.getDeclaringClass();
        return c == PoolTracker.class || c == PoolTracker.Lease.class || c == PoolText.class
                || c.getName().equals("io.memscope.Memscope");
    }

    static String frame(StackWalker.StackFrame f) {
        String file = f.getFileName();
        int line = f.getLineNumber();
        return f.getClassName() + "." + f.getMethodName() + "("
                + (file == null ? "Unknown Source" : line > 0 ? file + ":" + line : file) + ")";
    }

    static String describe(String what, String detail) {
        return what + "[" + detail + "]";
    }

    static String lease(String pool, long id) {
        return "Lease[" + pool + " #" + id + "]";
    }
}
