package io.memscope.analysis.html;

import io.memscope.analysis.ProcessMemory;
import io.memscope.analysis.json.JsonWriter;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The page's {@code processMemory}: report.json's samples (docs/formats/report-json.md, "processMemory") as columns,
 * {@code null} where a value is unknown, for the stacked chart of RSS by part ({@code page/process-memory.js}).
 */
final class ProcessMemoryPageData {
    private ProcessMemoryPageData() {
    }

    static void write(JsonWriter w, ProcessMemory pm) {
        w.name("processMemory");
        if (pm == null || pm.samples().isEmpty()) {
            w.nullValue();
            return;
        }
        List<ProcessMemory.Sample> s = pm.samples();
        w.beginObject().field("intervalMs", pm.intervalMs()).field("threadStacks", pm.threadStacks())
                .field("downsampled", s.size() < pm.measuredSamples());
        w.name("timeMs").beginArray();
        s.forEach(x -> w.value(x.timeMs()));
        w.endArray();
        column(w, "rssBytes", s, ProcessMemory.Sample::rssBytes);
        column(w, "heapUsedBytes", s, ProcessMemory.Sample::heapUsedBytes);
        column(w, "heapCommittedBytes", s, ProcessMemory.Sample::heapCommittedBytes);
        column(w, "metaspaceBytes", s, ProcessMemory.Sample::metaspaceBytes);
        column(w, "codeCacheBytes", s, ProcessMemory.Sample::codeCacheBytes);
        column(w, "threadStacksBytes", s, ProcessMemory.Sample::threadStacksBytes);
        column(w, "directBytes", s, ProcessMemory.Sample::directBytes);
        column(w, "mallocBytes", s, ProcessMemory.Sample::mallocBytes);
        column(w, "otherBytes", s, ProcessMemory.Sample::otherBytes);
        w.endObject();
    }

    private static void column(JsonWriter w, String name, List<ProcessMemory.Sample> s,
                               ToLongFunction<ProcessMemory.Sample> f) {
        w.name(name).beginArray();
        for (ProcessMemory.Sample x : s) {
            long v = f.applyAsLong(x);
            if (v < 0) {
                w.nullValue();
            } else {
                w.value(v);
            }
        }
        w.endArray();
    }
}
