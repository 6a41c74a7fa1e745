package io.memscope.analysis;

import io.memscope.analysis.json.JsonWriter;
import java.util.List;

/**
 * Writes a {@link RunDiff} as JSON ({@code memscope diff --json}; docs/formats/report-json.md, "memscope diff"):
 * {@code {"metric", "normalize", "unit", "base": {totals}, "new": {totals}, "totalChangePercent",
 * "significance": {test}, "total": {change}, "sites": [{"site", "type", "baseBytes", "newBytes", "deltaBytes",
 * "baseObjects", "newObjects", "baseSamples", "newSamples", "noiseBytes", "significant", "verdict", "stack"}],
 * "stacks": [...]}}. Byte and object figures are numbers, with up to 3 decimals when normalized.
 */
public final class DiffJson {
    private DiffJson() {
    }

    /**
     * Value of the {@code version} field: 2 since the totals of {@code base} and {@code new} are named as in
     * report.json ({@code heldAtEndBytes}, {@code peakHeldBytes}).
     */
    public static final int VERSION = 2;

    /**
     * @param top most sites and stacks listed (the largest changes); all when {@code <= 0}
     */
    public static String toJson(RunDiff d, int top) {
        JsonWriter w = new JsonWriter();
        DiffMetric m = d.metric();
        w.beginObject()
                .field("format", "memscope-diff")
                .field("version", VERSION)
                .field("metric", m.label())
                .field("normalize", d.normalization().kind())
                .field("unit", d.normalization().unit());
        figures(w, "base", d.base(), d.normalization().baseDivisor());
        figures(w, "new", d.newer(), d.normalization().newDivisor());
        w.field("totalChangePercent", d.totalChangePercent());
        RunDiff.Significance sig = d.significance();
        w.name("significance").beginObject()
                .field("test", "two-sided z-test of each change against its sampling noise, variance bound "
                        + "interval x estimate per run, Bonferroni over the sites and the total")
                .field("falseAlarmRate", SamplingNoise.FAMILY_FALSE_ALARM_RATE)
                .field("tests", sig.tests())
                .field("z", sig.z());
        if (sig.model() != null) {
            w.field("model", sig.model());
        }
        w.endObject();
        w.name("total").beginObject()
                .field("baseBytes", d.base().value(m))
                .field("newBytes", d.newer().value(m))
                .field("deltaBytes", d.newer().value(m) - d.base().value(m))
                .field("changePercent", d.totalChangePercent())
                .field("baseSamples", d.base().samples(m))
                .field("newSamples", d.newer().samples(m))
                .field("noiseBytes", sig.totalStdError())
                .field("significant", d.totalSignificant())
                .endObject();
        entries(w, "sites", d.sites(), m, top, false);
        entries(w, "stacks", d.stacks(), m, top, true);
        w.endObject();
        return w.toString() + "\n";
    }

    private static void figures(JsonWriter w, String name, RunDiff.Figures f, double divisor) {
        w.name(name).beginObject()
                .field("allocatedBytes", f.allocatedBytes())
                .field("allocatedObjects", f.allocatedObjects())
                .field("heldAtEndBytes", f.liveBytes())
                .field("peakHeldBytes", f.peakBytes())
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
                    .field("newObjects", e.newer().count(m))
                    .field("baseSamples", e.base().samples(m))
                    .field("newSamples", e.newer().samples(m))
                    .field("noiseBytes", e.stdError())
                    .field("significant", e.significant())
                    .field("verdict", e.verdict(m));
            w.name(stacks ? "frames" : "stack").beginArray();
            for (String f : e.frames()) {
                w.value(f);
            }
            w.endArray().endObject();
        }
        w.endArray();
    }
}
