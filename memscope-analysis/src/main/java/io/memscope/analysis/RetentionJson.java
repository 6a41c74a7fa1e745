package io.memscope.analysis;

import io.memscope.analysis.json.JsonWriter;
import java.util.List;

/**
 * The paths from GC roots in report.json (docs/formats/report-json.md, "Why memory is held"): the top-level
 * {@code retention} object (the walk they come from) and each held site's {@code retainedBy} list. Also used for the
 * page's data and by {@code memscope paths --json}.
 */
public final class RetentionJson {
    private RetentionJson() {
    }

    /** {@code "retention": {...}}, or {@code null} without a walk. */
    public static void section(JsonWriter w, Retention r) {
        w.name("retention");
        walk(w, r.walk());
    }

    /** A walk as a JSON object value, or {@code null}. */
    public static void walk(JsonWriter w, Retention.Walk walk) {
        if (walk == null) {
            w.value((String) null);
            return;
        }
        w.beginObject()
                .field("trigger", walk.trigger())
                .field("timeMs", walk.timeMs())
                .field("outcome", walk.outcome())
                .field("complete", walk.complete())
                .field("pauseMs", walk.pauseMs())
                .field("totalMs", walk.totalMs())
                .field("objectsVisited", walk.objectsVisited())
                .field("referencesSeen", walk.referencesSeen())
                .field("memoryBytes", walk.memoryBytes())
                .field("samplesTracked", walk.samplesTracked())
                .field("samplesReached", walk.samplesReached())
                .field("detail", walk.detail())
                .endObject();
    }

    /** {@code "retainedBy": [ { "root", "path", "objects", "bytes", "samples" }, ... ]}. */
    public static void retainedBy(JsonWriter w, List<Retention.RetainedBy> shapes) {
        w.name("retainedBy").beginArray();
        for (Retention.RetainedBy s : shapes) {
            w.beginObject().field("root", s.root());
            w.name("path").beginArray();
            for (String step : s.path()) {
                w.value(step);
            }
            w.endArray();
            w.field("objects", s.objects()).field("bytes", s.bytes()).field("samples", s.samples()).endObject();
        }
        w.endArray();
    }
}
