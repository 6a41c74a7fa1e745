package io.memscope.analysis.html;

import io.memscope.analysis.json.JsonWriter;
import io.memscope.analysis.Report;
import io.memscope.analysis.Retention;
import io.memscope.analysis.RetentionJson;
import io.memscope.analysis.SiteProfile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The page's data for "Why memory is held" (retention.js): the walk, and the heap sites it reached with their shapes
 * (report.json's {@code retainedBy}), leak suspects first, then by the bytes their shapes keep alive; at most
 * {@value #MAX_SITES} sites.
 *
 * <pre>
 * "retention": null | { "walk": {...as report.json's retention...},
 *                       "sites": [ { "site", "type", "heldBytes", "leak", "retainedBy": [ {root, path, objects,
 *                                    bytes, samples} ] } ] }
 * </pre>
 */
final class RetentionPageData {
    /** Sites on the page at most. */
    static final int MAX_SITES = 50;

    private RetentionPageData() {
    }

    static void write(JsonWriter w, Report r) {
        Retention retention = r.retention();
        if (retention.walk() == null) {
            w.name("retention").value((String) null);
            return;
        }
        record Held(SiteProfile site, List<Retention.RetainedBy> shapes, long bytes) {
        }
        List<Held> held = new ArrayList<>();
        for (SiteProfile s : r.sites()) {
            List<Retention.RetainedBy> shapes = s.nativeMemory() ? List.of() : retention.of(s);
            if (!shapes.isEmpty()) {
                held.add(new Held(s, shapes, shapes.stream().mapToLong(Retention.RetainedBy::bytes).sum()));
            }
        }
        held.sort(Comparator.comparing((Held h) -> !h.site.leakSuspect()).thenComparingLong(h -> -h.bytes)
                .thenComparing(h -> h.site.site()));
        w.name("retention").beginObject();
        w.name("walk");
        RetentionJson.walk(w, retention.walk());
        w.name("sites").beginArray();
        for (Held h : held.subList(0, Math.min(MAX_SITES, held.size()))) {
            w.beginObject().field("site", h.site.site()).field("type", h.site.type())
                    .field("heldBytes", h.site.liveBytes()).field("leak", h.site.leakSuspect());
            RetentionJson.retainedBy(w, h.shapes);
            w.endObject();
        }
        w.endArray().endObject();
    }
}
