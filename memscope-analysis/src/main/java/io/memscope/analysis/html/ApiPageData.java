package io.memscope.analysis.html;

import io.memscope.analysis.ApiReport;
import io.memscope.analysis.json.ApiJson;
import io.memscope.analysis.json.JsonWriter;
import io.memscope.analysis.StackProfile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The page-data keys of a report's API sections ({@link ApiReport}): those of report.json, written by
 * {@link ApiJson} with stacks as frame indexes into the page's frame table, and the page's own {@code scopeStacks}:
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
        ApiJson.write(w, a, (out, stack) -> {
            out.name("stack").beginArray();
            for (String f : stack) {
                out.value(frames.id(f));
            }
            out.endArray();
        });
        scopeStacks(w, a, kept, merged);
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
            v[1] += r.heldAtEndBytes();
            v[2] += r.heldAtPeakBytes();
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
