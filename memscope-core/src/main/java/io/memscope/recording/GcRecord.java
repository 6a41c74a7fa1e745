package io.memscope.recording;

/**
 * One garbage collection.
 *
 * @param startNanos        when it started, {@link System#nanoTime()} ns of the recorded JVM
 * @param durationNanos     how long it took, ns
 * @param name              collector or collection name, for example {@code G1 Young Generation}; null if unknown
 * @param cause             cause, for example {@code G1 Evacuation Pause}; null if unknown
 * @param heapUsedBefore    heap bytes in use before the collection
 * @param heapUsedAfter     heap bytes in use after the collection
 * @param heapCommitted     heap bytes committed after the collection
 */
public record GcRecord(long startNanos, long durationNanos, String name, String cause, long heapUsedBefore,
                       long heapUsedAfter, long heapCommitted) {
}
