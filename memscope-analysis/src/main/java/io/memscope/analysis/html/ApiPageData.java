package io.memscope.analysis.html;

import io.memscope.analysis.ApiReport;
import io.memscope.analysis.json.JsonWriter;
import io.memscope.analysis.StackProfile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The page-data keys of a report's API sections ({@link ApiReport}): {@code scopes}, {@code scopeStacks},
 * {@code scopeAnomalies}, {@code samplesInScopes}, {@code functions}, {@code trackedObjects}, {@code pools},
 * {@code poolLeaks} (docs/formats/report-html.md). Stacks are written as frame indexes into the page's frame table;
 * a scope's stacks refer to the page's {@code stacks} by index, so the flame graph can be restricted to a scope.
 */
final class ApiPageData {
    private ApiPageData() {
    }

    /**
     * Writes the API keys.
     *
     * @param kept   the stacks the page lists, in their order (their index is the page's stack index)
     * @param merged the index of the stack {@code [N smaller stacks]}, -1 when the page lists every stack
     * @param frames the page's frame table
     */
    static void write(JsonWriter w, ApiReport a, List<StackProfile> kept, int merged, PageData.Strings frames) {
        scopes(w, a);
        scopeStacks(w, a, kept, merged);
        w.name("scopeAnomalies").beginObject();
        for (Map.Entry<String, Long> e : new java.util.TreeMap<>(a.scopeAnomalies()).entrySet()) {
            w.field(e.getKey(), e.getValue());
        }
        w.endObject();
        w.field("samplesInScopes", a.samplesInScopes());
        w.name("functions").beginArray();
        for (ApiReport.FunctionRow f : a.functions()) {
            w.beginObject().field("function", f.function()).field("callSite", f.callSite())
                    .field("calls", f.calls()).field("recursiveCalls", f.recursiveCalls())
                    .field("totalMs", f.totalMs()).field("maxMs", f.maxMs())
                    .field("allocatedBytes", f.allocatedBytes()).field("heldAtEndBytes", f.liveBytes())
                    .field("heldAtPeakBytes", f.peakBytes()).endObject();
        }
        w.endArray();
        w.name("trackedObjects").beginArray();
        for (ApiReport.TrackedObjectRow o : a.trackedObjects()) {
            w.beginObject().field("name", o.name()).field("type", o.type()).field("bytes", o.bytes())
                    .field("trackedAtMs", o.trackedAtMs()).field("collectedAtMs", o.alive() ? -1 : o.collectedAtMs())
                    .field("ageMs", o.ageMs()).field("alive", o.alive()).endObject();
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
            w.name("stack").beginArray();
            for (String f : l.stack()) {
                w.value(frames.id(f));
            }
            w.endArray().endObject();
        }
        w.endArray();
    }

    private static void scopes(JsonWriter w, ApiReport a) {
        w.name("scopes").beginArray();
        for (ApiReport.ScopeRow s : a.scopes()) {
            w.beginObject().field("path", s.path()).field("name", s.name()).field("parentPath", s.parentPath())
                    .field("depth", s.depth()).field("entries", s.entries()).field("tasks", s.tasks())
                    .field("totalMs", s.totalMs()).field("maxMs", s.maxMs()).field("selfMs", s.selfMs())
                    .field("allocatedBytes", s.allocatedBytes()).field("selfAllocatedBytes", s.selfAllocatedBytes())
                    .field("entriesWithoutAllocation", s.entriesWithoutAllocation())
                    .field("sampledBytes", s.sampledBytes()).field("heldAtEndBytes", s.heldBytesAtEnd())
                    .field("heldAtPeakBytes", s.heldBytesAtPeak()).endObject();
        }
        w.endArray();
    }

    /**
     * {@code scopeStacks}: by scope path, a flat list {@code [stack, sampled, heldAtEnd, heldAtPeak, ...]} of the
     * page's stacks; what falls on a stack the page merged into {@code [N smaller stacks]} counts there (the last
     * stack) when there is one.
     */
    private static void scopeStacks(JsonWriter w, ApiReport a, List<StackProfile> kept, int merged) {
        Map<String, Integer> exact = new HashMap<>();
        Map<String, Integer> loose = new HashMap<>();
        for (int i = 0; i < kept.size(); i++) {
            StackProfile s = kept.get(i);
            if (s.nativeMemory()) {
                continue;
            }
            List<String> frames = s.frames().isEmpty() ? List.of(s.site()) : s.frames();
            exact.putIfAbsent(key(frames, s.site(), s.type()), i);
            loose.putIfAbsent(key(frames, s.site(), null), i);
        }
        Map<String, Map<Integer, long[]>> byPath = new LinkedHashMap<>();
        long unmatched = 0;
        for (ApiReport.ScopeStackRow r : a.scopeStacks()) {
            Integer i = exact.get(key(r.frames(), r.site(), r.type()));
            if (i == null) {
                i = loose.get(key(r.frames(), r.site(), null));
            }
            if (i == null && merged >= 0) {
                i = merged;
            }
            if (i == null) {
                unmatched += r.sampledBytes();
                continue;
            }
            long[] v = byPath.computeIfAbsent(r.path(), k -> new LinkedHashMap<>()).computeIfAbsent(i,
                    k -> new long[3]);
            v[0] += r.sampledBytes();
            v[1] += r.heldBytesAtEnd();
            v[2] += r.heldBytesAtPeak();
        }
        w.name("scopeStacks").beginObject();
        for (Map.Entry<String, Map<Integer, long[]>> e : byPath.entrySet()) {
            w.name(e.getKey()).beginArray();
            for (Map.Entry<Integer, long[]> s : e.getValue().entrySet()) {
                w.value(s.getKey()).value(s.getValue()[0]).value(s.getValue()[1]).value(s.getValue()[2]);
            }
            w.endArray();
        }
        w.endObject();
        w.field("scopeStacksUnlistedBytes", unmatched);
    }

    private static String key(List<String> frames, String site, String type) {
        List<String> k = new ArrayList<>(frames);
        k.add(site);
        k.add(type);
        return String.join("\u0000", k.stream().map(String::valueOf).toList());
    }
}
