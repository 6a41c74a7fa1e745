package io.memscope.agent.capture;

import io.memscope.internal.recording.RecordingWriter;
import java.util.HashMap;
import java.util.Map;

/**
 * Exact mode's per-site counts of one capture (allocations and bytes of every allocation the bytecode hooks saw).
 * Each thread counts into its own {@link ThreadState#counts} (no atomics on the hot path); the counters of threads
 * that ended are folded here by the background thread, and every thread's at the end.
 */
final class ExactCounts {
    /** Site id to {allocations, bytes}; guarded by itself. */
    private final Map<Integer, long[]> folded = new HashMap<>();

    /** Starts from zero: every thread's counters are dropped (they belong to an earlier capture). */
    ExactCounts() {
        for (ThreadState ts : ThreadState.ALL) {
            ts.counts = new long[0];
        }
    }

    /** Adds a thread's counters to the totals and zeroes them (a thread that ended, or the end of the capture). */
    void fold(ThreadState ts) {
        long[] c = ts.counts;
        synchronized (folded) {
            for (int i = 0; i + 1 < c.length; i += 2) {
                if (c[i] != 0) {
                    long[] acc = folded.get(i >> 1);
                    if (acc == null) {
                        acc = new long[2];
                        folded.put(i >> 1, acc);
                    }
                    acc[0] += c[i];
                    acc[1] += c[i + 1];
                }
            }
        }
        ts.counts = new long[0];
    }

    /** Folds every thread and writes each site's totals (its definition first) into the recording. */
    void writeTo(RecordingStream rs) {
        for (ThreadState ts : ThreadState.ALL) {
            fold(ts);
        }
        RecordingWriter w = rs.writer();
        synchronized (folded) {
            for (Map.Entry<Integer, long[]> e : folded.entrySet()) {
                rs.site(e.getKey());
                w.siteCount(e.getKey(), e.getValue()[0], e.getValue()[1]);
            }
            folded.clear();
        }
    }
}
