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
                        + "%s (held: reachable at a GC that examined the whole heap, estimated)%n",
                bytes(t.allocatedBytes()), count(t.allocatedObjects()), t.exact() ? "" : " (estimated from "
                        + t.samples() + " samples)", bytes(t.peakLiveBytes()), bytes(t.liveBytesAtEnd())));
        if (large(t.unconfirmedAtEndBytes(), t.liveBytesAtEnd())) {
            sb.append(String.format(Locale.ROOT, "  ! %s more at the end is unconfirmed: it survived only young "
                    + "collections, which do not look at the old generation, so it may be garbage; not counted as "
                    + "held%s%n", bytes(t.unconfirmedAtEndBytes()), endCheckNote(r)));
        }
        String contradiction = heapCheckMessage(r);
        if (contradiction != null) {
            sb.append("  ! ").append(contradiction).append(System.lineSeparator());
        }
        Peak peak = r.peak();
        if (peak != null) {
            String cause = peak.gcCause() == null || peak.gcCause().isEmpty() ? "" : " (" + peak.gcCause() + ")";
            sb.append(String.format(Locale.ROOT, "  Peak: at %.2f s, after %s%s: heap %s in use, %s held by "
                            + "sampled objects%s:%n", peak.timeMs() / 1000, peak.gcName(), cause,
                    bytes(peak.heapUsedAfterGcBytes()), bytes(peak.estimatedBytes()),
                    large(peak.unconfirmedBytes(), peak.estimatedBytes())
                            ? " (" + bytes(peak.unconfirmedBytes()) + " more unconfirmed)" : ""));
            holders(sb, peak.sites(), "obj");
        } else {
            sb.append("  Peak: unknown: no collection of the whole heap in the recording (held memory is known only "
                    + "at one; none ran, GC capture was off, or the end check was off or skipped)\n");
        }
        String spark = sparklines(r.timeline());
        if (!spark.isEmpty()) {
            sb.append(spark);
        }
        section(sb, "Top allocation sites (allocated)", r.topAllocationSites(), false, false);
        section(sb, "Top sites by held bytes at the end", r.topLiveSites(), true, false);
        if (t.wholeHeapCollections() < 3 && r.leakSuspects().isEmpty()) {
            sb.append(String.format(Locale.ROOT, "  Leak suspects: not judged: the window had %d collection%s that "
                    + "examined the whole heap, and a leak must be seen growing at three (a longer run, or a collector "
                    + "that collects the old generation, gives more)%n", t.wholeHeapCollections(),
                    t.wholeHeapCollections() == 1 ? "" : "s"));
        } else {
            section(sb, "Leak suspects (held at whole-heap collections and growing)", r.leakSuspects(), true, true);
        }
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
            if (growth && e.growth() != null) {
                SiteProfile.Growth g = e.growth();
                sb.append(String.format(Locale.ROOT, " held %s at %.1f s, %s at %.1f s, %s at %.1f s",
                        bytes(g.firstBytes()), g.firstMs() / 1000, bytes(g.secondBytes()), g.secondMs() / 1000,
                        bytes(g.endBytes()), g.endMs() / 1000));
            }
            if (live && large(e.unconfirmedBytes(), e.liveBytes())) {
                sb.append(" (+").append(bytes(e.unconfirmedBytes())).append(" unconfirmed)");
            }
            sb.append('\n');
        }
    }

    /**
     * The estimates against the JVM's own heap figures, said as a contradiction when they disagree beyond the
     * estimate's error (the summary's and the page's one wording).
     *
     * @return the message, or null when the estimates stayed within their error of the JVM's figures
     */
    public static String heapCheckMessage(Report r) {
        Report.HeapCheck hc = r.heapCheck();
        if (hc.consistent()) {
            return null;
        }
        String worst = String.format(Locale.ROOT, "%s (standard error %s) against %s in use after %s at %.2f s",
                bytes(hc.worstEstimatedBytes()), bytes(hc.worstStandardErrorBytes()), bytes(hc.worstHeapUsedBytes()),
                hc.worstCollection(), hc.worstAtMs() / 1000);
        if (hc.heldExceeded() > 0) {
            return String.format(Locale.ROOT, "contradiction: memscope's held figures exceeded the heap the JVM "
                    + "reported in use at %d of %d collections compared, which is impossible: the estimates are wrong "
                    + "there (a sampler's bias, a collection misattributed), so held figures near them are not facts "
                    + "(sampled objects present at the worst: %s)", hc.heldExceeded(), hc.checked(), worst);
        }
        String cause = hc.worstCollection() != null && hc.worstCollection().startsWith("ZGC M")
                ? "generational ZGC's young collections keep the objects memscope samples (its weak references are "
                + "roots they do not process) until they are old, so sampled garbage stays unconfirmed long after it "
                + "died"
                : "a sampler's bias, or a collection misattributed";
        return String.format(Locale.ROOT, "contradiction: memscope's estimate of the sampled objects in the heap "
                + "(held and unconfirmed) exceeded the heap the JVM reported in use at %d of %d collections compared "
                + "(worst: %s): the unconfirmed figures are wrong there (%s); held figures stayed within the heap",
                hc.exceeded(), hc.checked(), worst, cause);
    }

    /**
     * @return whether unconfirmed bytes are worth a note next to a held figure: at least 1 MiB and a tenth of held and
     *         unconfirmed together
     */
    public static boolean large(long unconfirmed, long held) {
        return unconfirmed >= (1 << 20) && unconfirmed * 10 >= held + unconfirmed;
    }

    /** @return why no whole-heap collection confirmed the end, from the recording's metadata, or "" */
    private static String endCheckNote(Report r) {
        String check = r.metadata().get("endCheck");
        if (check == null || check.equals("gc")) {
            return "";
        }
        if (check.equals("off")) {
            return " (the end check was off: --end-check gc confirms it)";
        }
        return " (the end check: " + check + ")";
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
     * One line: the heap in use after GC, the held memory and, when it is ever large, the unconfirmed memory over the
     * timeline, as sparklines on one scale (the highest of them), each character the maximum of its buckets; blank
     * before the first collection.
     */
    static String sparklines(Timeline t) {
        List<Timeline.Bucket> b = t.buckets();
        if (b.isEmpty()) {
            return "";
        }
        long max = 0;
        for (Timeline.Bucket x : b) {
            max = Math.max(max, Math.max(x.heapUsedBytes(), Math.max(x.heldBytes(), x.unconfirmedBytes())));
        }
        if (max == 0) {
            return "";
        }
        int width = Math.min(SPARK, b.size());
        StringBuilder heap = new StringBuilder(width);
        StringBuilder held = new StringBuilder(width);
        StringBuilder unconfirmed = new StringBuilder(width);
        boolean anyUnconfirmed = false;
        for (int c = 0; c < width; c++) {
            int from = (int) ((long) c * b.size() / width);
            int to = (int) ((long) (c + 1) * b.size() / width);
            long h = 0;
            long k = 0;
            long u = 0;
            for (int i = from; i < Math.max(to, from + 1); i++) {
                h = Math.max(h, b.get(i).heapUsedBytes());
                k = Math.max(k, b.get(i).heldBytes());
                u = Math.max(u, b.get(i).unconfirmedBytes());
            }
            anyUnconfirmed |= large(u, k);
            heap.append(bar(h, max));
            held.append(bar(k, max));
            unconfirmed.append(bar(u, max));
        }
        return String.format(Locale.ROOT, "  over time (0 .. %s): heap after GC %s  held %s%s%n", bytes(max), heap,
                held, anyUnconfirmed ? "  unconfirmed " + unconfirmed : "");
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
