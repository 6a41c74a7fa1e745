package io.memscope.analysis.json;

import io.memscope.analysis.ApiReport;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * The API sections of a report ({@link ApiReport}) as JSON: {@code scopes}, {@code scopeAnomalies},
 * {@code samplesInScopes}, {@code functions}, {@code trackedObjects}, {@code pools} and {@code poolLeaks}, with the
 * names and meanings of docs/formats/report-json.md. The one writer of these sections: report.json and the page's
 * data (report.html) both write them here; they differ only in how a stack is written (frames as strings in
 * report.json, indexes into the page's frame table in the page).
 */
public final class ApiJson {
    private ApiJson() {
    }

    /**
     * Writes the API fields into the object {@code w} is in.
     *
     * @param stack writes a field {@code stack} of the given frames (innermost first)
     */
    public static void write(JsonWriter w, ApiReport a, BiConsumer<JsonWriter, List<String>> stack) {
        w.name("scopes").beginArray();
        for (ApiReport.ScopeRow s : a.scopes()) {
            w.beginObject().field("path", s.path()).field("name", s.name()).field("parentPath", s.parentPath())
                    .field("depth", s.depth()).field("entries", s.entries()).field("tasks", s.tasks())
                    .field("totalMs", s.totalMs()).field("maxMs", s.maxMs()).field("selfMs", s.selfMs())
                    .field("allocatedBytes", s.allocatedBytes()).field("selfAllocatedBytes", s.selfAllocatedBytes())
                    .field("entriesWithoutAllocation", s.entriesWithoutAllocation())
                    .field("sampledBytes", s.sampledBytes()).field("heldAtEndBytes", s.heldAtEndBytes())
                    .field("heldAtPeakBytes", s.heldAtPeakBytes()).endObject();
        }
        w.endArray();
        w.name("scopeAnomalies").beginObject();
        for (Map.Entry<String, Long> e : new TreeMap<>(a.scopeAnomalies()).entrySet()) { // by kind, every time
            w.field(e.getKey(), e.getValue());
        }
        w.endObject();
        w.field("samplesInScopes", a.samplesInScopes());
        w.name("functions").beginArray();
        for (ApiReport.FunctionRow f : a.functions()) {
            w.beginObject().field("function", f.function()).field("callSite", f.callSite())
                    .field("calls", f.calls()).field("recursiveCalls", f.recursiveCalls())
                    .field("totalMs", f.totalMs()).field("maxMs", f.maxMs())
                    .field("allocatedBytes", f.allocatedBytes()).field("heldAtEndBytes", f.heldAtEndBytes())
                    .field("heldAtPeakBytes", f.heldAtPeakBytes()).endObject();
        }
        w.endArray();
        w.name("trackedObjects").beginArray();
        for (ApiReport.TrackedObjectRow o : a.trackedObjects()) {
            w.beginObject().field("name", o.name()).field("type", o.type()).field("bytes", o.bytes())
                    .field("trackedAtMs", o.trackedAtMs());
            if (o.alive()) {
                w.nullField("collectedAtMs");
            } else {
                w.field("collectedAtMs", o.collectedAtMs());
            }
            w.field("ageMs", o.ageMs()).field("alive", o.alive()).endObject();
        }
        w.endArray();
        w.name("pools").beginArray();
        for (ApiReport.PoolRow p : a.pools()) {
            w.beginObject().field("pool", p.pool()).field("borrows", p.borrows()).field("returns", p.returns())
                    .field("notReturned", p.notReturned()).field("notReturnedBytes", p.notReturnedBytes())
                    .field("peakOutstanding", p.peakOutstanding()).field("leaks", p.leaks())
                    .field("doubleReturns", p.doubleReturns()).field("unknownReturns", p.unknownReturns())
                    .endObject();
        }
        w.endArray();
        w.name("poolLeaks").beginArray();
        for (ApiReport.PoolLeakRow l : a.poolLeaks()) {
            w.beginObject().field("pool", l.pool()).field("kind", l.kind()).field("leaseId", l.leaseId())
                    .field("resourceType", l.resourceType()).field("size", l.size())
                    .field("borrowedAtMs", l.borrowedAtMs()).field("thread", l.thread());
            stack.accept(w, l.stack());
            w.endObject();
        }
        w.endArray();
    }
}
