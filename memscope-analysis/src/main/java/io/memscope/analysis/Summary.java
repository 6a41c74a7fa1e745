package io.memscope.analysis;

import io.memscope.launch.MetadataKeys;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import static io.memscope.analysis.text.TerminalText.safe;

/**
 * The terminal summary of a {@link Report}: the same content as report.json, for people. Application strings go
 * through {@link io.memscope.analysis.text.TerminalText#safe}: a name cannot colour, retitle, clear or forge lines.
 */
public final class Summary {
    /** Rows per section. */
    public static final int ROWS = 5;

    private Summary() {
    }

    public static String format(Report r) {
        StringBuilder sb = new StringBuilder(2048);
        header(sb, r);
        if (recordedNothing(r)) {
            sb.append("  nothing recorded: no allocation sampled, no GC, no native memory, no use of memscope's API\n");
            return sb.toString();
        }
        heap(sb, r);
        nativeMemory(sb, r.nativeMemory(), r.recording().jfr());
        ProcessMemorySummary.line(sb, r.processMemory(), r.nativeMemory().malloc());
        Report.Gc g = r.gc();
        sb.append(String.format(Locale.ROOT, "  GC: %d collections, %d pauses, total pause %.1f ms, max pause %.1f ms,"
                + " max heap after GC %s%n", g.count(), g.pauseCount(), g.pauseTotalMs(), g.pauseMaxMs(),
                bytes(g.maxHeapAfterGcBytes())));
        if (g.untimedCount() > 0) {
            sb.append(String.format(Locale.ROOT, "  ! and %d more collections over the whole run that the agent "
                    + "counted but could not time: they went by faster than it read them (it keeps the latest 4096), so they "
                    + "are in no figure above%n", g.untimedCount()));
        }
        ApiSummary.format(sb, r.api());
        AccountingSection.summary(sb, r);
        if (r.failureCount() > 0) {
            sb.append("  memscope failures inside the JVM: ").append(r.failureCount());
            if (!r.failures().isEmpty()) {
                sb.append(" (first: ").append(safe(r.failures().get(0))).append(')');
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * The agent's own heap, as a part of the heap in use at the peak: " (memscope's own tables about X of it)", or ""
     * when the recording does not say (older agents, JFR recordings). A peak at or after the moment the capture let
     * its out-of-memory reserves go (the end check's collection) did not hold them: they are left out then.
     */
    static String agentHeap(Report r) {
        Map<String, String> m = r.metadata();
        try {
            String v = m.get(MetadataKeys.AGENT_HEAP_BYTES);
            if (v == null) {
                return "";
            }
            long bytes = Long.parseLong(v);
            String released = m.get(MetadataKeys.AGENT_RESERVES_RELEASED_NANOS);
            Peak peak = r.peak();
            if (released != null && peak != null && peak.timeNanos() >= Long.parseLong(released)) {
                bytes -= Long.parseLong(m.getOrDefault(MetadataKeys.AGENT_RESERVE_BYTES, "0"));
            }
            return " (memscope's own tables about " + bytes(Math.max(0, bytes)) + " of it)";
        } catch (NumberFormatException e) {
            return "";
        }
    }

    /** The first lines: the run, and what the reader must know before its figures (not closed, exact, OOM...). */
    private static void header(StringBuilder sb, Report r) {
        Report.Totals t = r.totals();
        String pid = r.metadata().getOrDefault(MetadataKeys.PID, "?");
        String cmd = r.metadata().getOrDefault(MetadataKeys.COMMAND, "");
        sb.append("memscope report for pid ").append(pid);
        if (!cmd.isEmpty()) {
            sb.append(" (").append(safe(abbreviate(cmd, 60))).append(')');
        }
        Report.Source src = r.recording();
        sb.append(String.format(Locale.ROOT, ", %.1f s, %s%n", t.durationMs() / 1000.0,
                src.jfr() ? "from a JFR recording (" + safe(src.producer()) + ")"
                        : (t.exact() ? "exact" : "sample") + " mode"));
        for (String l : src.limitations()) {
            sb.append("  not in a JFR recording: ").append(safe(l)).append('\n');
        }
        if (!src.jfr() && Boolean.parseBoolean(r.metadata().get("attached"))) {
            sb.append("  attached to a running JVM: only what was allocated after the attach is seen (allocated, held "
                    + "and native figures); the heap in use counts everything\n");
        }
        Report.Chunks chunks = src.chunks();
        if (chunks != null) {
            Report.Window win = r.window();
            sb.append(String.format(Locale.ROOT, "  covers %.1f s to %.1f s of the run (chunks %d-%d", win.fromMs() / 1000,
                    win.toMs() / 1000, chunks.firstIndex(), chunks.lastIndex()));
            if (chunks.deleted() > 0) {
                sb.append("; ").append(chunks.deleted()).append(" older deleted by the recording's bounds");
            }
            sb.append(")\n");
            if (chunks.carryTruncated() > 0) {
                sb.append("  ! ").append(chunks.carryTruncated()).append(" allocations outstanding were not carried "
                        + "into later chunks (beyond 2 million): held figures miss them\n");
            }
        }
        if (!src.closed()) {
            sb.append("  ! the recording was not closed: the JVM ended without closing it (killed, crashed, out of "
                    + "memory) or is still running; this report covers what it recorded up to its last complete "
                    + "block\n");
        }
        Report.ExactCoverage cov = t.exactCoverage();
        if (cov != null) {
            sb.append("  exact mode counted ").append(cov.includeJdk() ? "allocations by instrumented code "
                    + "(application and library classes, and some JDK packages: includeJdk)"
                    : "allocations by instrumented code (application and library classes)");
            if (cov.jvmAllocatedBytes() > 0) {
                sb.append(String.format(Locale.ROOT, ": %s of the %s the JVM allocated (%.0f%%, %s)",
                        bytes(cov.countedBytes()), bytes(cov.jvmAllocatedBytes()), cov.share() * 100,
                        cov.jvmCount() == null ? "its own count" : cov.jvmCount()));
            } else {
                sb.append(" (the JVM's own count of allocated bytes, written when the recording is closed, is not in "
                        + "it: the share is unknown)");
            }
            sb.append("; allocations inside the JDK are not counted, nor leaks of objects the JDK allocates\n");
        }
        if (t.exact() && !Double.isNaN(t.exactCountsAsOfMs())) {
            sb.append(String.format(Locale.ROOT, "  ! exact counts as of %.1f s: the last snapshot the JVM wrote "
                    + "before it ended; allocations after it are not counted%n", t.exactCountsAsOfMs() / 1000));
        }
        String stopped = recordingStopped(r);
        if (stopped != null) {
            sb.append("  ! ").append(stopped).append('\n');
        }
        String bounds = AgentBoundsNote.of(r.metadata());
        if (bounds != null) {
            sb.append("  ! ").append(bounds).append('\n');
        }
        String oom = outOfMemory(r);
        if (oom != null) {
            sb.append("  ! ").append(oom).append('\n');
        }
        if (src.damage() != null && src.closed()) {
            sb.append("  ! the recording is damaged at offset ").append(src.damageOffset()).append(": ")
                    .append(safe(src.damage())).append("; this report covers what comes before\n");
        }
    }

    /** The heap: totals, peak, the timeline's sparklines and the site lists. */
    private static void heap(StringBuilder sb, Report r) {
        Report.Totals t = r.totals();
        double interval = interval(r);
        double allocInterval = t.exact() ? 0 : interval;
        Report.Window win = r.window();
        if (win.restricted()) {
            sb.append(String.format(Locale.ROOT, "  window: %.3f s to %.3f s of the run%n", win.fromMs() / 1000,
                    win.toMs() / 1000));
        }
        if (r.recording().jfr()) {
            // JFR's weights: bytes are JFR's estimate, objects are not estimated, held bytes are the samples' own
            sb.append(String.format(Locale.ROOT, "  heap: %s allocated (JFR's weights over %d samples; object counts "
                            + "unknown); held by the sampled objects at the peak %s, at the end %s (held: reachable at "
                            + "a GC that examined the whole heap)%n", estimate(t.allocatedBytes(), 1), t.samples(),
                    bytes(t.peakHeldBytes()), bytes(t.heldAtEndBytes())));
        } else {
            sb.append(String.format(Locale.ROOT, "  heap: %s allocated in %s objects%s; held at the peak %s, at the end "
                            + "%s (held: reachable at a GC that examined the whole heap, estimated)%n",
                    estimate(t.allocatedBytes(), allocInterval),
                    estimatedCount(t.allocatedObjects(), t.allocatedBytes(), allocInterval), t.exact() ? ""
                            : " (estimated from " + t.samples() + " samples)", estimate(t.peakHeldBytes(), interval),
                    estimate(t.heldAtEndBytes(), interval)));
        }
        if (large(t.unconfirmedAtEndBytes(), t.heldAtEndBytes())) {
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
            sb.append(String.format(Locale.ROOT, "  Peak: at %.2f s, after %s%s: %s%s held by "
                            + "sampled objects%s:%n", peak.timeMs() / 1000, safe(peak.gcName()), safe(cause),
                    peak.heapUsedAfterGcBytes() > 0 ? "heap " + bytes(peak.heapUsedAfterGcBytes()) + " in use"
                            + agentHeap(r) + ", " : "",
                    estimate(peak.estimatedBytes(), interval),
                    large(peak.unconfirmedBytes(), peak.estimatedBytes())
                            ? " (" + bytes(peak.unconfirmedBytes()) + " more unconfirmed)" : ""));
            holders(sb, peak.sites(), "obj", interval);
        } else {
            sb.append(win.restricted() ? "  Peak: unknown: no collection of the whole heap in the window (held memory "
                    + "is known only at one)\n" : "  Peak: unknown: no collection of the whole heap in the recording (held "
                    + "memory is known only at one; none ran, GC capture was off, or the end check was off or skipped)\n");
        }
        String missed = heldMissedByPeak(r);
        if (missed != null) {
            sb.append("  ! ").append(missed).append('\n');
        }
        String spark = sparklines(r.timeline());
        if (!spark.isEmpty()) {
            sb.append(spark);
        }
        section(sb, "Top allocation sites (allocated)", r.topAllocationSites(), false, false, allocInterval, null);
        section(sb, "Top sites by held bytes at the end", r.topLiveSites(), true, false, interval, null);
        if (t.wholeHeapCollections() < 3 && r.leakSuspects().isEmpty()) {
            sb.append(String.format(Locale.ROOT, "  Leak suspects: not judged: the window had %d collection%s that "
                    + "examined the whole heap, and a leak must be seen growing at three (for a verdict: a longer run, "
                    + "or a heap small enough, -Xmx, that the old generation is collected while it grows)%n", t.wholeHeapCollections(),
                    t.wholeHeapCollections() == 1 ? "" : "s"));
        } else {
            section(sb, "Leak suspects (held at whole-heap collections and growing)", r.leakSuspects(), true, true,
                    interval, r.retention());
        }
        RetentionSummary.note(sb, r.retention());
        section(sb, "Temporaries (allocated much, kept little)", r.temporaries(), false, false, allocInterval, null);
    }

    private static void nativeMemory(StringBuilder sb, Report.NativeMemory n, boolean jfr) {
        // With malloc sampled the totals are mostly estimates: shown as precise as the malloc samples make them
        // (direct buffers, Unsafe and arenas are exact, so this errs on the wide side)
        double sampled = n.malloc() == null ? 0 : n.malloc().intervalBytes();
        sb.append(String.format(Locale.ROOT, "  Native memory%s: %s allocated in %s blocks, %s freed, %s outstanding "
                + "in %s blocks (peak %s)%n", n.malloc() == null && !jfr ? " (direct buffers, Unsafe, FFM arenas; "
                        + "malloc by native libraries not sampled: --malloc)" : "",
                estimate(n.allocatedBytes(), sampled), estimatedCount(n.allocations(), n.allocatedBytes(), sampled),
                estimate(n.freedBytes(), sampled), estimate(n.outstandingBytes(), sampled),
                estimatedCount(n.outstandingBlocks(), n.outstandingBytes(), sampled),
                estimate(n.peakOutstandingBytes(), sampled)));
        int i = 0;
        MallocSummary.lines(sb, n.malloc());
        double mallocInterval = n.malloc() == null ? 0 : n.malloc().intervalBytes();
        for (SiteProfile e : n.leaks()) {
            if (i++ == ROWS) {
                break;
            }
            // a malloc site's figures are estimates: shown as precise as its samples make them
            double interval = MallocSummary.isMalloc(e) ? mallocInterval : 0;
            sb.append(String.format(Locale.ROOT, "    %10s in %5s blocks  %s  [%s]  %s%s%n",
                    estimate(e.liveBytes(), interval), interval > 0
                            ? estimatedCount(e.liveObjects(), e.liveBytes(), interval) : Long.toString(e.liveObjects()),
                    safe(e.site()), safe(e.type()), e.leakSuspect() ? "LEAK SUSPECT: +"
                            + estimate(e.growthBytes(), interval) + " over its second half"
                            : "outstanding, not growing (a pool or cache?)",
                    interval > 0 ? fewSamples(e.liveSamples()) : ""));
        }
        if (n.peak() != null && n.peak().outstandingBytes() > n.outstandingBytes()) {
            sb.append(String.format(Locale.ROOT, "    native peak at %.2f s: %s outstanding%n",
                    n.peak().timeMs() / 1000, bytes(n.peak().outstandingBytes())));
            holders(sb, n.peak().sites(), "blk", 0);
        }
        if (!n.anomalies().isEmpty()) {
            sb.append("    anomalies: ").append(n.anomalies().size()).append(" (");
            sb.append(n.anomalies().stream().map(a -> safe(a.kind())).distinct().reduce((x, y) -> x + ", " + y)
                    .orElse("")).append(")\n");
        }
    }

    /**
     * @return "the JVM ran out of memory (Java heap) at 2.3 s ..." when the recording says it did
     *         ({@link MetadataKeys#OUT_OF_MEMORY_COUNT}), else null
     */
    public static String outOfMemory(Report r) {
        java.util.Map<String, String> m = r.metadata();
        long count = number(m.get(MetadataKeys.OUT_OF_MEMORY_COUNT));
        if (count <= 0) {
            return null;
        }
        return String.format(Locale.ROOT, "the JVM ran out of memory (%s) at %s of the capture%s: the figures below "
                        + "are the state up to then and after", safe(m.getOrDefault(MetadataKeys.OUT_OF_MEMORY_KIND,
                        "memory")), seconds(m, MetadataKeys.OUT_OF_MEMORY_FIRST_NANOS),
                count > 1 ? " (" + count + " times)" : "");
    }

    /**
     * @return "the recording stopped at 4.1 s: No space left on device; ..." when its writes failed
     *         ({@link MetadataKeys#RECORDING_FAILURE}), else null
     */
    public static String recordingStopped(Report r) {
        java.util.Map<String, String> m = r.metadata();
        String why = m.get(MetadataKeys.RECORDING_FAILURE);
        if (why == null) {
            return null;
        }
        return "the recording stopped at " + seconds(m, MetadataKeys.RECORDING_FAILURE_NANOS) + " of the capture: "
                + safe(why) + "; this report covers what was written before, the events after it were dropped "
                + "(counted)";
    }

    private static String seconds(java.util.Map<String, String> m, String key) {
        long at = number(m.get(key));
        long start = number(m.get(MetadataKeys.START_NANOS));
        return at <= 0 || start <= 0 ? "an unknown time" : String.format(Locale.ROOT, "%.2f s", (at - start) / 1e9);
    }

    private static long number(String s) {
        try {
            return s == null ? 0 : Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
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
                                boolean growth, double interval, Retention retention) {
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
            long b = live ? e.liveBytes() : e.allocatedBytes();
            sb.append(String.format(Locale.ROOT, "    %10s %12s obj  %s  [%s]", estimate(b, interval),
                    estimatedCount(live ? e.liveObjects() : e.allocatedObjects(), b, interval), safe(e.site()),
                    safe(e.type())));
            if (growth && e.growth() != null) {
                SiteProfile.Growth g = e.growth();
                sb.append(String.format(Locale.ROOT, " held %s at %.1f s, %s at %.1f s, %s at %.1f s",
                        estimate(g.firstBytes(), interval), g.firstMs() / 1000, estimate(g.secondBytes(), interval),
                        g.secondMs() / 1000, estimate(g.endBytes(), interval), g.endMs() / 1000));
            } else if (growth) {
                sb.append(String.format(Locale.ROOT, " +%s over its second half", estimate(e.growthBytes(),
                        interval)));
            }
            if (live && large(e.unconfirmedBytes(), e.liveBytes())) {
                sb.append(" (+").append(bytes(e.unconfirmedBytes())).append(" unconfirmed)");
            }
            if (interval > 0) {
                sb.append(fewSamples(live ? e.liveSamples() : e.samples()));
            }
            sb.append('\n');
            if (retention != null) {
                RetentionSummary.line(sb, retention, e);
            }
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

    /**
     * @return a warning when the held peak is not what the run held most: a collection of the window found much more
     *         held than the peak (the peak is the window's whole-heap collection that held the most: only held
     *         memory confirmed before a restricted window and collected before the window's first whole-heap
     *         collection is shown held in the timeline and missed by the peak), or, when no
     *         more than one such collection ran (typically the end check, after {@code main}'s locals are gone),
     *         the timeline shows much more surviving young collections before it; null otherwise
     */
    public static String heldMissedByPeak(Report r) {
        Report.Totals t = r.totals();
        if (r.recording().jfr()) {
            return null;
        }
        Timeline.Bucket mostHeld = null;
        Timeline.Bucket mostSeen = null;
        for (Timeline.Bucket b : r.timeline().buckets()) {
            if (mostHeld == null || b.heldBytes() > mostHeld.heldBytes()) {
                mostHeld = b;
            }
            if (mostSeen == null || b.heldBytes() + b.unconfirmedBytes() > mostSeen.heldBytes()
                    + mostSeen.unconfirmedBytes()) {
                mostSeen = b;
            }
        }
        if (mostHeld == null) {
            return null;
        }
        long peak = t.peakHeldBytes();
        if (mostHeld.heldBytes() >= 2 * peak && mostHeld.heldBytes() >= peak + (4L << 20)) {
            return String.format(Locale.ROOT, "a collection of the window found more held than the peak: %s at "
                    + "%.1f s (held since before the window; the peak is chosen among the window's collections that "
                    + "examined the whole heap)", bytes(mostHeld.heldBytes()), mostHeld.startMs() / 1000);
        }
        long seen = mostSeen.heldBytes() + mostSeen.unconfirmedBytes();
        if (t.wholeHeapCollections() > 1 || seen < 4L << 20 || seen < 2 * peak) {
            return null;
        }
        String had = t.wholeHeapCollections() == 0 ? "none" : "one" + (Double.isNaN(t.heldAsOfMs()) ? ""
                : String.format(Locale.ROOT, " (at %.2f s): the held peak misses what the program held before",
                t.heldAsOfMs() / 1000));
        return String.format(Locale.ROOT, "held memory is judged only at collections that examined the whole heap, "
                + "and this %s had %s; at %.1f s %s survived young collections (held or garbage, unknown). For a held "
                + "peak: a smaller heap (-Xmx) or a full GC while it runs (jcmd <pid> GC.run)",
                r.window().restricted() ? "window" : "run", had, mostSeen.startMs() / 1000, bytes(seen));
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

    private static void holders(StringBuilder sb, List<Peak.Holder> holders, String unit, double interval) {
        int i = 0;
        for (Peak.Holder h : holders) {
            if (i++ == ROWS) {
                break;
            }
            sb.append(String.format(Locale.ROOT, "    %10s %12s %s  %s  [%s]%s%n", estimate(h.bytes(), interval),
                    estimatedCount(h.count(), h.bytes(), interval), unit, safe(h.site()), safe(h.type()),
                    interval > 0 ? fewSamples(h.samples()) : ""));
        }
    }

    /** Sample counts below this are shown next to the figures they carry. */
    static final int FEW_SAMPLES = 20;

    /** @return the report's sampling interval in bytes (the default when the metadata lacks it) */
    static double interval(Report r) {
        try {
            return Math.max(1, Long.parseLong(r.metadata().getOrDefault(
                    io.memscope.launch.MetadataKeys.INTERVAL_BYTES, "524288").strip()));
        } catch (NumberFormatException e) {
            return 512 * 1024;
        }
    }

    /** @return {@code " (3 samples)"} when a figure rests on fewer than {@value #FEW_SAMPLES} samples, else "" */
    static String fewSamples(long samples) {
        if (samples >= FEW_SAMPLES) {
            return "";
        }
        return " (" + samples + (samples == 1 ? " sample)" : " samples)");
    }

    /**
     * Formats an estimate of {@code b} bytes from samples taken at {@code interval} as precisely as it is: its
     * standard error is at most {@code √(interval·b)} ({@link SamplingNoise}), and digits below the error's leading
     * digit are rounded away (marked {@code ~}); at least one significant digit stays. {@code interval} 0 (an exact
     * figure) formats as {@link #bytes}.
     */
    public static String estimate(long b, double interval) {
        double se = Math.sqrt(interval * Math.abs((double) b));
        if (b < 0 || se < 1) {
            return bytes(b);
        }
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = b;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        double unitSe = se / Math.pow(1024, u);
        int e = (int) Math.floor(Math.log10(unitSe));
        if (v >= 1) {
            e = Math.min(e, (int) Math.floor(Math.log10(v)));
        }
        int usual = u == 0 ? 0 : -1; // bytes() shows whole bytes, or one decimal of a larger unit
        if (e <= usual) {
            return bytes(b);
        }
        double step = Math.pow(10, e);
        return String.format(Locale.ROOT, "~%.0f %s", Math.round(v / step) * step, units[u]);
    }

    /**
     * Formats an estimated count whose bytes figure is {@code bytes}: the same relative precision as
     * {@link #estimate}, digits below the error's leading digit rounded away (marked {@code ~}).
     */
    public static String estimatedCount(long c, long bytes, double interval) {
        if (c <= 0 || bytes <= 0 || interval <= 0) {
            return count(c);
        }
        double se = c * Math.sqrt(interval * bytes) / bytes;
        if (se < 10) {
            return count(c);
        }
        int e = Math.min((int) Math.floor(Math.log10(se)), (int) Math.floor(Math.log10(c)));
        if (e <= 0) {
            return count(c);
        }
        long step = (long) Math.pow(10, e);
        return "~" + count(Math.round((double) c / step) * step);
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
        Timeline.Bucket last = b.get(b.size() - 1);
        double endS = (last.startMs() + t.bucketNanos() / 1e6) / 1000;
        return String.format(Locale.ROOT, "  over time (0 .. %.1f s; 0 .. %s):%n    heap after GC  %s%n    held           "
                + "%s%n%s", endS, bytes(max), heap, held, anyUnconfirmed ? "    unconfirmed    " + unconfirmed
                + System.lineSeparator() : "");
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
