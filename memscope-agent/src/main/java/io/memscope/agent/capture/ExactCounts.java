package io.memscope.agent.capture;

import io.memscope.internal.recording.RecordingWriter;
import io.memscope.recording.MetadataKeys;
import java.util.HashMap;
import java.util.Map;

/**
 * Exact mode's per-site counts of one capture (allocations and bytes of every allocation the bytecode hooks saw).
 * Each thread counts into its own {@link ThreadState#counts} (no atomics on the hot path); the counters of threads
 * that ended are folded here by the background thread, and every thread's at the end.
 *
 * <p>Snapshots: every ten flush periods the background thread writes the cumulative totals of the sites that changed
 * since the previous snapshot (a SITE_COUNTS block: a later entry of a site supersedes the earlier ones) and the
 * snapshot's time (metadata {@value MetadataKeys#SITE_COUNTS_NANOS}), so that a JVM killed before its end leaves its
 * exact counts as of its last snapshot. A snapshot reads the running threads' counters without stopping them: each
 * figure is one the thread had reached at some moment during the snapshot (a count and its bytes may be an
 * increment apart); the final totals at the end are exact.
 */
final class ExactCounts {
    /** Site id to {allocations, bytes}; guarded by itself. */
    private final Map<Integer, long[]> folded = new HashMap<>();
    /** Site id to {allocations, bytes} as last written by a snapshot; guarded by this. */
    private final Map<Integer, long[]> written = new HashMap<>();
    /** The final totals are written: no snapshot follows them; guarded by this. */
    private boolean finalWritten;

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

    /**
     * Writes the totals of the sites that changed since the last snapshot (their definitions first) and the time
     * of this one; threads keep counting meanwhile. Background thread.
     */
    synchronized void snapshotTo(RecordingStream rs, long nanos) {
        if (finalWritten) {
            return; // a late snapshot must not supersede the final totals
        }
        Map<Integer, long[]> now = new HashMap<>();
        synchronized (folded) {
            for (Map.Entry<Integer, long[]> e : folded.entrySet()) {
                now.put(e.getKey(), e.getValue().clone());
            }
            for (ThreadState ts : ThreadState.ALL) {
                long[] c = ts.counts; // the owner's plain counters: recent values (64-bit JVMs tear no long)
                for (int i = 0; i + 1 < c.length; i += 2) {
                    long n = c[i];
                    if (n != 0) {
                        long[] acc = now.get(i >> 1); // no lambda: nothing to bootstrap in the application's JVM
                        if (acc == null) {
                            acc = new long[2];
                            now.put(i >> 1, acc);
                        }
                        acc[0] += n;
                        acc[1] += c[i + 1];
                    }
                }
            }
        }
        RecordingWriter w = rs.writer();
        for (Map.Entry<Integer, long[]> e : now.entrySet()) {
            long[] v = e.getValue();
            long[] last = written.get(e.getKey());
            if (last != null && last[0] == v[0] && last[1] == v[1]) {
                continue;
            }
            rs.site(e.getKey());
            w.siteCount(e.getKey(), v[0], v[1]);
            written.put(e.getKey(), v);
        }
        w.metadata(MetadataKeys.SITE_COUNTS_NANOS, Long.toString(nanos));
    }

    /** Folds every thread and writes each site's final totals (its definition first) and their time. */
    synchronized void writeTo(RecordingStream rs, long nanos) {
        finalWritten = true;
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
        w.metadata(MetadataKeys.SITE_COUNTS_NANOS, Long.toString(nanos));
    }
}
