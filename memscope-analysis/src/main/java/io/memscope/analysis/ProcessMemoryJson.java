package io.memscope.analysis;

import io.memscope.analysis.json.JsonWriter;

/** The {@code processMemory} section of {@code report.json} (docs/formats/report-json.md): null without samples. */
final class ProcessMemoryJson {
    private ProcessMemoryJson() {
    }

    static void section(JsonWriter w, ProcessMemory pm) {
        w.name("processMemory");
        if (pm == null) {
            w.nullValue();
            return;
        }
        w.beginObject()
                .field("intervalMs", pm.intervalMs())
                .field("measuredSamples", pm.measuredSamples())
                .field("downsampled", pm.samples().size() < pm.measuredSamples())
                .field("threadStacks", pm.threadStacks())
                .field("mallocCovers", "glibc".equals(pm.parts().get("malloc"))
                        ? "glibc's malloc'd bytes in use (mallinfo2: the JVM's own, native libraries', Unsafe and FFM "
                                + "arenas) less direct buffers; the free memory glibc keeps is in otherBytes"
                        : "memscope-tracked native memory other than direct buffers (Unsafe, FFM arenas); what native "
                                + "libraries malloc is in otherBytes");
        w.name("parts").beginObject();
        new java.util.TreeMap<>(pm.parts()).forEach(w::field);
        w.endObject();
        w.name("samples").beginArray();
        for (ProcessMemory.Sample s : pm.samples()) {
            sample(w, s);
        }
        w.endArray();
        w.name("peak");
        sample(w, pm.peak());
        w.name("end");
        sample(w, pm.end());
        w.name("nmt");
        if (pm.nmt() == null) {
            w.nullValue();
        } else {
            w.beginObject().field("timeMs", pm.nmt().timeMs()).name("categories").beginArray();
            for (ProcessMemory.Category c : pm.nmt().categories()) {
                w.beginObject().field("name", c.name()).field("committedBytes", c.committedBytes()).endObject();
            }
            w.endArray().endObject();
        }
        w.endObject();
    }

    private static void sample(JsonWriter w, ProcessMemory.Sample s) {
        if (s == null) {
            w.nullValue();
            return;
        }
        w.beginObject().field("timeMs", s.timeMs());
        bytes(w, "rssBytes", s.rssBytes());
        bytes(w, "heapUsedBytes", s.heapUsedBytes());
        bytes(w, "heapCommittedBytes", s.heapCommittedBytes());
        bytes(w, "heapResidentBytes", s.heapResidentBytes());
        bytes(w, "heapBytes", s.heapBytes());
        bytes(w, "metaspaceBytes", s.metaspaceBytes());
        bytes(w, "codeCacheBytes", s.codeCacheBytes());
        bytes(w, "threadStacksBytes", s.threadStacksBytes());
        bytes(w, "directBytes", s.directBytes());
        bytes(w, "mallocBytes", s.mallocBytes());
        bytes(w, "filesBytes", s.filesBytes());
        bytes(w, "otherBytes", s.otherBytes());
        bytes(w, "rssAnonBytes", s.rssAnonBytes());
        bytes(w, "rssFileBytes", s.rssFileBytes());
        bytes(w, "rssShmemBytes", s.rssShmemBytes());
        bytes(w, "mappedBytes", s.mappedBytes());
        bytes(w, "threads", s.threads());
        if (Double.isNaN(s.residentAtMs())) {
            w.nullField("residentAtMs");
        } else {
            w.field("residentAtMs", s.residentAtMs());
        }
        w.endObject();
    }

    private static void bytes(JsonWriter w, String name, long v) {
        if (v < 0) {
            w.nullField(name);
        } else {
            w.field(name, v);
        }
    }
}
