package io.memscope.analysis.html;

import io.memscope.analysis.ProcessMemory;
import io.memscope.analysis.json.JsonWriter;
import java.util.List;

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
        w.name("parts").beginObject();
        new java.util.TreeMap<>(pm.parts()).forEach(w::field);
        w.endObject();
        w.name("timeMs").beginArray();
        s.forEach(x -> w.value(x.timeMs()));
        w.endArray();
        PageData.columnOrNull(w, "rssBytes", s, ProcessMemory.Sample::rssBytes);
        PageData.columnOrNull(w, "heapUsedBytes", s, ProcessMemory.Sample::heapUsedBytes);
        PageData.columnOrNull(w, "heapCommittedBytes", s, ProcessMemory.Sample::heapCommittedBytes);
        PageData.columnOrNull(w, "heapBytes", s, ProcessMemory.Sample::heapBytes);
        PageData.columnOrNull(w, "filesBytes", s, ProcessMemory.Sample::filesBytes);
        PageData.columnOrNull(w, "metaspaceBytes", s, ProcessMemory.Sample::metaspaceBytes);
        PageData.columnOrNull(w, "codeCacheBytes", s, ProcessMemory.Sample::codeCacheBytes);
        PageData.columnOrNull(w, "threadStacksBytes", s, ProcessMemory.Sample::threadStacksBytes);
        PageData.columnOrNull(w, "directBytes", s, ProcessMemory.Sample::directBytes);
        PageData.columnOrNull(w, "mallocBytes", s, ProcessMemory.Sample::mallocBytes);
        PageData.columnOrNull(w, "otherBytes", s, ProcessMemory.Sample::otherBytes);
        w.endObject();
    }
}
