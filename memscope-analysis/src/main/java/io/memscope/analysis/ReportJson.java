package io.memscope.analysis;

import io.memscope.analysis.json.ApiJson;
import io.memscope.analysis.json.JsonWriter;
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
    public static final int VERSION = 4;
    /** Collections listed individually in {@code gc.collections} at most; the aggregates cover all of them. */
    public static final int MAX_GC_LISTED = 2000;

    private ReportJson() {
    }

    /** Writes atomically: a temporary file in the same directory, then a rename. */
    public static void write(Report report, Path file) throws IOException {
        ReportFiles.writeAtomically(file, toJson(report));
    }

    /**
     * @return the report as JSON: its sections in their documented order, each from its own writer below (a new
     *         section is one more line here and one more writer)
     */
    public static String toJson(Report r) {
        JsonWriter w = new JsonWriter();
        w.beginObject();
        w.field("format", FORMAT).field("version", VERSION);
        metadata(w, r.metadata());
        recording(w, r.recording());
        window(w, r.window());
        totals(w, r.totals());
        heapCheck(w, r.heapCheck());
        peak(w, r.peak());
        sites(w, "topAllocationSites", r.topAllocationSites(), Rank.ALLOCATED);
        sites(w, "topLiveSites", r.topLiveSites(), Rank.LIVE, r.retention());
        sites(w, "leakSuspects", r.leakSuspects(), Rank.LIVE, r.retention());
        sites(w, "temporaries", r.temporaries(), Rank.ALLOCATED);
        nativeMemory(w, r.nativeMemory());
        gc(w, r.gc());
        timeline(w, r.timeline(), r.window());
        ApiJson.write(w, r.api(), ReportJson::stack);
        AccountingJson.section(w, r.accounting(), r.accounting() == null ? 0 : AccountingSection.atMs(r));
        RetentionJson.section(w, r.retention());
        ProcessMemoryJson.section(w, r.processMemory());
        failures(w, r);
        w.endObject();
        return w.toString() + "\n";
    }

    private static void metadata(JsonWriter w, Map<String, String> metadata) {
        w.name("metadata").beginObject();
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            w.field(e.getKey(), e.getValue());
        }
        w.endObject();
    }

    private static void recording(JsonWriter w, Report.Source src) {
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
        w.field("skippedBlocks", src.skippedBlocks());
        Report.Chunks c = src.chunks();
        if (c != null) {
            w.name("chunks").beginObject()
                    .field("count", c.count())
                    .field("firstIndex", c.firstIndex())
                    .field("lastIndex", c.lastIndex())
                    .field("deleted", c.deleted())
                    .field("coveredFromMs", c.coveredFromMs())
                    .field("carryTruncated", c.carryTruncated())
                    .field("skippedBefore", c.skippedBefore())
                    .field("skippedAfter", c.skippedAfter())
                    .endObject();
        }
        w.endObject();
        w.name("source").beginObject().field("kind", src.kind()).field("producer", src.producer());
        w.name("limitations").beginArray();
        for (String l : src.limitations()) {
            w.value(l);
        }
        w.endArray().endObject();
    }

    private static void window(JsonWriter w, Report.Window win) {
        w.name("window").beginObject()
                .field("fromMs", win.fromMs())
                .field("toMs", win.toMs())
                .field("restricted", win.restricted())
                .endObject();
    }

    private static void totals(JsonWriter w, Report.Totals t) {
        w.name("totals").beginObject()
                .field("allocatedBytes", t.allocatedBytes())
                .field("allocatedObjects", t.allocatedObjects())
                .field("peakHeldBytes", t.peakHeldBytes())
                .field("heldAtEndBytes", t.heldAtEndBytes())
                .field("samples", t.samples())
                .field("durationMs", t.durationMs())
                .field("exact", t.exact())
                .field("exactCountsAsOfMs", t.exactCountsAsOfMs())
                .field("unconfirmedAtEndBytes", t.unconfirmedAtEndBytes())
                .field("unconfirmedAtPeakBytes", t.unconfirmedAtPeakBytes())
                .field("wholeHeapCollections", t.wholeHeapCollections())
                .field("heldAsOfMs", t.heldAsOfMs());
        Report.ExactCoverage cov = t.exactCoverage();
        if (cov == null) {
            w.name("exactCoverage").value((String) null);
        } else {
            w.name("exactCoverage").beginObject().field("countedBytes", cov.countedBytes());
            if (cov.jvmAllocatedBytes() < 0) {
                w.name("jvmAllocatedBytes").value((String) null);
            } else {
                w.field("jvmAllocatedBytes", cov.jvmAllocatedBytes());
            }
            w.field("share", cov.share()).field("jvmCount", cov.jvmCount()).field("counted", cov.counted())
                    .endObject();
        }
        w.endObject();
    }

    private static void heapCheck(JsonWriter w, Report.HeapCheck hc) {
        w.name("heapCheck").beginObject()
                .field("checked", hc.checked())
                .field("exceeded", hc.exceeded())
                .field("heldExceeded", hc.heldExceeded())
                .field("consistent", hc.consistent());
        if (hc.worstCollection() == null && Double.isNaN(hc.worstAtMs())) {
            w.name("worst").value((String) null);
        } else {
            w.name("worst").beginObject()
                    .field("atMs", hc.worstAtMs())
                    .field("collection", hc.worstCollection())
                    .field("estimatedBytes", hc.worstEstimatedBytes())
                    .field("heapUsedBytes", hc.worstHeapUsedBytes())
                    .field("standardErrorBytes", hc.worstStandardErrorBytes())
                    .endObject();
        }
        w.endObject();
    }

    private static void peak(JsonWriter w, Peak peak) {
        if (peak == null) {
            w.name("peak").value((String) null);
            return;
        }
        w.name("peak").beginObject()
                .field("timeNanos", peak.timeNanos())
                .field("timeMs", peak.timeMs())
                .field("gcName", peak.gcName())
                .field("gcCause", peak.gcCause())
                .field("heapUsedAfterGcBytes", peak.heapUsedAfterGcBytes())
                .field("estimatedBytes", peak.estimatedBytes())
                .field("estimatedObjects", peak.estimatedObjects())
                .field("unconfirmedBytes", peak.unconfirmedBytes());
        holders(w, peak.sites());
        w.endObject();
    }

    private static void nativeMemory(JsonWriter w, Report.NativeMemory n) {
        w.name("native").beginObject()
                .field("allocatedBytes", n.allocatedBytes())
                .field("allocations", n.allocations())
                .field("freedBytes", n.freedBytes())
                .field("outstandingBytes", n.outstandingBytes())
                .field("outstandingBlocks", n.outstandingBlocks())
                .field("peakOutstandingBytes", n.peakOutstandingBytes());
        Peak.NativePeak np = n.peak();
        if (np == null) {
            w.name("peak").value((String) null);
        } else {
            w.name("peak").beginObject()
                    .field("timeNanos", np.timeNanos())
                    .field("timeMs", np.timeMs())
                    .field("outstandingBytes", np.outstandingBytes());
            holders(w, np.sites());
            w.endObject();
        }
        sites(w, "leaks", n.leaks(), Rank.LIVE);
        sites(w, "leakSuspects", n.leakSuspects(), Rank.LIVE);
        malloc(w, n.malloc());
        w.name("anomalies").beginArray();
        for (Anomaly a : n.anomalies()) {
            w.beginObject().field("kind", a.kind()).field("address", a.address()).field("size", a.size())
                    .field("timeNanos", a.timestampNanos()).field("threadId", a.threadId());
            stack(w, n.anomalyStacks().getOrDefault(a.stackId(), List.of()));
            w.endObject();
        }
        w.endArray().endObject();
    }

    private static void malloc(JsonWriter w, Report.Malloc m) {
        if (m == null) {
            w.name("malloc").value((String) null);
            return;
        }
        w.name("malloc").beginObject()
                .field("intervalBytes", m.intervalBytes())
                .field("sampling", m.sampling())
                .field("samples", m.samples())
                .field("allocatedBytes", m.allocatedBytes())
                .field("outstandingBytes", m.outstandingBytes())
                .field("outstandingSamples", m.outstandingSamples())
                .field("atRssPeakOf", m.atPeakOf())
                .field("atRssPeakMs", m.atPeakMs())
                .field("atRssPeakBytes", m.atPeakBytes());
        w.name("atRssPeak").beginArray();
        for (Peak.Holder h : m.atPeak()) {
            w.beginObject().field("site", h.site()).field("type", h.type()).field("bytes", h.bytes())
                    .field("count", h.count()).field("samples", h.samples());
            stack(w, h.stack());
            frames(w, "nativeFrames", SiteProfile.nativeFrames(h.stack()));
            w.endObject();
        }
        w.endArray();
        Report.Malloc.Coverage c = m.coverage();
        w.name("coverage").beginObject()
                .field("selfTest", c.selfTest())
                .field("patchedLibraries", c.patchedLibraries())
                .field("skippedLibraries", c.skippedLibraries())
                .field("off", c.off())
                .field("dropped", c.dropped())
                .field("untracked", c.untracked())
                .field("javaStackNotWalkable", c.javaStackNotWalkable());
        w.name("noJavaStack").beginObject();
        for (java.util.Map.Entry<String, Long> e : new java.util.TreeMap<>(c.noJavaStack()).entrySet()) {
            w.field(e.getKey(), e.getValue());
        }
        w.endObject().endObject();
        w.endObject();
    }

    private static void gc(JsonWriter w, Report.Gc g) {
        w.name("gc").beginObject()
                .field("count", g.count())
                .field("untimedCount", g.untimedCount())
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
                    .field("heapCommittedBytes", c.heapCommitted())
                    .field("examined", examined(c.examined()))
                    .field("snapshotNanos", c.snapshotNanos()).field("verdictNanos", c.verdictNanos()).endObject();
        }
        w.endArray().endObject();
    }

    private static void timeline(JsonWriter w, Timeline tl, Report.Window win) {
        w.name("timeline").beginObject()
                .field("startMs", win.fromMs())
                .field("bucketMs", tl.bucketNanos() / 1e6);
        w.name("buckets").beginArray();
        for (Timeline.Bucket b : tl.buckets()) {
            w.beginObject()
                    .field("startMs", b.startMs())
                    .field("allocatedBytes", b.allocatedBytes())
                    .field("heldBytes", b.heldBytes())
                    .field("unconfirmedBytes", b.unconfirmedBytes())
                    .field("heapUsedBytes", b.heapUsedBytes())
                    .field("heapCommittedBytes", b.heapCommittedBytes())
                    .field("nativeOutstandingBytes", b.nativeOutstandingBytes())
                    .field("gcPauseMs", b.gcPauseMs())
                    .field("gcCount", b.gcCount());
            w.name("topSites").beginArray();
            for (Timeline.HeldSite h : b.topSites()) {
                w.beginObject().field("site", h.site()).field("type", h.type()).field("bytes", h.bytes()).endObject();
            }
            w.endArray().endObject();
        }
        w.endArray().endObject();
    }

    private static void failures(JsonWriter w, Report r) {
        w.name("failures").beginObject().field("count", r.failureCount());
        w.name("messages").beginArray();
        for (String m : r.failures()) {
            w.value(m);
        }
        w.endArray().endObject();
    }

    /** Which figure a site list ranks by, and so what its entries' {@code bytes} and {@code count} are. */
    private enum Rank { ALLOCATED, LIVE }

    private static void sites(JsonWriter w, String name, List<SiteProfile> list, Rank rank) {
        sites(w, name, list, rank, null);
    }

    /** With {@code retention}, each site also gets its {@code retainedBy} list. */
    private static void sites(JsonWriter w, String name, List<SiteProfile> list, Rank rank, Retention retention) {
        w.name(name).beginArray();
        for (SiteProfile e : list) {
            boolean allocated = rank == Rank.ALLOCATED;
            w.beginObject()
                    .field("site", e.site())
                    .field("type", e.type())
                    .field("bytes", allocated ? e.allocatedBytes() : e.liveBytes())
                    .field("count", allocated ? e.allocatedObjects() : e.liveObjects())
                    .field("allocatedBytes", e.allocatedBytes())
                    .field("allocatedObjects", e.allocatedObjects())
                    .field("liveBytes", e.liveBytes())
                    .field("liveObjects", e.liveObjects())
                    .field("unconfirmedBytes", e.unconfirmedBytes())
                    .field("heldSamples", e.liveSamples())
                    .field("peakBytes", e.peakBytes())
                    .field("peakUnconfirmedBytes", e.peakUnconfirmedBytes())
                    .field("heldAtPeakBytes", e.heldAtPeakBytes())
                    .field("heldAtPeakUnconfirmedBytes", e.heldAtPeakUnconfirmedBytes())
                    .field("growthBytes", e.growthBytes())
                    .field("leakSuspect", e.leakSuspect())
                    .field("medianAgeAtCollectionMs", e.medianAgeAtCollectionMs())
                    .field("freedByFirstCollectionShare", e.freedByFirstCollectionShare())
                    .field("medianLifetimeMs", e.medianAgeAtCollectionMs()) // the old name of the age at collection
                    .field("samples", e.samples())
                    .field("liveSamples", e.liveSamples())
                    .field("heldAtPeakSamples", e.heldAtPeakSamples());
            SiteProfile.Growth gr = e.growth();
            if (gr == null) {
                w.name("growth").value((String) null);
            } else {
                w.name("growth").beginObject()
                        .field("firstMs", gr.firstMs()).field("firstBytes", gr.firstBytes())
                        .field("secondMs", gr.secondMs()).field("secondBytes", gr.secondBytes())
                        .field("endMs", gr.endMs()).field("endBytes", gr.endBytes())
                        .field("endSamples", gr.endSamples()).field("significant", gr.significant())
                        .endObject();
            }
            stack(w, e.stack());
            if (e.nativeMemory()) {
                frames(w, "nativeFrames", e.nativeFrames());
            }
            if (retention != null) {
                RetentionJson.retainedBy(w, retention.of(e));
            }
            w.endObject();
        }
        w.endArray();
    }

    private static void holders(JsonWriter w, List<Peak.Holder> holders) {
        w.name("sites").beginArray();
        for (Peak.Holder h : holders) {
            w.beginObject().field("site", h.site()).field("type", h.type()).field("bytes", h.bytes())
                    .field("count", h.count()).field("samples", h.samples())
                    .field("unconfirmedBytes", h.unconfirmedBytes());
            stack(w, h.stack());
            w.endObject();
        }
        w.endArray();
    }

    /** @return {@code young}, {@code whole-heap} or {@code unknown} */
    public static String examined(GcRecord.Examined e) {
        switch (e) {
            case YOUNG:
                return "young";
            case WHOLE_HEAP:
                return "whole-heap";
            default:
                return "unknown";
        }
    }

    private static void stack(JsonWriter w, List<String> frames) {
        frames(w, "stack", frames);
    }

    private static void frames(JsonWriter w, String name, List<String> frames) {
        w.name(name).beginArray();
        for (String f : frames) {
            w.value(f);
        }
        w.endArray();
    }
}
