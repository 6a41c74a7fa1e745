package io.memscope.analysis.html;

import io.memscope.analysis.DiffMetric;
import io.memscope.analysis.json.JsonWriter;
import io.memscope.analysis.Peak;
import io.memscope.analysis.Report;
import io.memscope.analysis.RunDiff;
import io.memscope.analysis.SiteProfile;
import io.memscope.analysis.SparseSeries;
import io.memscope.analysis.StackProfile;
import io.memscope.analysis.Timeline;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.memscope.analysis.html.PageData.*;

/**
 * The page data of one report ({@code "kind": "report"} of the document {@link PageData} describes): totals, stacks
 * by column, sites, the GC, the timeline, the peak, the API sections ({@link ApiPageData}), the accounting tables,
 * why memory is held ({@link RetentionPageData}) and the notes.
 */
public final class ReportPageData {
    /** @return the page data of {@code report} */
    public static String of(Report report) {
        return new ReportPageData(report).json();
    }

    final Report r;
    final Strings frames = new Strings();
    final Strings types = new Strings();
    final long runStart;

    private ReportPageData(Report r) {
        this.r = r;
        this.runStart = r.window().runStartNanos();
    }

    String json() {
        List<StackProfile> all = r.stacks();
        List<StackProfile> kept = keep(all);
        int merged = all.size() - kept.size();
        Map<String, Integer> siteIndex = new HashMap<>();
        for (int i = 0; i < r.sites().size(); i++) {
            SiteProfile s = r.sites().get(i);
            siteIndex.putIfAbsent(siteKey(s.site(), s.type()), i);
        }
        Map<Integer, List<Integer>> stacksOfSite = new HashMap<>();
        for (int i = 0; i < kept.size(); i++) {
            Integer site = siteIndex.get(siteKey(kept.get(i).site(), kept.get(i).type()));
            if (site != null) {
                stacksOfSite.computeIfAbsent(site, k -> new ArrayList<>()).add(i);
            }
        }
        FrameKinds kinds = FrameKinds.of(r.metadata().get(MetadataKeys.COMMAND),
                kept.stream().map(StackProfile::frames).toList());

        JsonWriter w = JsonWriter.compact();
        w.beginObject().field("format", FORMAT).field("version", VERSION).field("kind", "report");
        meta(w, kinds);
        totals(w);
        stacks(w, kept, all, merged, siteIndex);
        sites(w, stacksOfSite);
        anomalies(w);
        gc(w);
        timeline(w);
        peak(w);
        ApiPageData.write(w, r.api(), kept, merged > 0 ? kept.size() : -1, frames);
        accounting(w);
        RetentionPageData.write(w, r);
        ProcessMemoryPageData.write(w, r.processMemory());
        w.name("failures").beginObject().field("count", r.failureCount());
        w.name("messages").beginArray();
        for (String m : r.failures()) {
            w.value(m);
        }
        w.endArray().endObject();
        w.name("heapCheck").beginObject().field("consistent", r.heapCheck().consistent())
                .field("heldExceeded", r.heapCheck().heldExceeded())
                .field("exceeded", r.heapCheck().exceeded()).field("checked", r.heapCheck().checked()).endObject();
        w.name("notes").beginArray();
        if (merged > 0) {
            w.value("The flame graphs show the " + kept.size() + " stacks with the largest shares; the other "
                    + merged + " are merged into one box, [" + merged + " smaller stacks].");
        }
        if (r.window().restricted()) {
            w.value(String.format(java.util.Locale.ROOT, "Every figure covers %.1f s to %.1f s of the run "
                    + "(memscope report --from/--to).", r.window().fromMs() / 1000, r.window().toMs() / 1000));
        }
        for (String note : heldNotes(r)) {
            w.value(note);
        }
        String bounds = io.memscope.analysis.AgentBoundsNote.of(r.metadata());
        if (bounds != null) {
            w.value(Character.toUpperCase(bounds.charAt(0)) + bounds.substring(1) + ".");
        }
        if (r.recording().jfr()) {
            w.value("From a JFR recording (" + r.recording().producer() + "): "
                    + String.join("; ", r.recording().limitations()) + ".");
        }
        if (!r.recording().closed()) {
            w.value("The recording was not closed (the JVM was killed, crashed or is still running): the "
                    + "report covers what it holds.");
        } else if (r.recording().damage() != null) {
            w.value("The recording is damaged (" + r.recording().damage() + "): the report covers what was "
                    + "readable.");
        }
        w.endArray();
        writeTables(w, kinds);
        w.endObject();
        return w.toString();
    }

    /**
     * The notes on held memory: unconfirmed memory when large, the estimates against the JVM's figures, a held peak
     * below what a whole-heap collection found.
     */
    public static List<String> heldNotes(Report r) {
        List<String> notes = new ArrayList<>();
        Report.Totals t = r.totals();
        if (io.memscope.analysis.Summary.large(t.unconfirmedAtEndBytes(), t.heldAtEndBytes())) {
            notes.add("Unconfirmed at the end: " + io.memscope.analysis.Summary.bytes(t.unconfirmedAtEndBytes())
                    + " of sampled objects survived only young collections, which do not look at the old "
                    + "generation: they may be garbage, so they are not counted as held (the lighter band of "
                    + "the memory chart). " + ("off".equals(r.metadata().get("endCheck"))
                    ? "The end check was off: memscope run --end-check gc confirms them." : ""));
        }
        if (t.wholeHeapCollections() < 3) {
            notes.add("Leak suspects need held memory seen growing at three collections that examined the whole "
                    + "heap; this window had " + t.wholeHeapCollections() + ".");
        }
        String contradiction = io.memscope.analysis.Summary.heapCheckMessage(r);
        if (contradiction != null) {
            notes.add(Character.toUpperCase(contradiction.charAt(0)) + contradiction.substring(1) + ".");
        }
        String missed = io.memscope.analysis.Summary.heldMissedByPeak(r);
        if (missed != null) {
            notes.add(Character.toUpperCase(missed.charAt(0)) + missed.substring(1) + ".");
        }
        return notes;
    }

    void writeTables(JsonWriter w, FrameKinds kinds) {
        w.name("frames").beginArray();
        for (String f : frames.values()) {
            w.value(f);
        }
        w.endArray();
        w.name("frameKinds").beginArray();
        for (String f : frames.values()) {
            w.value(f.startsWith("[") ? FrameKinds.LIBRARY : kinds.kind(f));
        }
        w.endArray();
        w.name("types").beginArray();
        for (String t : types.values()) {
            w.value(t);
        }
        w.endArray();
    }

    /** The stacks with the largest share of any figure, at most {@link #MAX_STACKS}, in the report's order. */
    List<StackProfile> keep(List<StackProfile> all) {
        if (all.size() <= MAX_STACKS) {
            return all;
        }
        double[] totals = new double[4];
        for (StackProfile s : all) {
            for (int k = 0; k < 4; k++) {
                totals[k] += figure(s, k);
            }
        }
        List<Integer> order = new ArrayList<>();
        double[] score = new double[all.size()];
        for (int i = 0; i < all.size(); i++) {
            order.add(i);
            for (int k = 0; k < 4; k++) {
                score[i] = Math.max(score[i], totals[k] > 0 ? figure(all.get(i), k) / totals[k] : 0);
            }
        }
        order.sort(Comparator.comparingDouble((Integer i) -> -score[i]));
        boolean[] keep = new boolean[all.size()];
        for (int i = 0; i < MAX_STACKS; i++) {
            keep[order.get(i)] = true;
        }
        List<StackProfile> kept = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (keep[i]) {
                kept.add(all.get(i));
            }
        }
        return kept;
    }

    /**
     * Figure {@code k} of a stack: 0 allocated (heap), 1 held at end (heap), 2 held at the peak, 3 native
     * outstanding, 4 native allocated.
     */
    static long figure(StackProfile s, int k) {
        return switch (k) {
            case 0 -> s.nativeMemory() ? 0 : s.allocatedBytes();
            case 1 -> s.nativeMemory() ? 0 : s.heldBytes();
            case 2 -> s.nativeMemory() ? 0 : s.heldAtPeakBytes();
            case 3 -> s.nativeMemory() ? s.heldBytes() : 0;
            default -> s.nativeMemory() ? s.allocatedBytes() : 0;
        };
    }

    void meta(JsonWriter w, FrameKinds kinds) {
        Map<String, String> meta = r.metadata();
        w.name("meta").beginObject()
                .field("command", meta.getOrDefault(MetadataKeys.COMMAND, ""))
                .field("pid", meta.getOrDefault(MetadataKeys.PID, ""))
                .field("jvm", meta.getOrDefault(MetadataKeys.JAVA_VERSION, ""))
                .field("mode", r.totals().exact() ? "exact" : "sample")
                .field("intervalBytes", parseLong(meta.get(MetadataKeys.INTERVAL_BYTES), 512 * 1024))
                .field("mallocIntervalBytes", r.nativeMemory().malloc() == null ? 0
                        : r.nativeMemory().malloc().intervalBytes())
                .field("durationMs", r.totals().durationMs())
                .field("startEpochMs", parseLong(meta.get(MetadataKeys.START_EPOCH_MS), 0))
                .field("sampler", meta.getOrDefault("sampler", ""))
                .field("attached", Boolean.parseBoolean(meta.getOrDefault("attached", "false")))
                .field("applicationPackage", kinds.applicationPrefix())
                .field("windowFromMs", r.window().fromMs())
                .field("windowToMs", r.window().toMs())
                .field("windowRestricted", r.window().restricted())
                .field("recordingClosed", r.recording().closed())
                .field("recordingDamage", r.recording().damage())
                .endObject();
    }

    void totals(JsonWriter w) {
        Report.Totals t = r.totals();
        Report.NativeMemory n = r.nativeMemory();
        Report.Gc g = r.gc();
        w.name("totals").beginObject()
                .field("allocatedBytes", t.allocatedBytes())
                .field("allocatedObjects", t.allocatedObjects())
                .field("heldAtEndBytes", t.heldAtEndBytes())
                .field("unconfirmedAtEndBytes", t.unconfirmedAtEndBytes())
                .field("wholeHeapCollections", t.wholeHeapCollections())
                .field("peakHeldBytes", t.peakHeldBytes())
                .field("peakTimeMs", r.peak() == null ? -1 : r.peak().timeMs())
                .field("nativeOutstandingBytes", n.outstandingBytes())
                .field("nativeOutstandingBlocks", n.outstandingBlocks())
                .field("mallocOutstandingBytes", n.malloc() == null ? -1 : n.malloc().outstandingBytes())
                .field("nativePeakBytes", n.peakOutstandingBytes())
                .field("nativePeakTimeMs", n.peak() == null ? -1 : n.peak().timeMs())
                .field("nativeAllocatedBytes", n.allocatedBytes())
                .field("gcCount", g.count())
                .field("gcPauseCount", g.pauseCount())
                .field("gcPauseTotalMs", g.pauseTotalMs())
                .field("gcPauseMaxMs", g.pauseMaxMs())
                .field("maxHeapAfterGcBytes", g.maxHeapAfterGcBytes())
                .field("samples", t.samples())
                .field("exact", t.exact())
                .field("exactCoverageShare", t.exactCoverage() == null ? Double.NaN : t.exactCoverage().share())
                .field("exactCoverageCounted", t.exactCoverage() == null ? null : t.exactCoverage().counted())
                .endObject();
    }

    void stacks(JsonWriter w, List<StackProfile> kept, List<StackProfile> all, int merged,
                Map<String, Integer> siteIndex) {
        // the stacks left out, as one more stack: their heap figures and allocations per bucket summed
        long[] rest = new long[4];
        java.util.TreeMap<Integer, Long> restBuckets = new java.util.TreeMap<>();
        if (merged > 0) {
            java.util.Set<StackProfile> in = java.util.Collections.newSetFromMap(
                    new java.util.IdentityHashMap<>());
            in.addAll(kept);
            for (StackProfile s : all) {
                if (in.contains(s) || s.nativeMemory()) {
                    continue;
                }
                rest[0] += s.allocatedBytes();
                rest[1] += s.allocatedObjects();
                rest[2] += s.heldBytes();
                rest[3] += s.heldAtPeakBytes();
                SparseSeries b = s.allocatedBytesByBucket();
                for (int i = 0; b != null && i < b.size(); i++) {
                    restBuckets.merge(b.bucket(i), b.value(i), Long::sum);
                }
            }
        }
        int n = kept.size() + (merged > 0 ? 1 : 0);
        String restName = "[" + merged + " smaller stacks]";
        w.name("stacks").beginObject();
        w.name("frames").beginArray();
        for (int i = 0; i < n; i++) {
            w.beginArray();
            List<String> fs = i == kept.size() ? List.of(restName)
                    : kept.get(i).frames().isEmpty() ? List.of(kept.get(i).site()) : kept.get(i).frames();
            for (String f : fs) {
                w.value(frames.id(f));
            }
            w.endArray();
        }
        w.endArray();
        int restType = merged > 0 ? types.id("(several types)") : -1;
        indexed(w, "type", n, i -> i == kept.size() ? restType : types.id(kept.get(i).type()));
        indexed(w, "site", n, i -> i == kept.size() ? -1
                : siteIndex.getOrDefault(siteKey(kept.get(i).site(), kept.get(i).type()), -1));
        indexed(w, "native", n, i -> i < kept.size() && kept.get(i).nativeMemory() ? 1 : 0);
        indexed(w, "allocBytes", n, i -> i == kept.size() ? rest[0] : figure(kept.get(i), 0));
        indexed(w, "allocObjects", n, i -> i == kept.size() ? rest[1]
                : kept.get(i).nativeMemory() ? 0 : kept.get(i).allocatedObjects());
        indexed(w, "heldBytes", n, i -> i == kept.size() ? rest[2] : figure(kept.get(i), 1));
        indexed(w, "peakBytes", n, i -> i == kept.size() ? rest[3] : figure(kept.get(i), 2));
        indexed(w, "nativeBytes", n, i -> i == kept.size() ? 0 : figure(kept.get(i), 3));
        indexed(w, "nativeAllocBytes", n, i -> i == kept.size() ? 0 : figure(kept.get(i), 4));
        indexed(w, "leak", n, i -> i < kept.size() && kept.get(i).leakSuspect() && !kept.get(i).nativeMemory()
                ? 1 : 0);
        w.name("allocByBucket").beginArray();
        for (int i = 0; i < n; i++) {
            w.beginArray();
            // [gap, bytes, gap, bytes, ...]: bucket = previous bucket + gap (the first: -1 + gap)
            int previous = -1;
            if (i == kept.size()) {
                for (Map.Entry<Integer, Long> e : restBuckets.entrySet()) {
                    w.value(e.getKey() - previous).value(e.getValue());
                    previous = e.getKey();
                }
            } else {
                SparseSeries b = kept.get(i).allocatedBytesByBucket();
                for (int j = 0; b != null && !kept.get(i).nativeMemory() && j < b.size(); j++) {
                    w.value(b.bucket(j) - previous).value(b.value(j));
                    previous = b.bucket(j);
                }
            }
            w.endArray();
        }
        w.endArray();
        w.endObject();
    }

    void sites(JsonWriter w, Map<Integer, List<Integer>> stacksOfSite) {
        w.name("sites").beginArray();
        List<SiteProfile> sites = r.sites();
        for (int i = 0; i < sites.size(); i++) {
            SiteProfile s = sites.get(i);
            boolean nat = s.nativeMemory();
            w.beginObject()
                    .field("site", s.site())
                    .field("type", types.id(s.type()))
                    .field("native", nat)
                    .field("allocBytes", nat ? 0 : s.allocatedBytes())
                    .field("allocObjects", nat ? 0 : s.allocatedObjects())
                    .field("heldBytes", nat ? 0 : s.liveBytes())
                    .field("heldObjects", nat ? 0 : s.liveObjects())
                    .field("unconfirmedBytes", nat ? 0 : s.unconfirmedBytes())
                    .field("peakBytes", nat ? 0 : s.peakBytes())
                    .field("heldAtPeakBytes", nat ? 0 : s.heldAtPeakBytes())
                    .field("nativeAllocatedBytes", nat ? s.allocatedBytes() : 0)
                    .field("nativeBytes", nat ? s.liveBytes() : 0)
                    .field("nativeBlocks", nat ? s.liveObjects() : 0)
                    .field("nativeSampled", io.memscope.recording.Site.NATIVE_MALLOC.equals(s.type()))
                    .field("growthBytes", s.growthBytes())
                    .field("medianAgeAtCollectionMs", s.medianAgeAtCollectionMs())
                    .field("freedByFirstCollectionShare", s.freedByFirstCollectionShare())
                    .field("samples", s.samples())
                    .field("liveSamples", s.liveSamples())
                    .field("leak", s.leakSuspect() && !nat)
                    .field("nativeLeak", s.leakSuspect() && nat)
                    .field("temporary", s.temporary());
            w.name("stacks").beginArray();
            List<Integer> own = stacksOfSite.get(i);
            if (own != null) {
                for (int x : own) {
                    w.value(x);
                }
            }
            w.endArray();
            if (own == null && !s.stack().isEmpty()) {
                w.name("stack").beginArray();
                for (String f : s.stack()) {
                    w.value(frames.id(f));
                }
                w.endArray();
            }
            w.endObject();
        }
        w.endArray();
    }

    void anomalies(JsonWriter w) {
        w.name("anomalies").beginArray();
        for (Anomaly a : r.nativeMemory().anomalies()) {
            w.beginObject().field("kind", a.kind()).field("address", a.address()).field("size", a.size())
                    .field("timeMs", (a.timestampNanos() - runStart) / 1e6);
            w.name("stack").beginArray();
            for (String f : r.nativeMemory().anomalyStacks().getOrDefault(a.stackId(), List.of())) {
                w.value(frames.id(f));
            }
            w.endArray().endObject();
        }
        w.endArray();
    }

    /** The accounting tables, one per summary table with rows, as generic tables (title, columns, rows). */
    void accounting(JsonWriter w) {
        w.name("accounting").beginArray();
        io.memscope.recording.AccountingSnapshot a = r.accounting();
        for (io.memscope.accounting.SummaryTable t : a == null ? List.<io.memscope.accounting.SummaryTable>of()
                : List.of(io.memscope.accounting.SummaryTable.USER, io.memscope.accounting.SummaryTable.HOST,
                io.memscope.accounting.SummaryTable.ACCOUNT, io.memscope.accounting.SummaryTable.THREAD,
                io.memscope.accounting.SummaryTable.GLOBAL)) {
            List<io.memscope.accounting.SummaryRow> rows = a.rows(t);
            if (rows.isEmpty()) {
                continue;
            }
            w.beginObject().field("title", io.memscope.analysis.AccountingSection.title(t)
                    + String.format(java.util.Locale.ROOT, " (at %.1f s)",
                    io.memscope.analysis.AccountingSection.atMs(r) / 1000)).field("table", t.name())
                    .field("sort", 4).field("intro", "The application's own accounting (MemoryAccounting), as "
                            + "last recorded: exact counts of its alloc and free calls; low and high watermarks "
                            + "of the bytes in use (exact per thread, bounds in the other tables).");
            w.name("columns").beginArray();
            String[][] columns = {{t == io.memscope.accounting.SummaryTable.GLOBAL ? "owner" : t.name()
                    .toLowerCase(java.util.Locale.ROOT), "text"}, {"instrument", "text"},
                {"low", "bytes"}, {"current", "bytes"}, {"high", "bytes"}, {"allocated", "bytes"},
                {"freed", "bytes"}, {"allocs", "count"}, {"frees", "count"}, {"current count", "count"},
                {"anomalies", "count"}};
            for (String[] c : columns) {
                w.beginObject().field("name", c[0]).field("unit", c[1]).endObject();
            }
            w.endArray();
            w.name("rows").beginArray();
            for (io.memscope.accounting.SummaryRow row : rows) {
                w.beginArray().value(io.memscope.analysis.AccountingSection.owner(t, row)).value(row.eventName())
                        .value(row.lowBytes()).value(row.currentBytes()).value(row.highBytes())
                        .value(row.get(io.memscope.accounting.Column.SUM_NUMBER_OF_BYTES_ALLOC))
                        .value(row.get(io.memscope.accounting.Column.SUM_NUMBER_OF_BYTES_FREE))
                        .value(row.get(io.memscope.accounting.Column.COUNT_ALLOC))
                        .value(row.get(io.memscope.accounting.Column.COUNT_FREE))
                        .value(row.get(io.memscope.accounting.Column.CURRENT_COUNT_USED))
                        .value(row.get(io.memscope.accounting.Column.COUNT_ANOMALIES)).endArray();
            }
            w.endArray().endObject();
        }
        w.endArray();
    }

    void gc(JsonWriter w) {
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
        Map<String, double[]> byCollector = new java.util.LinkedHashMap<>();
        for (GcRecord g : all) {
            double[] v = byCollector.computeIfAbsent(String.valueOf(g.name()), k -> new double[3]);
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
                    .field("timeMs", (g.startNanos() - runStart) / 1e6)
                    .field("durationMs", g.durationNanos() / 1e6)
                    .field("name", g.name())
                    .field("cause", g.cause())
                    .field("pause", g.isPause())
                    .field("usedBeforeBytes", g.heapUsedBefore())
                    .field("usedAfterBytes", g.heapUsedAfter())
                    .field("committedBytes", g.heapCommitted())
                    .field("examined", io.memscope.analysis.ReportJson.examined(g.examined()))
                    .endObject();
        }
        w.endArray().endObject();
    }

    void timeline(JsonWriter w) {
        Timeline t = r.timeline();
        if (t == null || t.buckets().isEmpty()) {
            w.name("timeline").value((String) null);
            return;
        }
        List<Timeline.Bucket> b = t.buckets();
        w.name("timeline").beginObject().field("bucketMs", t.bucketNanos() / 1e6);
        w.name("startMs").beginArray();
        b.forEach(x -> w.value(x.startMs()));
        w.endArray();
        column(w, "allocatedBytes", b, Timeline.Bucket::allocatedBytes);
        column(w, "heldBytes", b, Timeline.Bucket::heldBytes);
        column(w, "unconfirmedBytes", b, Timeline.Bucket::unconfirmedBytes);
        column(w, "heapUsedBytes", b, Timeline.Bucket::heapUsedBytes);
        column(w, "heapCommittedBytes", b, Timeline.Bucket::heapCommittedBytes);
        column(w, "nativeOutstandingBytes", b, Timeline.Bucket::nativeOutstandingBytes);
        w.name("gcPauseMs").beginArray();
        b.forEach(x -> w.value(x.gcPauseMs()));
        w.endArray();
        w.endObject();
    }

    void peak(JsonWriter w) {
        Peak p = r.peak();
        if (p == null) {
            w.name("peak").value((String) null);
            return;
        }
        w.name("peak").beginObject()
                .field("timeMs", p.timeMs())
                .field("gcName", p.gcName())
                .field("gcCause", p.gcCause())
                .field("heapUsedAfterGcBytes", p.heapUsedAfterGcBytes())
                .field("estimatedBytes", p.estimatedBytes())
                .field("estimatedObjects", p.estimatedObjects())
                .field("unconfirmedBytes", p.unconfirmedBytes());
        w.name("sites").beginArray();
        for (Peak.Holder h : p.sites()) {
            w.beginObject().field("site", h.site()).field("type", types.id(h.type())).field("bytes", h.bytes())
                    .field("count", h.count()).field("samples", h.samples());
            w.name("stack").beginArray();
            for (String f : h.stack()) {
                w.value(frames.id(f));
            }
            w.endArray().endObject();
        }
        w.endArray().endObject();
    }
}
