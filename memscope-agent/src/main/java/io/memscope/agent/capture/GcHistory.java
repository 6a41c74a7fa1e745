package io.memscope.agent.capture;

import io.memscope.recording.GcRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The GC records of a capture as the MXBean serves them ({@code gcSince}): numbered 0, 1, ... in the order they
 * became final, the latest {@value #KEPT} kept (older ones are counted, not kept: a reader that fell that far behind
 * gets the oldest kept). Thread-safe.
 */
final class GcHistory {
    static final int KEPT = 4096;

    private final GcRecord[] ring = new GcRecord[KEPT];
    private long count;

    synchronized void add(GcRecord r) {
        ring[(int) (count % KEPT)] = r;
        count++;
    }

    /** @return records added so far */
    synchronized long count() {
        return count;
    }

    /** @return the records after the first {@code from}, at most {@code max}, oldest first */
    synchronized List<GcRecord> since(long from, int max) {
        long a = Math.max(Math.max(0, from), count - KEPT);
        long b = Math.min(count, a + Math.max(0, max));
        List<GcRecord> out = new ArrayList<>((int) Math.max(0, b - a));
        for (long i = a; i < b; i++) {
            out.add(ring[(int) (i % KEPT)]);
        }
        return out;
    }
}
