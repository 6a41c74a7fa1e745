package io.memscope.error;

import java.util.Objects;

/**
 * The one exception type of memscope. Every failure carries a {@link Category category}, a
 * {@link Severity severity} and whether the caller can recover from it (retry, skip the item, use a
 * default) or must give up the operation.
 *
 * <p>Code that runs inside a user's JVM never lets one of these escape into the application: it reports it to
 * memscope's failure counter ({@code io.memscope.internal.error.Failures}), which counts it and carries on (or
 * throws, in strict mode, for tests). Tools outside the application (the CLI, analysis) throw it and print its
 * {@link #getMessage() message} to the user.
 */
public class MemscopeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Category category;
    private final Severity severity;
    private final boolean recoverable;

    public MemscopeException(Category category, Severity severity, boolean recoverable, String message) {
        this(category, severity, recoverable, message, null);
    }

    public MemscopeException(Category category, Severity severity, boolean recoverable, String message,
                             Throwable cause) {
        super(message, cause);
        this.category = Objects.requireNonNull(category, "category");
        this.severity = Objects.requireNonNull(severity, "severity");
        this.recoverable = recoverable;
    }

    /**
     * Counts a failure of code running inside the application instead of throwing it there: memscope's modules that
     * live next to the application (memscope-ffm's tracking arena) report through this, as core does. The count
     * per {@link Category} (INTERNAL for anything but a MemscopeException) is in the end-of-run report; the
     * first messages are kept with {@code where}. In strict mode ({@code -Dmemscope.strict=true}, for tests) the
     * failure is thrown to the caller instead.
     *
     * @param where a short name of the place, for the report (for example {@code "ffm.bridge"})
     * @param failure what went wrong
     */
    public static void report(String where, Throwable failure) {
        io.memscope.internal.error.Failures.report(where, failure);
    }

    /** A problem with memory tracking input (bad size, double free, unknown owner): recoverable, medium. */
    public static MemscopeException memory(String message) {
        return new MemscopeException(Category.MEMORY, Severity.MEDIUM, true, message);
    }

    /** A bad option, name or limit given by the user: not recoverable until the user fixes it. */
    public static MemscopeException configuration(String message) {
        return new MemscopeException(Category.CONFIGURATION, Severity.HIGH, false, message);
    }

    /** A file memscope writes or reads is damaged or cannot be written. */
    public static MemscopeException export(String message, Throwable cause) {
        return new MemscopeException(Category.EXPORT, Severity.HIGH, false, message, cause);
    }

    /** An analysis could not complete. */
    public static MemscopeException analysis(String message, Throwable cause) {
        return new MemscopeException(Category.ANALYSIS, Severity.HIGH, true, message, cause);
    }

    /** The OS or the JVM refused something (I/O, attach, mmap). */
    public static MemscopeException system(String message, Throwable cause) {
        return new MemscopeException(Category.SYSTEM, Severity.HIGH, false, message, cause);
    }

    /** A bug in memscope. */
    public static MemscopeException internal(String message, Throwable cause) {
        return new MemscopeException(Category.INTERNAL, Severity.CRITICAL, false, message, cause);
    }

    public final Category category() {
        return category;
    }

    public final Severity severity() {
        return severity;
    }

    /** @return true if the operation can be retried, skipped or defaulted; false if it must be abandoned */
    public final boolean recoverable() {
        return recoverable;
    }

    @Override
    public String toString() {
        return "MemscopeException[" + category + "/" + severity + (recoverable ? ", recoverable" : "") + "]: "
                + getMessage();
    }

    /** How bad a failure is, from a warning to a bug. */
    public enum Severity {
        /** A warning or a partial result: the data is still usable. */
        LOW,
        /** An operation failed; memscope carries on without it. */
        MEDIUM,
        /** A whole feature failed (an analysis, an export); the rest still works. */
        HIGH,
        /** memscope itself is broken; the results may be wrong. */
        CRITICAL
    }

    /** What part of memscope a failure belongs to (memscope-rs's error kinds). */
    public enum Category {
        /** Tracking memory: bad sizes, double frees, unknown addresses or owners, a full store. */
        MEMORY,
        /** Analysing recorded data: a snapshot, a query, a report. */
        ANALYSIS,
        /** Writing or reading a file memscope owns: recordings, event rings, report.json, traces. */
        EXPORT,
        /** Options, environment variables, names, limits given by the user. */
        CONFIGURATION,
        /** The operating system or the JVM: I/O, attach, memory mapping, missing JDK features. */
        SYSTEM,
        /** A bug in memscope itself. */
        INTERNAL
    }
}
