package io.memscope.error;

/** What part of memscope a failure belongs to (memscope-rs's error kinds). */
public enum ErrorCategory {
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
