package io.memscope.analysis;

import io.memscope.recording.Anomaly;
import io.memscope.recording.MetadataKeys;
import java.util.List;
import java.util.Locale;

/** The terminal summary of a {@link Report}: the same content as report.json, for people. */
public final class Summary {
    /** Rows per section. */
    public static final int ROWS = 5;

    private Summary() {
    }

    public static String format(Report r) {
        StringBuilder sb = new StringBuilder(2048);
        Report.Totals t = r.totals();
        String pid = r.metadata().getOrDefault(MetadataKeys.PID, "?");
        String cmd = r.metadata().getOrDefault(MetadataKeys.COMMAND, "");
        sb.append("memscope report for pid ").append(pid);
        if (!cmd.isEmpty()) {
            sb.append(" (").append(abbreviate(cmd, 60)).append(')');
        }
        sb.append(String.format(Locale.ROOT, ", %.1f s, %s mode%n", t.durationMs() / 1000.0,
                t.exact() ? "exact" : "sample"));
        Report.Source src = r.recording();
        if (!src.closed()) {
            sb.append("  ! the recording was not closed: the JVM ended without closing it (killed, crashed, out of "
                    + "memory) or is still running; this report covers what it recorded up to its last complete "
                    + "block\n");
        }
        if (t.exact() && !Double.isNaN(t.exactCountsAsOfMs())) {
            sb.append(String.format(Locale.ROOT, "  ! exact counts as of %.1f s: the last snapshot the JVM wrote "
                    + "before it ended; allocations after it are not counted%n", t.exactCountsAsOfMs() / 1000));
        }
        if (src.damage() != null && src.closed()) {
            sb.append("  ! the recording is damaged at offset ").append(src.damageOffset()).append(": ")
                    .append(src.damage()).append("; this report covers what comes before\n");
        }
        if (recordedNothing(r)) {
            sb.append("  nothing recorded: no allocation sampled, no GC, no native memory, no use of memscope's API\n");
            return sb.toString();
        }
        Report.Window win = r.window();
        if (win.restricted()) {
            sb.append(String.format(Locale.ROOT, "  window: %.3f s to %.3f s of the run%n", win.fromMs() / 1000,
                    win.toMs() / 1000));
        }
        sb.append(String.format(Locale.ROOT, "  heap: %s allocated in %s objects%s; held at the peak %s, at the end "
                        + "%s (held: reachable at a GC, estimated)%n",
                bytes(t.allocatedBytes()), count(t.allocatedObjects()), t.exact() ? "" : " (estimated from "
                        + t.samples() + " samples)", bytes(t.peakLiveBytes()), bytes(t.liveBytesAtEnd())));
        Peak peak = r.peak();
        if (peak != null) {
            String cause = peak.gcCause() == null || peak.gcCause().isEmpty() ? "" : " (" + peak.gcCause() + ")";
            sb.append(String.format(Locale.ROOT, "  Peak: at %.2f s, after %s%s: heap %s in use, %s held by "
                            + "sampled objects:%n", peak.timeMs() / 1000, peak.gcName(), cause,
                    bytes(peak.heapUsedAfterGcBytes()), bytes(peak.estimatedBytes())));
            holders(sb, peak.sites(), "obj");
        } else {
            sb.append("  Peak: unknown: no GC record in the recording (held memory is known only at a GC; none ran, "
                    + "or GC capture was off; --gc-at-end forces one at the end)\n");
        }
        String spark = sparklines(r.timeline());
        if (!spark.isEmpty()) {
            sb.append(spark);
        }
        section(sb, "Top allocation sites (allocated)", r.topAllocationSites(), false, false);
        section(sb, "Top sites by held bytes at the end", r.topLiveSites(), true, false);
        section(sb, "Leak suspects (held at the end and growing)", r.leakSuspects(), true, true, r.retention());
        RetentionSummary.note(sb, r.retention());
        section(sb, "Temporaries (allocated much, kept little)", r.temporaries(), false, false);
        Report.NativeMemory n = r.nativeMemory();
        sb.append(String.format(Locale.ROOT, "  Native memory: %s allocated in %d blocks, %s freed, %s outstanding "
                + "in %d blocks (peak %s)%n", bytes(n.allocatedBytes()), n.allocations(), bytes(n.freedBytes()),
                bytes(n.outstandingBytes()), n.outstandingBlocks(), bytes(n.peakOutstandingBytes())));
        int i = 0;
        for (SiteProfile e : n.leaks()) {
            if (i++ == ROWS) {
                break;
            }
            sb.append(String.format(Locale.ROOT, "    %10s in %5d blocks  %s  [%s]%n", bytes(e.liveBytes()),
                    e.liveObjects(), e.site(), e.type()));
        }
        if (n.peak() != null && n.peak().outstandingBytes() > n.outstandingBytes()) {
            sb.append(String.format(Locale.ROOT, "    native peak at %.2f s: %s outstanding%n",
                    n.peak().timeMs() / 1000, bytes(n.peak().outstandingBytes())));
            holders(sb, n.peak().sites(), "blk");
        }
        if (!n.anomalies().isEmpty()) {
            sb.append("    anomalies: ").append(n.anomalies().size()).append(" (");
            sb.append(n.anomalies().stream().map(Anomaly::kind).distinct().reduce((x, y) -> x + ", " + y)
                    .orElse("")).append(")\n");
        }
        Report.Gc g = r.gc();
        sb.append(String.format(Locale.ROOT, "  GC: %d collections, %d pauses, total pause %.1f ms, max pause %.1f ms,"
                + " max heap after GC %s%n", g.count(), g.pauseCount(), g.pauseTotalMs(), g.pauseMaxMs(),
                bytes(g.maxHeapAfterGcBytes())));
        ApiSummary.format(sb, r.api());
        AccountingSection.summary(sb, r);
        if (r.failureCount() > 0) {
            sb.append("  memscope failures inside the JVM: ").append(r.failureCount());
            if (!r.failures().isEmpty()) {
                sb.append(" (first: ").append(r.failures().get(0)).append(')');
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * True for a JVM that left nothing to report (typically a short-lived helper JVM of a build, such as a
     * {@code java -version} probe): its summary is one line instead of a page of empty sections.
     */
    private static boolean recordedNothing(Report r) {
        Report.Totals t = r.totals();
        return t.allocatedObjects() == 0 && t.samples() == 0 && r.gc().count() == 0
                && r.nativeMemory().allocations() == 0 && r.api().isEmpty() && r.accounting() == null
                && r.failureCount() == 0 && r.recording().closed() && r.recording().damage() == null
                && !r.window().restricted();
    }

    private static void section(StringBuilder sb, String title, List<SiteProfile> entries, boolean live,
                                boolean growth) {
        section(sb, title, entries, live, growth, null);
    }

    /** With {@code retention}, each site's main path from a GC root follows on a line of its own. */
    private static void section(StringBuilder sb, String title, List<SiteProfile> entries, boolean live,
                                boolean growth, Retention retention) {
        sb.append("  ").append(title).append(':');
        if (entries.isEmpty()) {
            sb.append(" none\n");
            return;
        }
        sb.append('\n');
        int i = 0;
        for (SiteProfile e : entries) {
            if (i++ == ROWS) {
                break;
            }
            sb.append(String.format(Locale.ROOT, "    %10s %12s obj  %s  [%s]", bytes(live ? e.liveBytes()
                    : e.allocatedBytes()), count(live ? e.liveObjects() : e.allocatedObjects()), e.site(), e.type()));
            if (growth) {
                sb.append(String.format(Locale.ROOT, " +%s over its second half", bytes(e.growthBytes())));
            }
            sb.append('\n');
            if (retention != null) {
                RetentionSummary.line(sb, retention, e);
            }
        }
    }

    private static void holders(StringBuilder sb, List<Peak.Holder> holders, String unit) {
        int i = 0;
        for (Peak.Holder h : holders) {
            if (i++ == ROWS) {
                break;
            }
            sb.append(String.format(Locale.ROOT, "    %10s %12s %s  %s  [%s]%n", bytes(h.bytes()), count(h.count()),
                    unit, h.site(), h.type()));
        }
    }

    /** Width of the sparklines, in characters. */
    static final int SPARK = 48;
    private static final char[] BARS = {'\u2581', '\u2582', '\u2583', '\u2584', '\u2585', '\u2586', '\u2587',
        '\u2588'};

    /**
     * One line: the heap in use after GC and the held memory over the timeline, as sparklines on one scale (the
     * highest of both), each character the maximum of its buckets; blank before the first collection.
     */
    static String sparklines(Timeline t) {
        List<Timeline.Bucket> b = t.buckets();
        if (b.isEmpty()) {
            return "";
        }
        long max = 0;
        for (Timeline.Bucket x : b) {
            max = Math.max(max, Math.max(x.heapUsedBytes(), x.heldBytes()));
        }
        if (max == 0) {
            return "";
        }
        int width = Math.min(SPARK, b.size());
        StringBuilder heap = new StringBuilder(width);
        StringBuilder held = new StringBuilder(width);
        for (int c = 0; c < width; c++) {
            int from = (int) ((long) c * b.size() / width);
            int to = (int) ((long) (c + 1) * b.size() / width);
            long h = 0;
            long k = 0;
            for (int i = from; i < Math.max(to, from + 1); i++) {
                h = Math.max(h, b.get(i).heapUsedBytes());
                k = Math.max(k, b.get(i).heldBytes());
            }
            heap.append(bar(h, max));
            held.append(bar(k, max));
        }
        return String.format(Locale.ROOT, "  over time (0 .. %s): heap after GC %s  held %s%n", bytes(max), heap,
                held);
    }

    private static char bar(long v, long max) {
        if (v <= 0) {
            return ' ';
        }
        return BARS[(int) Math.min(BARS.length - 1, v * BARS.length / (max + 1))];
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 3) + "...";
    }

    /** Formats bytes with binary units, for example {@code 1.5 MiB}. */
    public static String bytes(long b) {
        if (b < 1024) {
            return b + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = b;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    private static String count(long c) {
        return String.format(Locale.ROOT, "%,d", c);
    }
}
