package io.memscope.analysis;

import java.util.List;

/**
 * Writes a {@link RunDiff} as JSON ({@code memscope diff --json}; docs/formats/report-json.md, "memscope diff"):
 * {@code {"metric", "normalize", "unit", "base": {totals}, "new": {totals}, "totalChangePercent",
 * "sites": [{"site", "type", "baseBytes", "newBytes", "deltaBytes", "baseObjects", "newObjects", "stack"}],
 * "stacks": [...]}}. Byte and object figures are numbers, with up to 3 decimals when normalized.
 */
public final class DiffJson {
    private DiffJson() {
    }

    /**
     * @param top most sites and stacks listed (the largest changes); all when {@code <= 0}
     */
    public static String toJson(RunDiff d, int top) {
        JsonWriter w = new JsonWriter();
        DiffMetric m = d.metric();
        w.beginObject()
                .field("format", "memscope-diff")
                .field("version", 1)
                .field("metric", m.label())
                .field("normalize", d.normalization().kind())
                .field("unit", d.normalization().unit());
        figures(w, "base", d.base(), d.normalization().baseDivisor());
        figures(w, "new", d.newer(), d.normalization().newDivisor());
        w.field("totalChangePercent", d.totalChangePercent());
        entries(w, "sites", d.sites(), m, top, false);
        entries(w, "stacks", d.stacks(), m, top, true);
        w.endObject();
        return w.toString() + "\n";
    }

    private static void figures(JsonWriter w, String name, RunDiff.Figures f, double divisor) {
        w.name(name).beginObject()
                .field("allocatedBytes", f.allocatedBytes())
                .field("allocatedObjects", f.allocatedObjects())
                .field("liveBytesAtEnd", f.liveBytes())
                .field("peakLiveBytes", f.peakBytes())
                .field("nativeOutstandingBytes", f.nativeBytes())
                .field("divisor", divisor)
                .endObject();
    }

    private static void entries(JsonWriter w, String name, List<RunDiff.Entry> list, DiffMetric m, int top,
                                boolean stacks) {
        w.name(name).beginArray();
        int n = 0;
        for (RunDiff.Entry e : list) {
            if (top > 0 && n++ == top) {
                break;
            }
            w.beginObject()
                    .field("site", e.site())
                    .field("type", e.type())
                    .field("baseBytes", e.base().value(m))
                    .field("newBytes", e.newer().value(m))
                    .field("deltaBytes", e.delta(m))
                    .field("baseObjects", e.base().count(m))
                    .field("newObjects", e.newer().count(m));
            w.name(stacks ? "frames" : "stack").beginArray();
            for (String f : e.frames()) {
                w.value(f);
            }
            w.endArray().endObject();
        }
        w.endArray();
    }
}
