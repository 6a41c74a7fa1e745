package io.memscope.cli;

import io.memscope.analysis.ProcessMemory;
import io.memscope.analysis.Summary;
import io.memscope.analysis.text.TerminalText;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStyle;

/**
 * Lays out one {@link TopFrame} as lines of at most {@code width} columns: four header lines (the JVM, heap, rates and
 * native memory, GC pauses in the last interval), a key line when interactive, and the site table sorted by the
 * frame's {@link TopSort} (its column marked with {@code *}). Styles (bold header, inverse table head) are for the
 * terminal; {@link AttributedString#toString()} gives the plain text.
 */
final class TopScreen {
    /** Lines before the table: 4 header lines, the key line, a blank line and the table head. */
    static final int HEADER_LINES = 8;
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT)
            .withZone(ZoneId.systemDefault());

    private TopScreen() {
    }

    /**
     * @param interactive show the key line and the running/paused state
     * @param paused      the display is frozen on this frame
     */
    static List<AttributedString> render(TopFrame f, int width, boolean interactive, boolean paused) {
        return render(f, width, interactive, paused, TopPaths.NONE);
    }

    /** With {@code paths} (key {@code w}), each row whose site the heap walk reached has its main path below it. */
    static List<AttributedString> render(TopFrame f, int width, boolean interactive, boolean paused, TopPaths paths) {
        List<AttributedString> lines = new ArrayList<>();
        String state = interactive ? (paused ? "  [PAUSED]" : "  [running]") : "";
        lines.add(bold(fit(String.format(Locale.ROOT, "memscope top  pid %s  %s mode, interval %s  %s  %s%s",
                f.pid(), f.mode(), Summary.bytes(f.intervalBytes()),
                (f.attached() ? "attached " + duration(f.uptimeMillis()) + " ago" : "up " + duration(f.uptimeMillis())),
                CLOCK.format(Instant.ofEpochMilli(f.takenAtMillis())), state), width)));
        double interval = sampleInterval(f);
        String unconfirmed = f.unconfirmedBytes() > 0
                ? " + " + Summary.estimate(f.unconfirmedBytes(), interval) + " unconfirmed" : "";
        String held = f.heldAgeMillis() < 0 ? "held: no whole-heap GC yet" + unconfirmed
                : "held " + Summary.estimate(f.heldBytes(), interval) + " (est., reachable at the whole-heap GC "
                + duration(f.heldAgeMillis()) + " ago)" + unconfirmed;
        lines.add(plain(fit(String.format(Locale.ROOT, "heap   used %s of %s committed%s  %s", Summary.bytes(f.heapUsed()),
                Summary.bytes(f.heapCommitted()), f.heapMax() > 0 ? " (max " + Summary.bytes(f.heapMax()) + ")" : "",
                held), width)));
        // attached: what was allocated before the attach (a pool's chunks, say) is not seen, the reader must know
        lines.add(plain(fit(String.format(Locale.ROOT, "alloc  %s/s (%s)  native outstanding%s %s in %d blocks%s",
                Summary.bytes(Math.max(0, f.allocationRate())), f.allocationRateExact() ? "all threads" : "est.",
                f.attached() ? " since the attach" : "",
                Summary.bytes(Math.max(0, f.nativeBytes())), Math.max(0, f.nativeBlocks()),
                f.mallocBytes() >= 0 ? ", malloc " + Summary.bytes(f.mallocBytes()) + " (est.)" : ""), width)));
        String rss = rss(f.processMemory());
        lines.add(plain(fit(rss != null ? rss : "rss    not sampled (agent option processMemory=0, not Linux, or an "
                + "agent older than this CLI)", width)));
        lines.add(plain(fit(gc(f), width)));
        lines.add(interactive
                ? plain(fit("keys: h held  r rate  l live  a allocated  w why held  p pause  q quit"
                        + "    sort: " + f.sort().label() + (paths.walk() == null ? "" : "    " + paths.walk()), width))
                : plain(fit("sort: " + f.sort().label(), width)));
        lines.add(plain(""));
        lines.add(new AttributedString(fit(head(f.sort()), width), AttributedStyle.INVERSE));
        if (f.rows().isEmpty()) {
            lines.add(plain("  (no sites yet)"));
        }
        boolean holdingEnded = f.sort() != TopSort.HELD;
        for (TopFrame.Row r : f.rows()) {
            if (!holdingEnded && r.heldBytes() <= 0 && r.unconfirmedBytes() <= 0) {
                holdingEnded = true;
                lines.add(new AttributedString(fit(f.heldAgeMillis() < 0
                        ? "  (no whole-heap GC yet, so nothing is known held; below: the sites by live bytes)"
                        : "  (below: sites holding nothing at the last whole-heap GC, by live bytes)", width),
                        AttributedStyle.DEFAULT.faint()));
            }
            // estimates as precise as their samples make them (the report's rounding, "~"); the rate is over one second
            lines.add(plain(fit(String.format(Locale.ROOT, "%10s %11s %10s %11s  %-16s %s",
                    Summary.estimate(r.heldBytes(), interval),
                    Summary.estimate(Math.max(0, r.allocationRate()), interval) + "/s",
                    Summary.estimate(r.liveBytes(), interval), Summary.estimate(r.allocatedBytes(), interval),
                    fit(TerminalText.safe(shortType(r.type())), 16), TerminalText.safe(r.site())), width)));
            String path = paths.of(r);
            if (path != null) {
                lines.add(new AttributedString(fit("           held by " + TerminalText.safe(path), width),
                        AttributedStyle.DEFAULT.faint()));
            }
        }
        return lines;
    }

    /**
     * {@code rss    412 MiB (anon 380 MiB, file 32 MiB, mapped 8 MiB)  heap 256 MiB res  metaspace 21 MiB  code
     * 9.8 MiB res  threads 19 (stacks 1.2 MiB res)  direct 96 MiB  malloc 1 MiB  files 32 MiB  other 10 MiB}: the
     * agent's latest sample broken down as the report does ({@link ProcessMemory#sample}), or null without one.
     * {@code res}: the agent's resident check measured that part in /proc/self/smaps; else it is committed (thread
     * stacks: NMT's figure or an upper bound, threads x stack size). Other is RSS less the parts, at least 0. Ends
     * with the resident figures' age ({@code (res 1.2 s ago)}) when the agent says it.
     */
    static String rss(java.util.Map<String, Long> pm) {
        long rss = pm.getOrDefault("rss", -1L);
        if (rss < 0) {
            return null;
        }
        java.util.List<String> names = new java.util.ArrayList<>(pm.keySet());
        long[] values = new long[names.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = pm.get(names.get(i));
        }
        ProcessMemory.Sample s = ProcessMemory.sample(new io.memscope.recording.Recording.ProcessMemorySamples(names,
                new long[] {0}, values), 0, 0);
        StringBuilder sb = new StringBuilder("rss    ").append(Summary.bytes(rss));
        if (s.rssAnonBytes() >= 0 && s.rssFileBytes() >= 0) {
            sb.append(" (anon ").append(Summary.bytes(s.rssAnonBytes())).append(", file ")
                    .append(Summary.bytes(s.rssFileBytes()));
            if (s.mappedBytes() > 0) {
                sb.append(", mapped ").append(Summary.bytes(s.mappedBytes()));
            }
            sb.append(')');
        }
        part(sb, "heap", s.heapBytes(), s.heapResidentBytes() >= 0);
        part(sb, "metaspace", s.metaspaceBytes(), false);
        part(sb, "code", s.codeCacheBytes(), pm.getOrDefault("codeCacheResident", -1L) >= 0);
        if (s.threadStacksBytes() >= 0) {
            boolean res = pm.getOrDefault("threadStacksResident", -1L) >= 0;
            sb.append(s.threads() >= 0 ? "  threads " + s.threads() + " (stacks " : "  stacks (")
                    .append(Summary.bytes(s.threadStacksBytes())).append(res ? " res)" : ")");
        }
        part(sb, "direct", s.directBytes(), false);
        // the report's word; "native outstanding" above is memscope's own tracking
        part(sb, "malloc", s.mallocBytes(), false);
        part(sb, "files", s.filesBytes(), false);
        sb.append("  other ").append(Summary.bytes(Math.max(0, s.otherBytes())));
        double age = -s.residentAgeMs(); // the sample is at 0: its resident figures were measured before it
        if (!Double.isNaN(age) && s.heapResidentBytes() >= 0) {
            sb.append(String.format(java.util.Locale.ROOT, "  (res %.1f s ago)", Math.max(0, age) / 1000));
        }
        return sb.toString();
    }

    private static void part(StringBuilder sb, String name, long bytes, boolean resident) {
        if (bytes >= 0) {
            sb.append("  ").append(name).append(' ').append(Summary.bytes(bytes)).append(resident ? " res" : "");
        }
    }

    /** @return the agent's mean sampling interval, with which its site figures were estimated; 0 when exact */
    private static double sampleInterval(TopFrame f) {
        return "exact".equals(f.mode()) ? 0 : Math.max(0, f.intervalBytes());
    }

    private static final java.util.regex.Pattern HIDDEN_ADDRESS =
            java.util.regex.Pattern.compile("(?<=[\\w$])[./]0x\\p{XDigit}+(?![\\w$])");

    /**
     * @return the type's name without its package and without a hidden class's address, for the 16 columns of the
     *         table: {@code ConcurrentHashMap$Node}, {@code String[]}, {@code BoundedLocalCache$$Lambda$84}; the
     *         site beside it names the code
     */
    static String shortType(String type) {
        if (type == null) {
            return "";
        }
        String t = HIDDEN_ADDRESS.matcher(type).replaceAll("");
        int dims = t.indexOf('[');
        String element = dims < 0 ? t : t.substring(0, dims);
        return element.substring(element.lastIndexOf('.') + 1) + (dims < 0 ? "" : t.substring(dims));
    }

    private static String head(TopSort sort) {
        return String.format(Locale.ROOT, "%10s %11s %10s %11s  %-16s %s", mark("held", sort == TopSort.HELD),
                mark("rate", sort == TopSort.RATE), mark("live", sort == TopSort.LIVE),
                mark("allocated", sort == TopSort.ALLOCATED), "type", "site");
    }

    private static String mark(String column, boolean sorted) {
        return sorted ? "*" + column : column;
    }

    private static String gc(TopFrame f) {
        if (f.gcWindowMillis() <= 0) {
            return "gc     (pauses of the last interval from the next refresh on)";
        }
        String window = "last " + duration(f.gcWindowMillis());
        if (f.gcPauses() == 0 && f.gcCycles() == 0) {
            return "gc     " + window + ": no collection";
        }
        StringBuilder b = new StringBuilder("gc     ").append(window).append(": ");
        b.append(f.gcPauses()).append(f.gcPauses() == 1 ? " pause" : " pauses");
        if (f.gcPauses() > 0) {
            b.append(", ").append(f.gcPauseMillis()).append(" ms in all, longest ").append(f.gcPauseMaxMillis())
                    .append(" ms");
        }
        if (f.gcCycles() > 0) {
            b.append("; ").append(f.gcCycles()).append(f.gcCycles() == 1 ? " concurrent cycle" : " concurrent cycles");
        }
        b.append("  (").append(String.join(", ", f.gcCollectors())).append(')');
        return b.toString();
    }

    /** @return {@code 850 ms}, {@code 12.3 s}, {@code 4m05s}, {@code 2h03m} */
    static String duration(long millis) {
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long s = millis / 1000;
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s / 60 % 60);
    }

    private static String fit(String s, int width) {
        if (s == null) {
            return "";
        }
        return width <= 0 || s.length() <= width ? s : s.substring(0, Math.max(0, width - 1)) + "~";
    }

    /** A line of the screen: whatever the application named its sites and types, nothing in it acts on the terminal. */
    private static AttributedString plain(String s) {
        return new AttributedString(TerminalText.safe(s));
    }

    private static AttributedString bold(String s) {
        return new AttributedString(TerminalText.safe(s), AttributedStyle.BOLD);
    }
}
