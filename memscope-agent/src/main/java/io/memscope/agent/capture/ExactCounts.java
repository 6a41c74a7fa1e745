package io.memscope.agent.capture;

import io.memscope.internal.recording.RecordingWriter;
import io.memscope.launch.MetadataKeys;
import java.util.HashMap;
import java.util.Map;

/**
 * Exact mode's per-site counts of one capture (allocations and bytes of every allocation the bytecode hooks saw).
 * Each thread counts into its own {@link ThreadState#counts} (no atomics on the hot path); the counters of threads
 * that ended are folded here by the background thread, and every thread's at the end.
 *
 * <p>Only its own thread ever writes a thread's counters (they are never reset by another thread, which could race
 * with the owner growing its array and bring an earlier capture's counts back). A thread's counters run on across
 * captures; this capture counts from a baseline: each thread's counters when it started (none for threads that
 * appear later). Site ids are the JVM's ({@link SiteTable}), so a counter means the same site in every capture, also
 * when code instrumented for an earlier capture (a method still running its old version, a compiled loop that sees
 * the switch late) counts into it.
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
    /** Each thread's counters when the capture started (same layout); guarded by {@link #folded}. */
    private final Map<ThreadState, long[]> baselines = new HashMap<>();
    /** Site id to {allocations, bytes} as last written by a snapshot; guarded by this. */
    private final Map<Integer, long[]> written = new HashMap<>();
    /** The final totals are written: no snapshot follows them; guarded by this. */
    private boolean finalWritten;

    /** Starts from zero: what every thread counted so far belongs to earlier captures (its baseline). */
    ExactCounts() {
        synchronized (folded) {
            for (ThreadState ts : ThreadState.ALL) {
                long[] c = ts.counts;
                if (c.length > 0) {
                    baselines.put(ts, c.clone());
                }
            }
        }
    }

    /** Adds what a thread that ended counted in this capture to the totals (background thread). */
    void fold(ThreadState ts) {
        synchronized (folded) {
            addCounted(ts, folded);
            baselines.remove(ts);
        }
    }

    /** Adds what {@code ts} counted since its baseline into {@code into}; holds {@link #folded}'s lock. */
    private void addCounted(ThreadState ts, Map<Integer, long[]> into) {
        long[] c = ts.counts; // the owner's plain counters: recent values (64-bit JVMs tear no long)
        long[] base = baselines.get(ts);
        int based = base == null ? 0 : base.length;
        for (int i = 0; i + 1 < c.length; i += 2) {
            long n = c[i];
            long bytes = c[i + 1];
            if (i + 1 < based) {
                n -= base[i];
                bytes -= base[i + 1];
            }
            if (n != 0) {
                long[] acc = into.get(i >> 1); // no lambda: nothing to bootstrap in the application's JVM
                if (acc == null) {
                    acc = new long[2];
                    into.put(i >> 1, acc);
                }
                acc[0] += n;
                acc[1] += bytes;
            }
        }
    }

    /**
     * @return site id to {allocations, bytes} counted in this capture so far: the threads that ended and what the
     *         running threads counted since the capture started (read while they keep counting)
     */
    Map<Integer, long[]> totals() {
        Map<Integer, long[]> now = new HashMap<>();
        synchronized (folded) {
            for (Map.Entry<Integer, long[]> e : folded.entrySet()) {
                now.put(e.getKey(), e.getValue().clone());
            }
            for (ThreadState ts : ThreadState.ALL) {
                addCounted(ts, now);
            }
        }
        return now;
    }

    /**
     * Writes the totals of the sites that changed since the last snapshot (their definitions first) and the time
     * of this one; threads keep counting meanwhile. Background thread.
     */
    synchronized void snapshotTo(RecordingStream rs, long nanos) {
        if (finalWritten) {
            return; // a late snapshot must not supersede the final totals
        }
        Map<Integer, long[]> now = totals();
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
        RecordingWriter w = rs.writer();
        synchronized (folded) {
            for (ThreadState ts : ThreadState.ALL) {
                addCounted(ts, folded);
            }
            baselines.clear();
            for (Map.Entry<Integer, long[]> e : folded.entrySet()) {
                rs.site(e.getKey());
                w.siteCount(e.getKey(), e.getValue()[0], e.getValue()[1]);
            }
            folded.clear();
        }
        w.metadata(MetadataKeys.SITE_COUNTS_NANOS, Long.toString(nanos));
    }
}
