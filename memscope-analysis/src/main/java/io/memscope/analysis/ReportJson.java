package io.memscope.analysis;

import java.io.IOException;
import java.nio.file.Path;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link Report} as {@code report.json}, format {@value #FORMAT} version {@value #VERSION}: see
 * docs/formats/report-json.md. Every field listed there is always present; lists may be empty.
 */
public final class ReportJson {
    /** Value of the top-level {@code format} field. */
    public static final String FORMAT = "memscope-report";
    /** Value of the top-level {@code version} field; incremented when a field changes meaning or is removed. */
    public static final int VERSION = 1;
    /** Collections listed individually in {@code gc.collections} at most; the aggregates cover all of them. */
    public static final int MAX_GC_LISTED = 2000;

    private ReportJson() {
    }

    /** Writes atomically: a temporary file in the same directory, then a rename. */
    public static void write(Report report, Path file) throws IOException {
        ReportFiles.writeAtomically(file, toJson(report));
    }

    public static String toJson(Report r) {
        JsonWriter w = new JsonWriter();
        w.beginObject();
        w.field("format", FORMAT).field("version", VERSION);
        w.name("metadata").beginObject();
        for (Map.Entry<String, String> e : r.metadata().entrySet()) {
            w.field(e.getKey(), e.getValue());
        }
        w.endObject();
        Report.Source src = r.recording();
        w.name("recording").beginObject()
                .field("formatVersion", src.formatVersion())
                .field("closed", src.closed())
                .field("clean", src.clean())
                .field("events", src.events())
                .field("eventsDropped", src.eventsDropped());
        if (src.damage() == null) {
            w.name("damage").value((String) null);
        } else {
            w.name("damage").beginObject().field("offset", src.damageOffset()).field("what", src.damage())
                    .endObject();
        }
        w.field("skippedBlocks", src.skippedBlocks()).endObject();
        Report.Totals t = r.totals();
        w.name("totals").beginObject()
                .field("allocatedBytes", t.allocatedBytes())
                .field("allocatedObjects", t.allocatedObjects())
                .field("peakLiveBytes", t.peakLiveBytes())
                .field("liveBytesAtEnd", t.liveBytesAtEnd())
                .field("samples", t.samples())
                .field("durationMs", t.durationMs())
                .field("exact", t.exact())
                .endObject();
        sites(w, "topAllocationSites", r.topAllocationSites());
        sites(w, "topLiveSites", r.topLiveSites());
        sites(w, "leakSuspects", r.leakSuspects());
        sites(w, "temporaries", r.temporaries());
        Report.NativeMemory n = r.nativeMemory();
        w.name("native").beginObject()
                .field("allocatedBytes", n.allocatedBytes())
                .field("allocations", n.allocations())
                .field("freedBytes", n.freedBytes())
                .field("outstandingBytes", n.outstandingBytes())
                .field("outstandingBlocks", n.outstandingBlocks())
                .field("peakOutstandingBytes", n.peakOutstandingBytes());
        sites(w, "leaks", n.leaks());
        w.name("anomalies").beginArray();
        for (Anomaly a : n.anomalies()) {
            w.beginObject().field("kind", a.kind()).field("address", a.address()).field("size", a.size())
                    .field("timeNanos", a.timestampNanos()).field("threadId", a.threadId());
            stack(w, n.anomalyStacks().getOrDefault(a.stackId(), List.of()));
            w.endObject();
        }
        w.endArray().endObject();
        Report.Gc g = r.gc();
        w.name("gc").beginObject()
                .field("count", g.count())
                .field("pauseCount", g.pauseCount())
                .field("pauseTotalMs", g.pauseTotalMs())
                .field("pauseMaxMs", g.pauseMaxMs())
                .field("maxHeapAfterGcBytes", g.maxHeapAfterGcBytes());
        w.name("collections").beginArray();
        int listed = 0;
        for (GcRecord c : g.collections()) {
            if (listed++ == MAX_GC_LISTED) {
                break;
            }
            w.beginObject().field("startNanos", c.startNanos()).field("durationMs", c.durationNanos() / 1e6)
                    .field("name", c.name()).field("action", c.action()).field("cause", c.cause())
                    .field("pause", c.isPause())
                    .field("heapUsedBeforeBytes", c.heapUsedBefore()).field("heapUsedAfterBytes", c.heapUsedAfter())
                    .field("heapCommittedBytes", c.heapCommitted()).endObject();
        }
        w.endArray().endObject();
        w.name("failures").beginObject().field("count", r.failureCount());
        w.name("messages").beginArray();
        for (String m : r.failures()) {
            w.value(m);
        }
        w.endArray().endObject();
        w.endObject();
        return w.toString() + "\n";
    }

    private static void sites(JsonWriter w, String name, List<Report.SiteEntry> list) {
        w.name(name).beginArray();
        for (Report.SiteEntry e : list) {
            w.beginObject()
                    .field("site", e.site())
                    .field("type", e.type())
                    .field("bytes", e.bytes())
                    .field("count", e.count())
                    .field("allocatedBytes", e.allocatedBytes())
                    .field("allocatedObjects", e.allocatedObjects())
                    .field("liveBytes", e.liveBytes())
                    .field("liveObjects", e.liveObjects())
                    .field("growthBytes", e.growthBytes())
                    .field("medianLifetimeMs", e.medianLifetimeMs())
                    .field("samples", e.samples());
            stack(w, e.stack());
            w.endObject();
        }
        w.endArray();
    }

    private static void stack(JsonWriter w, List<String> frames) {
        w.name("stack").beginArray();
        for (String f : frames) {
            w.value(f);
        }
        w.endArray();
    }
}
