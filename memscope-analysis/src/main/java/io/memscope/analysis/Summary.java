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
        if (src.damage() != null && src.closed()) {
            sb.append("  ! the recording is damaged at offset ").append(src.damageOffset()).append(": ")
                    .append(src.damage()).append("; this report covers what comes before\n");
        }
        sb.append(String.format(Locale.ROOT, "  heap: %s allocated in %s objects%s, peak live %s, live at end %s%n",
                bytes(t.allocatedBytes()), count(t.allocatedObjects()), t.exact() ? "" : " (estimated from "
                        + t.samples() + " samples)", bytes(t.peakLiveBytes()), bytes(t.liveBytesAtEnd())));
        section(sb, "Top allocation sites (allocated)", r.topAllocationSites(), false);
        section(sb, "Top sites by live bytes at end", r.topLiveSites(), false);
        section(sb, "Leak suspects (still alive at end and growing)", r.leakSuspects(), true);
        section(sb, "Temporaries (allocated much, kept little)", r.temporaries(), false);
        Report.NativeMemory n = r.nativeMemory();
        sb.append(String.format(Locale.ROOT, "  Native memory: %s allocated in %d blocks, %s freed, %s outstanding "
                + "in %d blocks (peak %s)%n", bytes(n.allocatedBytes()), n.allocations(), bytes(n.freedBytes()),
                bytes(n.outstandingBytes()), n.outstandingBlocks(), bytes(n.peakOutstandingBytes())));
        int i = 0;
        for (Report.SiteEntry e : n.leaks()) {
            if (i++ == ROWS) {
                break;
            }
            sb.append(String.format(Locale.ROOT, "    %10s in %5d blocks  %s  [%s]%n", bytes(e.bytes()), e.count(),
                    e.site(), e.type()));
        }
        if (!n.anomalies().isEmpty()) {
            sb.append("    anomalies: ").append(n.anomalies().size()).append(" (");
            sb.append(n.anomalies().stream().map(Anomaly::kind).distinct().reduce((a, b) -> a + ", " + b)
                    .orElse("")).append(")\n");
        }
        Report.Gc g = r.gc();
        sb.append(String.format(Locale.ROOT, "  GC: %d collections, %d pauses, total pause %.1f ms, max pause %.1f ms,"
                + " max heap after GC %s%n", g.count(), g.pauseCount(), g.pauseTotalMs(), g.pauseMaxMs(),
                bytes(g.maxHeapAfterGcBytes())));
        if (r.failureCount() > 0) {
            sb.append("  memscope failures inside the JVM: ").append(r.failureCount());
            if (!r.failures().isEmpty()) {
                sb.append(" (first: ").append(r.failures().get(0)).append(')');
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static void section(StringBuilder sb, String title, List<Report.SiteEntry> entries, boolean growth) {
        sb.append("  ").append(title).append(':');
        if (entries.isEmpty()) {
            sb.append(" none\n");
            return;
        }
        sb.append('\n');
        int i = 0;
        for (Report.SiteEntry e : entries) {
            if (i++ == ROWS) {
                break;
            }
            sb.append(String.format(Locale.ROOT, "    %10s %12s obj  %s  [%s]", bytes(e.bytes()), count(e.count()),
                    e.site(), e.type()));
            if (growth) {
                sb.append(String.format(Locale.ROOT, " +%s over its second half", bytes(e.growthBytes())));
            }
            sb.append('\n');
        }
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
