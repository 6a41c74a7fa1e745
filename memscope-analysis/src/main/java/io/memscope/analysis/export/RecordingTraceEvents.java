package io.memscope.analysis.export;

import io.memscope.analysis.Report;
import io.memscope.analysis.Timeline;
import io.memscope.recording.GcRecord;
import java.io.IOException;
import java.io.Writer;

/**
 * The report's timeline as a Chrome trace ({@link ChromeTraceWriter}): counter tracks per bucket:
 * {@code memscope heap} (heap in use and held after the last collection, committed), {@code memscope allocation}
 * (bytes allocated in the bucket), {@code memscope native} (outstanding), and each collection as a complete event
 * (category {@code memscope.gc}). Timestamps are on the recorded JVM's {@code System.nanoTime()} clock, with its pid:
 * the same time base and process as {@code memscope trace}, so both files open side by side in one Perfetto session.
 */
public final class RecordingTraceEvents {
    private RecordingTraceEvents() {
    }

    public static void write(Report r, long pid, Writer out) throws IOException {
        ChromeTraceWriter t = new ChromeTraceWriter(out);
        t.metadata("process_name", pid, 0, a -> a.field("name", "memscope timeline (pid " + pid + ")"));
        String damaged = ExportDamage.note(r);
        if (damaged != null) { // shown with the process in the trace viewers
            t.metadata("process_labels", pid, 0, a -> a.field("labels", damaged));
        }
        Timeline tl = r.timeline();
        long start = tl.startNanos();
        int i = 0;
        for (Timeline.Bucket k : tl.buckets()) {
            long ts = start + i++ * tl.bucketNanos();
            t.counter("memscope heap", pid, 0, ts, a -> a.field("heapUsedBytes", k.heapUsedBytes())
                    .field("heldBytes", k.heldBytes()).field("heapCommittedBytes", k.heapCommittedBytes()));
            t.counter("memscope allocation", pid, 0, ts, a -> a.field("allocatedBytes", k.allocatedBytes()));
            t.counter("memscope native", pid, 0, ts,
                    a -> a.field("nativeOutstandingBytes", k.nativeOutstandingBytes()));
        }
        for (GcRecord g : r.gc().collections()) {
            t.complete(g.name() == null ? "GC" : g.name(), "memscope.gc", pid, 0, g.startNanos(), g.durationNanos(),
                    a -> a.field("cause", g.cause() == null ? "" : g.cause())
                            .field("heapUsedBeforeBytes", g.heapUsedBefore())
                            .field("heapUsedAfterBytes", g.heapUsedAfter()));
        }
        t.end();
    }
}
