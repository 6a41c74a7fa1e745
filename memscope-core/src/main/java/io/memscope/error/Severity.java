package io.memscope.error;

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
