package io.memscope.internal.error;

import io.memscope.error.MemscopeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where code running inside the application reports what went wrong, instead of throwing into it.
 *
 * <p>Each report increments an exact counter per {@link MemscopeException.Category}; the first {@value #KEPT} messages are
 * kept verbatim for the end-of-run report. In strict mode the failure is thrown instead, so that a test sees it.
 *
 * <p>Strictness is JVM-wide for this copy of memscope, so no library may switch it: it comes from the system
 * property {@code memscope.strict=true}, read once when this class initializes, or from memscope's own code
 * ({@link #setStrict(boolean)} refuses any caller outside the {@code io.memscope} packages: the agent's
 * {@code strict=true}, memscope's tests). On the module path this package is not exported at all.
 *
 * <p>Thread-safe; reporting never allocates once the kept list is full, and never throws in non-strict mode.
 */
public final class Failures {
    /** How many failure messages are kept for the report; later ones are only counted. */
    public static final int KEPT = 64;

    /**
     * Per category. {@code AtomicLong}s, not an {@code AtomicLongArray}: the array's class initializer makes a
     * {@code VarHandle}, which spins method-handle classes at every agent start.
     */
    private static final AtomicLong[] COUNTS = newCounts(MemscopeException.Category.values().length);
    private static final List<String> MESSAGES = new ArrayList<>();
    private static volatile boolean strict = Boolean.getBoolean("memscope.strict");
    /** memscope's own packages; built at run time so that the agent's relocation leaves it alone. */
    private static final String OWN_PACKAGES = String.join(".", "io", "memscope", "");

    /** Made at the first {@link #setStrict}, not with this class: the agent loads this class at every start. */
    private static final class Caller {
        static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    }

    private Failures() {
    }

    private static AtomicLong[] newCounts(int n) {
        AtomicLong[] a = new AtomicLong[n];
        for (int i = 0; i < n; i++) {
            a[i] = new AtomicLong();
        }
        return a;
    }

    /**
     * In strict mode, reported failures are thrown to the caller instead of counted. For memscope's own code only
     * (the agent's {@code strict=true} option, tests).
     *
     * @throws IllegalCallerException when called from a class outside the {@code io.memscope} packages: a library
     *                                must not make memscope throw into the application
     */
    public static void setStrict(boolean value) {
        Class<?> caller = Caller.WALKER.getCallerClass();
        if (!caller.getName().startsWith(OWN_PACKAGES)) {
            throw new IllegalCallerException("memscope's strict mode is set by -Dmemscope.strict=true or the agent's "
                    + "strict=true option, not by " + caller.getName());
        }
        strict = value;
    }

    public static boolean isStrict() {
        return strict;
    }

    /**
     * Counts a failure that happened inside the application's JVM, and carries on. In strict mode throws it.
     *
     * @param where a short name of the place, for the report (for example {@code "agent.sampler"})
     * @param failure what went wrong
     */
    public static void report(String where, Throwable failure) {
        MemscopeException.Category category = failure instanceof MemscopeException
                ? ((MemscopeException) failure).category() : MemscopeException.Category.INTERNAL;
        COUNTS[category.ordinal()].incrementAndGet();
        if (strict) {
            if (failure instanceof RuntimeException) {
                throw (RuntimeException) failure;
            }
            if (failure instanceof Error) {
                throw (Error) failure;
            }
            throw MemscopeException.internal(where + ": " + failure, failure);
        }
        keep(where, failure);
    }

    private static void keep(String where, Throwable failure) {
        try {
            synchronized (MESSAGES) {
                if (MESSAGES.size() < KEPT) {
                    MESSAGES.add(where + ": " + failure);
                }
            }
        } catch (Throwable ignored) {
            // Out of memory while building the message: the count above is what matters.
        }
    }

    /** @return how many failures of this category were reported since start or the last {@link #reset()} */
    public static long count(MemscopeException.Category category) {
        return COUNTS[category.ordinal()].get();
    }

    /** @return how many failures were reported in all */
    public static long total() {
        long sum = 0;
        for (int i = 0; i < COUNTS.length; i++) {
            sum += COUNTS[i].get();
        }
        return sum;
    }

    /** @return the first {@value #KEPT} failure messages, oldest first */
    public static List<String> messages() {
        synchronized (MESSAGES) {
            return List.copyOf(MESSAGES);
        }
    }

    /** Clears counts and messages (tests, or a new recording). */
    public static void reset() {
        for (int i = 0; i < COUNTS.length; i++) {
            COUNTS[i].set(0);
        }
        synchronized (MESSAGES) {
            MESSAGES.clear();
        }
    }
}
