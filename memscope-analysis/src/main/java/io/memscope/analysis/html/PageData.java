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

/**
 * The data a page shows, as the JSON document embedded in report.html ({@code format} {@value #FORMAT},
 * {@code version} {@value #VERSION}; every key is described in docs/formats/report-html.md), built from the
 * analysis model: a {@link Report} (one run) or a {@link RunDiff} (two runs compared). The page's script reads only
 * this document; every figure it shows is the analysis's, never computed anew in the page (it only sums stacks and
 * buckets, for flame graphs and time ranges). {@link ReportPageData} writes a report's document,
 * {@link DiffPageData} a comparison's; this class holds what both share: the format's constants, the string tables
 * and the column writers.
 *
 * <p>Frames and allocated types are stored once ({@code frames}, {@code frameKinds}, {@code types}) and referred to
 * by index; per-stack figures are stored by column ({@code stacks.allocBytes[i]} is stack {@code i}'s). At most
 * {@value #MAX_STACKS} stacks are listed, those with the largest share of any figure; the others are merged into
 * one box per figure, named {@code [N smaller stacks]}, so that every flame graph still adds up to its total.
 */
public final class PageData {
    /** Value of the document's {@code format} key. */
    public static final String FORMAT = "memscope-page";
    /** Value of the document's {@code version} key; incremented when a key changes meaning or is removed. */
    public static final int VERSION = 1;
    /** GC collections listed individually at most (as in report.json); percentiles and totals cover all. */
    public static final int MAX_GC_LISTED = 2000;
    /** Stacks listed individually at most; the rest are merged. */
    public static final int MAX_STACKS = 5_000;

    private PageData() {
    }

    /** Frame and type tables: each distinct string once, referred to by index. */
    static final class Strings {
        private final Map<String, Integer> index = new HashMap<>();
        private final List<String> values = new ArrayList<>();

        int id(String s) {
            return index.computeIfAbsent(s == null ? "?" : s, k -> {
                values.add(k);
                return values.size() - 1;
            });
        }

        List<String> values() {
            return values;
        }
    }

    static String siteKey(String site, String type) {
        return site + '\u0000' + type;
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

    interface LongAt {
        long at(int i);
    }

    static void indexed(JsonWriter w, String name, int n, LongAt f) {
        w.name(name).beginArray();
        for (int i = 0; i < n; i++) {
            w.value(f.at(i));
        }
        w.endArray();
    }

    static <T> void column(JsonWriter w, String name, List<T> rows, LongOf<T> f) {
        w.name(name).beginArray();
        for (T t : rows) {
            w.value(f.of(t));
        }
        w.endArray();
    }

    /** As {@link #column}, with {@code null} for a negative value (not known at that row). */
    static <T> void columnOrNull(JsonWriter w, String name, List<T> rows, LongOf<T> f) {
        w.name(name).beginArray();
        for (T t : rows) {
            long v = f.of(t);
            if (v < 0) {
                w.nullValue();
            } else {
                w.value(v);
            }
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
