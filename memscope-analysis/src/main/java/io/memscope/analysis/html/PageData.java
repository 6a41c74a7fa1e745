package io.memscope.analysis.html;

import io.memscope.analysis.JsonWriter;
import io.memscope.analysis.Report;
import io.memscope.analysis.ReportBuilder;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import io.memscope.recording.MetadataKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data a report page shows, as the JSON document embedded in report.html ({@code format} {@value #FORMAT},
 * {@code version} {@value #VERSION}; every key is described in docs/formats/report-html.md). The page's script
 * reads only this document; everything it shows is computed here or by the analysis, never guessed in the page.
 *
 * <p>Frames and allocated types are stored once ({@code frames}, {@code frameKinds}, {@code types}) and referred to
 * by index; the per-stack figures are stored by column ({@code stacks.allocBytes[i]} is stack {@code i}'s).
 */
public final class PageData {
    /** Value of the document's {@code format} key. */
    public static final String FORMAT = "memscope-page";
    /** Value of the document's {@code version} key; incremented when a key changes meaning or is removed. */
    public static final int VERSION = 1;
    /** GC collections listed individually at most (as in report.json); percentiles and totals cover all. */
    public static final int MAX_GC_LISTED = 2000;

    private PageData() {
    }

    /**
     * The page of one report. The flame graphs are drawn from the sampled stacks the report names (one per listed
     * site: its top sites, live sites, leak suspects, temporaries and native leaks), which the page states.
     */
    public static String of(Report report) {
        return new Builder(report).json();
    }

    /** Frame and type tables: each distinct string once, referred to by index. */
    static final class Strings {
        private final Map<String, Integer> index = new HashMap<>();
        private final List<String> values = new ArrayList<>();

        int id(String s) {
            return index.computeIfAbsent(s, k -> {
                values.add(k);
                return values.size() - 1;
            });
        }

        List<String> values() {
            return values;
        }
    }

    /** One site of the report, with every figure the lists give for it. */
    private static final class SiteRow {
        final Report.SiteEntry entry;
        final boolean nativeSite;
        long allocBytes;
        long allocObjects;
        long heldBytes;
        long heldObjects;
        long nativeBytes;
        long nativeBlocks;
        boolean leak;
        boolean temporary;
        int stack = -1;

        SiteRow(Report.SiteEntry entry, boolean nativeSite) {
            this.entry = entry;
            this.nativeSite = nativeSite;
        }
    }

    private static final class Builder {
        final Report r;
        final Strings frames = new Strings();
        final Strings types = new Strings();
        final Map<String, SiteRow> sites = new LinkedHashMap<>();

        Builder(Report r) {
            this.r = r;
        }

        SiteRow site(Report.SiteEntry e, boolean nativeSite) {
            return sites.computeIfAbsent(e.site() + '\u0000' + e.type() + '\u0000' + nativeSite,
                    k -> new SiteRow(e, nativeSite));
        }

        String json() {
            for (Report.SiteEntry e : r.topAllocationSites()) {
                heap(e);
            }
            for (Report.SiteEntry e : r.topLiveSites()) {
                heap(e);
            }
            for (Report.SiteEntry e : r.leakSuspects()) {
                heap(e).leak = true;
            }
            for (Report.SiteEntry e : r.temporaries()) {
                heap(e).temporary = true;
            }
            for (Report.SiteEntry e : r.nativeMemory().leaks()) {
                SiteRow row = site(e, true);
                row.nativeBytes = e.bytes();
                row.nativeBlocks = e.count();
            }
            List<SiteRow> rows = new ArrayList<>(sites.values());
            List<List<String>> stacks = new ArrayList<>();
            for (SiteRow row : rows) {
                row.stack = stacks.size();
                stacks.add(row.entry.stack().isEmpty() ? List.of(row.entry.site()) : row.entry.stack());
            }
            Map<String, String> meta = r.metadata();
            FrameKinds kinds = FrameKinds.of(meta.get(MetadataKeys.COMMAND), stacks);

            JsonWriter w = JsonWriter.compact();
            w.beginObject().field("format", FORMAT).field("version", VERSION).field("kind", "report");
            meta(w, meta, kinds);
            totals(w);
            writeStacks(w, rows, stacks);
            w.name("frames").beginArray();
            for (String f : frames.values()) {
                w.value(f);
            }
            w.endArray();
            w.name("frameKinds").beginArray();
            for (String f : frames.values()) {
                w.value(kinds.kind(f));
            }
            w.endArray();
            writeSites(w, rows);
            anomalies(w);
            gc(w);
            w.name("timeline").value((String) null);
            w.name("peak").value((String) null);
            w.name("accounting").beginArray().endArray();
            w.name("failures").beginObject().field("count", r.failureCount());
            w.name("messages").beginArray();
            for (String m : r.failures()) {
                w.value(m);
            }
            w.endArray().endObject();
            w.name("definitions").beginObject()
                    .field("Peak held", "the highest estimate, during the run, of sampled heap bytes not yet "
                            + "collected; garbage counts until the GC that collects it, so this can exceed what the "
                            + "heap held after any GC.")
                    .field("Held", "bytes of sampled objects not collected at the end (the agent runs a full GC "
                            + "before it stops); an estimate.")
                    .endObject();
            w.name("notes").beginArray();
            w.value("Flame graphs show one sampled stack for each site the report lists (at most "
                    + ReportBuilder.TOP + " per list), not every stack of the run.");
            w.endArray();
            // types last: stacks and sites above intern them
            w.name("types").beginArray();
            for (String t : types.values()) {
                w.value(t);
            }
            w.endArray();
            w.endObject();
            return w.toString();
        }

        SiteRow heap(Report.SiteEntry e) {
            SiteRow row = site(e, false);
            row.allocBytes = e.allocatedBytes();
            row.allocObjects = e.allocatedObjects();
            row.heldBytes = e.liveBytes();
            row.heldObjects = e.liveObjects();
            return row;
        }

        void meta(JsonWriter w, Map<String, String> meta, FrameKinds kinds) {
            w.name("meta").beginObject()
                    .field("command", meta.getOrDefault(MetadataKeys.COMMAND, ""))
                    .field("pid", meta.getOrDefault(MetadataKeys.PID, ""))
                    .field("jvm", meta.getOrDefault(MetadataKeys.JAVA_VERSION, ""))
                    .field("mode", r.totals().exact() ? "exact" : "sample")
                    .field("intervalBytes", parseLong(meta.get(MetadataKeys.INTERVAL_BYTES), 512 * 1024))
                    .field("durationMs", r.totals().durationMs())
                    .field("startEpochMs", parseLong(meta.get(MetadataKeys.START_EPOCH_MS), 0))
                    .field("sampler", meta.getOrDefault("sampler", ""))
                    .field("attached", Boolean.parseBoolean(meta.getOrDefault("attached", "false")))
                    .field("applicationPackage", kinds.applicationPrefix())
                    .endObject();
        }

        void totals(JsonWriter w) {
            Report.Totals t = r.totals();
            Report.NativeMemory n = r.nativeMemory();
            Report.Gc g = r.gc();
            w.name("totals").beginObject()
                    .field("allocatedBytes", t.allocatedBytes())
                    .field("allocatedObjects", t.allocatedObjects())
                    .field("heldAtEndBytes", t.liveBytesAtEnd())
                    .field("peakHeldBytes", t.peakLiveBytes())
                    .field("peakTimeMs", -1)
                    .field("nativeOutstandingBytes", n.outstandingBytes())
                    .field("nativeOutstandingBlocks", n.outstandingBlocks())
                    .field("nativePeakBytes", n.peakOutstandingBytes())
                    .field("nativeAllocatedBytes", n.allocatedBytes())
                    .field("gcCount", g.count())
                    .field("gcPauseCount", g.pauseCount())
                    .field("gcPauseTotalMs", g.pauseTotalMs())
                    .field("gcPauseMaxMs", g.pauseMaxMs())
                    .field("maxHeapAfterGcBytes", g.maxHeapAfterGcBytes())
                    .field("samples", t.samples())
                    .field("exact", t.exact())
                    .endObject();
        }

        void writeStacks(JsonWriter w, List<SiteRow> rows, List<List<String>> stacks) {
            w.name("stacks").beginObject();
            w.name("frames").beginArray();
            for (List<String> s : stacks) {
                w.beginArray();
                for (String f : s) {
                    w.value(frames.id(f));
                }
                w.endArray();
            }
            w.endArray();
            column(w, "type", rows, x -> types.id(x.entry.type()));
            column(w, "site", rows, x -> x.stack); // one stack per site: stack i belongs to site i
            column(w, "native", rows, x -> x.nativeSite ? 1 : 0);
            column(w, "allocBytes", rows, x -> x.allocBytes);
            column(w, "allocObjects", rows, x -> x.allocObjects);
            column(w, "heldBytes", rows, x -> x.heldBytes);
            column(w, "peakBytes", rows, x -> 0);
            column(w, "nativeBytes", rows, x -> x.nativeBytes);
            column(w, "leak", rows, x -> x.leak ? 1 : 0);
            w.name("allocByBucket").value((String) null);
            w.endObject();
        }

        void writeSites(JsonWriter w, List<SiteRow> rows) {
            w.name("sites").beginArray();
            for (SiteRow x : rows) {
                Report.SiteEntry e = x.entry;
                w.beginObject()
                        .field("site", e.site())
                        .field("type", types.id(e.type()))
                        .field("native", x.nativeSite)
                        .field("allocBytes", x.allocBytes)
                        .field("allocObjects", x.allocObjects)
                        .field("heldBytes", x.heldBytes)
                        .field("heldObjects", x.heldObjects)
                        .field("peakBytes", -1)
                        .field("nativeBytes", x.nativeBytes)
                        .field("nativeBlocks", x.nativeBlocks)
                        .field("growthBytes", e.growthBytes())
                        .field("medianLifetimeMs", e.medianLifetimeMs())
                        .field("samples", e.samples())
                        .field("leak", x.leak)
                        .field("temporary", x.temporary);
                w.name("stacks").beginArray().value(x.stack).endArray();
                w.endObject();
            }
            w.endArray();
        }

        void anomalies(JsonWriter w) {
            long start = parseLong(r.metadata().get(MetadataKeys.START_NANOS), 0);
            w.name("anomalies").beginArray();
            for (Anomaly a : r.nativeMemory().anomalies()) {
                w.beginObject().field("kind", a.kind()).field("address", a.address()).field("size", a.size())
                        .field("timeMs", (a.timestampNanos() - start) / 1e6);
                w.name("stack").beginArray();
                for (String f : r.nativeMemory().anomalyStacks().getOrDefault(a.stackId(), List.of())) {
                    w.value(frames.id(f));
                }
                w.endArray().endObject();
            }
            w.endArray();
        }

        void gc(JsonWriter w) {
            long start = parseLong(r.metadata().get(MetadataKeys.START_NANOS), 0);
            List<GcRecord> all = r.gc().collections();
            w.name("gc").beginObject();
            double[] pauses = all.stream().filter(GcRecord::isPause).mapToDouble(g -> g.durationNanos() / 1e6)
                    .sorted().toArray();
            w.name("pausePercentilesMs").beginObject()
                    .field("count", pauses.length)
                    .field("p50", percentile(pauses, 50))
                    .field("p90", percentile(pauses, 90))
                    .field("p99", percentile(pauses, 99))
                    .field("max", pauses.length == 0 ? 0 : pauses[pauses.length - 1])
                    .endObject();
            Map<String, double[]> byCollector = new LinkedHashMap<>();
            for (GcRecord g : all) {
                double[] v = byCollector.computeIfAbsent(g.name(), k -> new double[3]);
                v[0]++;
                v[1] += g.durationNanos() / 1e6;
                v[2] = Math.max(v[2], g.durationNanos() / 1e6);
            }
            w.name("byCollector").beginArray();
            for (Map.Entry<String, double[]> e : byCollector.entrySet()) {
                w.beginObject().field("name", e.getKey()).field("count", (long) e.getValue()[0])
                        .field("totalMs", e.getValue()[1]).field("maxMs", e.getValue()[2]).endObject();
            }
            w.endArray();
            w.name("collections").beginArray();
            int listed = 0;
            for (GcRecord g : all) {
                if (listed++ == MAX_GC_LISTED) {
                    break;
                }
                w.beginObject()
                        .field("timeMs", (g.startNanos() - start) / 1e6)
                        .field("durationMs", g.durationNanos() / 1e6)
                        .field("name", g.name())
                        .field("cause", g.cause())
                        .field("pause", g.isPause())
                        .field("usedBeforeBytes", g.heapUsedBefore())
                        .field("usedAfterBytes", g.heapUsedAfter())
                        .field("committedBytes", g.heapCommitted())
                        .endObject();
            }
            w.endArray().endObject();
        }
    }

    /** Nearest-rank percentile of sorted values; 0 when there are none. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    interface LongOf<T> {
        long of(T t);
    }

    static <T> void column(JsonWriter w, String name, List<T> rows, LongOf<T> f) {
        w.name(name).beginArray();
        for (T t : rows) {
            w.value(f.of(t));
        }
        w.endArray();
    }

    static long parseLong(String s, long otherwise) {
        if (s == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }
}
