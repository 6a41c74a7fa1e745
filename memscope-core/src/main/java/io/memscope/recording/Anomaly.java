package io.memscope.recording;

/**
 * Something wrong the capture observed (and survived), for example a double free or a free of an unknown address.
 *
 * @param kind           short kind name, for example {@value #DOUBLE_FREE} or {@value #UNKNOWN_FREE}
 * @param timestampNanos when, {@link System#nanoTime()} ns of the recorded JVM
 * @param address        the address concerned, 0 if none
 * @param size           the size concerned in bytes, 0 if none or unknown
 * @param threadId       the thread that did it ({@code Thread.getId()}), 0 if unknown
 * @param stackId        the stack at that point (id in the stack table), 0 if none
 * @param detail         free text, or null
 */
public record Anomaly(String kind, long timestampNanos, long address, long size, long threadId, long stackId,
                      String detail) {
    /**
     * A native address freed before and not allocated again since: the agent did not pass the second free on to
     * the allocator.
     */
    public static final String DOUBLE_FREE = "double-free";
    /**
     * A free, by application code, of a native address never seen allocated while memscope was tracking (allocated
     * before it started, or bogus); passed on unchanged.
     */
    public static final String UNKNOWN_FREE = "unknown-free";
}
