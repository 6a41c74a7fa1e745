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
 * The page data of two runs compared ({@code "kind": "diff"} of the document {@link PageData} describes): both
 * runs' figures, the differential stacks and sites, each change with its sampling noise.
 */
public final class DiffPageData {
    /**
     * @param diff      the comparison
     * @param base      the base run's report (for its command, length and date)
     * @param baseLabel how to name the base run (the path given)
     * @param newer     the new run's report
     * @param newLabel  how to name the new run
     * @return the page data of two runs compared
     */
    public static String of(RunDiff diff, Report base, String baseLabel, Report newer, String newLabel) {
        return new DiffPageData(diff, base, baseLabel, newer, newLabel).json();
    }

    final RunDiff d;
    final Report base;
    final String baseLabel;
    final Report newer;
    final String newLabel;
    final Strings frames = new Strings();
    final Strings types = new Strings();

    private DiffPageData(RunDiff d, Report base, String baseLabel, Report newer, String newLabel) {
        this.d = d;
        this.base = base;
        this.baseLabel = baseLabel;
        this.newer = newer;
        this.newLabel = newLabel;
    }

    String json() {
        DiffMetric m = d.metric();
        List<RunDiff.Entry> stacks = d.stacks().size() <= MAX_STACKS ? d.stacks()
                : d.stacks().subList(0, MAX_STACKS); // largest absolute change first
        String command = newer.metadata().getOrDefault(MetadataKeys.COMMAND, "");
        FrameKinds kinds = FrameKinds.of(command, stacks.stream().map(RunDiff.Entry::frames).toList());
        String unit = d.normalization().unit();
        JsonWriter w = JsonWriter.compact();
        w.beginObject().field("format", FORMAT).field("version", VERSION).field("kind", "diff");
        w.name("meta").beginObject()
                .field("metric", m.label())
                .field("metricLabel", label(m) + (unit.equals("bytes") ? "" : " (" + unit + ")"))
                .field("normalized", !d.normalization().kind().equals("none"))
                .field("per", d.normalization().kind().equals("per-unit") ? "unit of work"
                        : d.normalization().kind().equals("duration") ? "second" : null)
                .field("applicationPackage", kinds.applicationPrefix());
        RunDiff.Significance sig = d.significance();
        // a change is significant beyond z·√(baseFactor·|base| + newFactor·|new|) (SamplingNoise)
        w.name("noise").beginObject()
                .field("z", sig.z())
                .field("tests", sig.tests())
                .field("baseFactor", sig.baseFactor())
                .field("newFactor", sig.newFactor())
                .field("falseAlarmRate", io.memscope.analysis.SamplingNoise.FAMILY_FALSE_ALARM_RATE)
                .endObject();
        run(w, "base", base, baseLabel);
        run(w, "new", newer, newLabel);
        w.endObject();
        w.name("totals").beginObject()
                .field("baseBytes", Math.round(d.base().value(m)))
                .field("newBytes", Math.round(d.newer().value(m)))
                .field("changePercent", d.totalChangePercent())
                .field("significant", d.totalSignificant())
                .field("noiseBytes", Math.round(sig.z() * sig.totalStdError()))
                .field("baseSamples", d.base().samples(m))
                .field("newSamples", d.newer().samples(m))
                .endObject();
        w.name("stacks").beginObject();
        w.name("frames").beginArray();
        for (RunDiff.Entry e : stacks) {
            w.beginArray();
            for (String f : e.frames().isEmpty() ? List.of(e.site()) : e.frames()) {
                w.value(frames.id(f));
            }
            w.endArray();
        }
        w.endArray();
        column(w, "type", stacks, e -> types.id(e.type()));
        column(w, "baseBytes", stacks, e -> Math.round(e.base().value(m)));
        column(w, "newBytes", stacks, e -> Math.round(e.newer().value(m)));
        column(w, "deltaBytes", stacks, e -> Math.round(e.newer().value(m)) - Math.round(e.base().value(m)));
        w.endObject();
        Map<String, List<Integer>> stacksOfSite = new HashMap<>();
        for (int i = 0; i < stacks.size(); i++) {
            stacksOfSite.computeIfAbsent(siteKey(stacks.get(i).site(), stacks.get(i).type()),
                    k -> new ArrayList<>()).add(i);
        }
        w.name("diffSites").beginArray();
        for (RunDiff.Entry e : d.sites()) {
            long b = Math.round(e.base().value(m));
            long n = Math.round(e.newer().value(m));
            if (b == 0 && n == 0) {
                continue;
            }
            w.beginObject().field("site", e.site()).field("type", types.id(e.type())).field("baseBytes", b)
                    .field("newBytes", n).field("deltaBytes", n - b)
                    .field("baseSamples", e.base().samples(m)).field("newSamples", e.newer().samples(m))
                    .field("significant", e.significant()).field("verdict", e.verdict(m))
                    .field("noiseBytes", Math.round(sig.z() * e.stdError()));
            w.name("stacks").beginArray();
            for (int x : stacksOfSite.getOrDefault(siteKey(e.site(), e.type()), List.of())) {
                w.value(x);
            }
            w.endArray().endObject();
        }
        w.endArray();
        w.name("notes").beginArray();
        if (stacks.size() < d.stacks().size()) {
            w.value("The flame graph shows the " + stacks.size() + " stacks that changed most, of "
                    + d.stacks().size() + ".");
        }
        w.endArray();
        w.name("frames").beginArray();
        frames.values().forEach(w::value);
        w.endArray();
        w.name("frameKinds").beginArray();
        frames.values().forEach(f -> w.value(kinds.kind(f)));
        w.endArray();
        w.name("types").beginArray();
        types.values().forEach(w::value);
        w.endArray();
        w.endObject();
        return w.toString();
    }

    static String label(DiffMetric m) {
        return switch (m) {
            case ALLOCATED -> "allocated bytes";
            case LIVE -> "bytes held at the end";
            case PEAK -> "bytes held at the peak";
            case NATIVE -> "native bytes outstanding at the end";
        };
    }

    static void run(JsonWriter w, String name, Report r, String label) {
        w.name(name).beginObject()
                .field("label", label)
                .field("command", r.metadata().getOrDefault(MetadataKeys.COMMAND, ""))
                .field("pid", r.metadata().getOrDefault(MetadataKeys.PID, ""))
                .field("durationMs", r.totals().durationMs())
                .field("startEpochMs", parseLong(r.metadata().get(MetadataKeys.START_EPOCH_MS), 0))
                .endObject();
    }
}
