package io.memscope.agent.capture;

import io.memscope.internal.recording.RecordingWriter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The function profile of one capture (the Lua memory profiler's per-function profile): every thread's {@link
 * FunctionFrames}, and the sums of the threads that ended. At every flush of the recording, the cumulative figures of
 * each (function, call site) that changed since the last flush go into a FUNCTIONS block (later entries supersede
 * earlier ones), so that a JVM killed mid-run leaves its profile up to its last flush.
 */
final class FunctionProfile {
    private final List<FunctionFrames> threads = new ArrayList<>();
    private final Map<Long, long[]> ended = new HashMap<>();
    private final Map<Long, long[]> written = new HashMap<>();

    /** Registers a thread's frames (the thread itself, on its first profiled call). */
    synchronized void add(FunctionFrames f) {
        threads.add(f);
    }

    /** Writes the figures that changed since the last call (the recording stream's drain). */
    synchronized void drainTo(RecordingWriter w) {
        Map<Long, long[]> now = new HashMap<>();
        for (Map.Entry<Long, long[]> e : ended.entrySet()) {
            now.put(e.getKey(), e.getValue().clone());
        }
        for (Iterator<FunctionFrames> it = threads.iterator(); it.hasNext(); ) {
            FunctionFrames f = it.next();
            Thread t = f.thread.get();
            boolean dead = t == null || !t.isAlive(); // then its figures are final (happens-before isAlive)
            FunctionFrames.Table table = f.table;
            for (int i = 0; i < table.keys.length; i++) {
                long key = table.keys[i];
                if (key != 0) {
                    add(now, key, table.values, i * FunctionFrames.STRIDE);
                    if (dead) {
                        add(ended, key, table.values, i * FunctionFrames.STRIDE);
                    }
                }
            }
            if (dead) {
                it.remove();
            }
        }
        for (Map.Entry<Long, long[]> e : now.entrySet()) {
            long[] v = e.getValue();
            long[] before = written.get(e.getKey());
            if (before != null && java.util.Arrays.equals(before, v)) {
                continue;
            }
            int fid = (int) (e.getKey() >>> 32);
            int sid = (int) (long) e.getKey();
            FunctionTable.Function fn = FunctionTable.function(fid);
            FunctionTable.CallSite site = FunctionTable.site(sid);
            if (fn == null) {
                continue;
            }
            w.functionStats(fn.name, fn.descriptor, site == null ? null : site.frame, v[FunctionFrames.CALLS],
                    v[FunctionFrames.RECURSIVE], v[FunctionFrames.TOTAL_NS], v[FunctionFrames.MAX_NS],
                    v[FunctionFrames.ALLOCATED], v[FunctionFrames.NO_ALLOCATION]);
            written.put(e.getKey(), v);
        }
    }

    private static void add(Map<Long, long[]> into, long key, long[] values, int offset) {
        long[] v = into.computeIfAbsent(key, k -> new long[FunctionFrames.STRIDE]);
        for (int f = 0; f < FunctionFrames.STRIDE; f++) {
            long x = values[offset + f];
            if (f == FunctionFrames.MAX_NS) {
                v[f] = Math.max(v[f], x);
            } else {
                v[f] += x;
            }
        }
    }
}
