package io.memscope.recording;

/**
 * Something wrong the capture observed, for example a double free or a free of an unknown address.
 *
 * @param kind           short kind name, for example {@code double-free}
 * @param timestampNanos when, {@link System#nanoTime()} ns of the recorded JVM
 * @param address        the address concerned, 0 if none
 * @param size           the size concerned in bytes, 0 if none
 * @param threadId       the thread that observed it, 0 if unknown
 * @param stackId        the stack at that point (id in the stack table), 0 if none
 * @param detail         free text, or null
 */
public record Anomaly(String kind, long timestampNanos, long address, long size, long threadId, long stackId,
                      String detail) {
}
