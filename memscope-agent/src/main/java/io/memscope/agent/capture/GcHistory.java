package io.memscope.agent.capture;

import io.memscope.recording.GcRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The GC records of a capture as the MXBean serves them ({@code gcSince}): numbered 0, 1, ... in the order they
 * became final, the latest {@link #kept()} kept (older ones are counted, not kept: a reader that fell that far behind
 * gets the oldest kept). Thread-safe.
 *
 * <p>How many are kept follows the heap: {@value #MOST} (about 0.5 MiB with their strings) from a 32 MiB heap up,
 * one per 8 KiB of heap below it, at least {@value #FEWEST}. A program that lives in a few MiB collects hundreds of
 * times a second; a ring sized for large heaps would take a tenth of its heap.
 */
final class GcHistory {
    static final int MOST = 4096;
    static final int FEWEST = 256;

    private final GcRecord[] ring;
    private long count;

    /** A history sized for this JVM's heap. */
    GcHistory() {
        this(Runtime.getRuntime().maxMemory());
    }

    /** @param maxHeapBytes the heap's maximum, bytes ({@code Long.MAX_VALUE} when unbounded) */
    GcHistory(long maxHeapBytes) {
        ring = new GcRecord[(int) Math.max(FEWEST, Math.min(MOST, maxHeapBytes >> 13))];
    }

    /** @return how many records are kept */
    int kept() {
        return ring.length;
    }

    synchronized void add(GcRecord r) {
        ring[(int) (count % ring.length)] = r;
        count++;
    }

    /** @return records added so far */
    synchronized long count() {
        return count;
    }

    /** @return the records after the first {@code from}, at most {@code max}, oldest first */
    synchronized List<GcRecord> since(long from, int max) {
        long a = Math.max(Math.max(0, from), count - ring.length);
        long b = Math.min(count, a + Math.max(0, max));
        List<GcRecord> out = new ArrayList<>((int) Math.max(0, b - a));
        for (long i = a; i < b; i++) {
            out.add(ring[(int) (i % ring.length)]);
        }
        return out;
    }
}
