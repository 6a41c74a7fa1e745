package io.memscope.analysis.export;

import io.memscope.analysis.Report;
import io.memscope.analysis.Timeline;
import io.memscope.analysis.json.JsonWriter;
import io.memscope.recording.GcRecord;
import java.io.IOException;
import java.io.Writer;
import java.util.Locale;

/**
 * The report's timeline as Chrome trace-event JSON (the array form Perfetto and chrome://tracing load): counter
 * tracks ({@code "ph":"C"}) per bucket: {@code memscope heap} (heap in use and held after the last collection,
 * committed), {@code memscope allocation} (bytes allocated in the bucket), {@code memscope native} (outstanding),
 * and each collection as a complete event ({@code "ph":"X"}). Timestamps are microseconds with three decimals on the
 * recorded JVM's {@code System.nanoTime()} clock, with its pid: the same time base and process as
 * {@code memscope trace}, so both files open side by side in one Perfetto session.
 */
public final class TimelineTrace {
    private TimelineTrace() {
    }

    public static void write(Report r, long pid, Writer out) throws IOException {
        StringBuilder b = new StringBuilder(64 * 1024);
        b.append("[\n");
        b.append("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":").append(pid)
                .append(",\"tid\":0,\"args\":{\"name\":\"memscope timeline (pid ").append(pid).append(")\"}}");
        String damaged = ExportDamage.note(r);
        if (damaged != null) { // shown with the process in the trace viewers
            b.append(",\n{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":").append(pid)
                    .append(",\"tid\":0,\"args\":{\"labels\":").append(JsonWriter.quote(damaged)).append("}}");
        }
        Timeline t = r.timeline();
        long start = t.startNanos();
        int i = 0;
        for (Timeline.Bucket k : t.buckets()) {
            long ts = start + i++ * t.bucketNanos();
            counter(b, "memscope heap", pid, ts, "heapUsedBytes", k.heapUsedBytes(), "heldBytes", k.heldBytes(),
                    "heapCommittedBytes", k.heapCommittedBytes());
            counter(b, "memscope allocation", pid, ts, "allocatedBytes", k.allocatedBytes());
            counter(b, "memscope native", pid, ts, "nativeOutstandingBytes", k.nativeOutstandingBytes());
        }
        for (GcRecord g : r.gc().collections()) {
            b.append(",\n{\"name\":").append(JsonWriter.quote(g.name() == null ? "GC" : g.name()))
                    .append(",\"cat\":\"memscope.gc\",\"ph\":\"X\",\"pid\":").append(pid).append(",\"tid\":0")
                    .append(",\"ts\":").append(micros(g.startNanos())).append(",\"dur\":")
                    .append(micros(g.durationNanos())).append(",\"args\":{\"cause\":")
                    .append(JsonWriter.quote(g.cause() == null ? "" : g.cause())).append(",\"heapUsedBeforeBytes\":")
                    .append(g.heapUsedBefore()).append(",\"heapUsedAfterBytes\":").append(g.heapUsedAfter())
                    .append("}}");
        }
        b.append("\n]\n");
        out.write(b.toString());
    }

    private static void counter(StringBuilder b, String name, long pid, long ts, Object... kv) {
        b.append(",\n{\"name\":\"").append(name).append("\",\"ph\":\"C\",\"pid\":").append(pid)
                .append(",\"tid\":0,\"ts\":").append(micros(ts)).append(",\"args\":{");
        for (int i = 0; i < kv.length; i += 2) {
            b.append(i == 0 ? "" : ",").append('"').append(kv[i]).append("\":").append(kv[i + 1]);
        }
        b.append("}}");
    }

    static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1000.0);
    }
}
