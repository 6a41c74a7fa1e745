package io.memscope.scope;

import io.memscope.internal.error.Failures;
import io.memscope.recording.Anomaly;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Every string the scope classes use, and the code that builds strings or runs once.
 *
 * <p>Why a class of its own: when C2 compiles a method, the thread that asked for the compilation first turns every
 * string literal of the method's class that was never used into a {@code String} (HotSpot's
 * {@code CompileBroker::compile_method} resolves the class's string constants). That thread is the application's,
 * inside a scope: a few hundred bytes would count as the scope's. The classes on the path of entering and exiting
 * ({@link ScopeTracker}, {@link MemoryScope}, {@link PathNode}, {@link StatsShard}, {@link ThreadScopes},
 * {@link ThreadAllocation}, {@link ScopedTask}) therefore hold no string literal at all (a test checks their
 * class files); the strings live here as fields assigned in the static initializer (not compile-time constants, so
 * that javac does not copy them into the classes that use them).
 */
final class ScopeText {
    static final String EMPTY;
    static final String OTHER;
    static final String INVALID;
    static final String ENTER;
    static final String EXIT;
    static final String MAX_PATHS_PROPERTY;
    static final String OUT_OF_ORDER;
    static final String STALE;
    static final String FOREIGN;

    static {
        EMPTY = "";
        OTHER = "(other)";
        INVALID = "(invalid)";
        ENTER = "scopes.enter";
        EXIT = "scopes.exit";
        MAX_PATHS_PROPERTY = "memscope.scopes.maxPaths";
        OUT_OF_ORDER = Anomaly.Kind.SCOPE_OUT_OF_ORDER.wireName();
        STALE = Anomaly.Kind.SCOPE_STALE_CLOSE.wireName();
        FOREIGN = Anomaly.Kind.SCOPE_FOREIGN_CLOSE.wireName();
    }

    private ScopeText() {
    }

    static String childPath(String parentPath, String name) {
        return parentPath + "/" + name;
    }

    static String spanName(String path) {
        return "scope/" + path;
    }

    static String describe(Object o, String detail) {
        return o.getClass().getSimpleName() + "[" + detail + "]";
    }

    static String describeTracker(int paths, int maxPaths) {
        return "ScopeTracker[" + paths + " paths of at most " + maxPaths + "]";
    }

    static IllegalArgumentException badMaxPaths(int maxPaths) {
        return new IllegalArgumentException("maxPaths must be at least 1, was " + maxPaths);
    }

    /** @return {@code -Dmemscope.scopes.maxPaths}, or the default (a bad value is reported) */
    static int maxPathsProperty(int otherwise) {
        String v = System.getProperty(MAX_PATHS_PROPERTY);
        if (v != null) {
            try {
                int n = Integer.parseInt(v.trim());
                if (n >= 1) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // below
            }
            Failures.report("scopes.maxPaths", new IllegalArgumentException(
                    MAX_PATHS_PROPERTY + "='" + v + "' is not a positive integer; using " + otherwise));
        }
        return otherwise;
    }

    /** @return {@code Thread.isVirtual()} (JDK 21+), or null before */
    static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    /**
     * Runs every path of entering and exiting once, on a tracker of its own: loading and linking memscope's classes
     * allocates (class mirrors, method handles), which must not happen for the first time inside an application's
     * scope and count as its bytes.
     */
    static void warmUp(ScopeTracker t) {
        try {
            for (int i = 0; i < 3; i++) {
                MemoryScope a = t.enter("a");
                MemoryScope b = t.enter("b" + i); // new paths, then a folded one
                try (MemoryScope c = t.enter("c")) {
                    c.path();
                }
                a.close(); // b out of order
                b.close(); // stale
            }
            t.enter(null).close();
            MemoryScope a = t.enter("a");
            a.wrap(() -> { }).run();
            new ScopedTask.OfRunnable(t, t.other, () -> { }).run();
            a.close();
            t.snapshot();
        } catch (Throwable e) {
            Failures.report("scopes.warmUp", e);
        }
    }
}
