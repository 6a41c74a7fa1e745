package io.memscope.analysis;

/**
 * Something wrong with native memory that memscope observed (and survived).
 *
 * @param kind      {@value #DOUBLE_FREE} or {@value #UNKNOWN_FREE}
 * @param address   the native address concerned
 * @param size      bytes concerned when known, else 0
 * @param stackId   id of the call stack in the capture's stack table, 0 if none
 * @param timeNanos when, on the capture's {@link System#nanoTime()} clock
 */
public record Anomaly(String kind, long address, long size, long stackId, long timeNanos) {
    /** The address was freed before and not allocated again since: the second free was not passed on. */
    public static final String DOUBLE_FREE = "double-free";
    /** The address was never seen allocated while memscope was tracking (allocated before it started, or bogus). */
    public static final String UNKNOWN_FREE = "unknown-free";
}
