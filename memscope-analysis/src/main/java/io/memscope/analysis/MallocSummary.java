package io.memscope.analysis;

import io.memscope.recording.Site;
import io.memscope.analysis.text.TerminalText;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The summary's lines about native malloc ({@link Report.Malloc}): what was sampled, allocated and outstanding (as
 * precise as the samples make it, {@link Summary#estimate}), whether tracking turned itself off, and where the most
 * malloc'd memory was held at the RSS peak, in the words the RSS line uses ({@link #mostAt}).
 */
final class MallocSummary {
    private MallocSummary() {
    }

    /**
     * {@code malloc (sampled, mean interval 128 KiB, 1234 samples): ~120 MiB allocated, ~12 MiB outstanding; at the
     * RSS peak ~30 MiB, most at libz.so.1!inflateInit2_ <- java.util.zip.Inflater.init <- ...}; nothing when the
     * agent did not track malloc.
     */
    static void lines(StringBuilder sb, Report.Malloc m) {
        if (m == null) {
            return;
        }
        if (m.coverage().off() != null) {
            sb.append("    malloc tracking was off: ").append(TerminalText.safe(m.coverage().off())).append('\n');
            if (m.samples() == 0) {
                return;
            }
        }
        double interval = m.intervalBytes();
        sb.append(String.format(Locale.ROOT, "    malloc (%s): %s allocated, %s outstanding%s", how(m),
                Summary.estimate(m.allocatedBytes(), interval), Summary.estimate(m.outstandingBytes(), interval),
                exact(m) ? "" : Summary.fewSamples(m.outstandingSamples())));
        String most = mostAt(m);
        if (most != null) {
            sb.append(String.format(Locale.ROOT, "; at the %s peak %s, most at %s",
                    m.atPeakOf().equals("rss") ? "RSS" : "native", Summary.estimate(m.atPeakBytes(), interval), most));
        }
        sb.append('\n');
        noJavaStack(sb, m);
    }

    /** @return whether every malloc call was recorded: the figures are exact */
    static boolean exact(Report.Malloc m) {
        return new MallocSampling(m.intervalBytes(), m.sampling()).everyCall();
    }

    /** @return how the malloc figures were sampled, and from how many samples */
    static String how(Report.Malloc m) {
        if (!m.sampling().equals(MallocSampling.COUNTER)) {
            return String.format(Locale.ROOT, "sampled, mean interval %s, %d samples", Summary.bytes(m.intervalBytes()),
                    m.samples());
        }
        return exact(m)
                ? String.format(Locale.ROOT, "async-profiler's nativemem: every call recorded, %d calls", m.samples())
                : String.format(Locale.ROOT, "async-profiler's nativemem: one call per %s malloc'd recorded, "
                        + "%d samples", Summary.bytes(m.intervalBytes()), m.samples());
    }

    /**
     * {@code 272 malloc samples had no Java stack: 270 whose Java stack could not be walked (AsyncGetCallTrace:
     * notWalkableNotInJava 270), 2 on threads without Java frames; each is named by its native function, or by why}:
     * nothing when every sample had its Java stack, or when the recording does not say.
     */
    static void noJavaStack(StringBuilder sb, Report.Malloc m) {
        Report.Malloc.Coverage c = m.coverage();
        long none = 0;
        StringBuilder causes = new StringBuilder();
        for (Map.Entry<String, Long> e : new TreeMap<>(c.noJavaStack()).entrySet()) {
            none += e.getValue();
            if (!EXPECTED.contains(e.getKey())) {
                causes.append(causes.length() == 0 ? "" : ", ").append(e.getKey()).append(' ').append(e.getValue());
            }
        }
        if (none <= 0) {
            return;
        }
        long notWalkable = Math.max(0, c.javaStackNotWalkable());
        // counted over the whole capture by the agent (a window of it may hold fewer samples)
        sb.append(String.format(Locale.ROOT, "    %d malloc samples had no Java stack:", none));
        if (notWalkable > 0) {
            sb.append(String.format(Locale.ROOT, " %d whose Java stack could not be walked (AsyncGetCallTrace: %s)%s",
                    notWalkable, causes, none > notWalkable ? "," : ""));
        }
        if (none > notWalkable) {
            sb.append(String.format(Locale.ROOT, " %d on threads without Java frames", none - notWalkable));
        }
        sb.append("; each is named by its native function, or by why it has no Java stack\n");
    }

    /** Causes that are no anomaly: the thread had no Java frame to walk. */
    private static final java.util.Set<String> EXPECTED = java.util.Set.of("noJavaFrames", "notAJvmThread");

    /**
     * @return the malloc site holding the most at the RSS peak, as a short chain from the native function that
     *         allocated to the site: {@code libz.so.1!inflateInit2_ <- java.util.zip.Inflater.init <-
     *         com.acme.Unzipper.open(Unzipper.java:12)}; null when none held anything
     */
    static String mostAt(Report.Malloc m) {
        if (m == null || m.atPeak().isEmpty()) {
            return null;
        }
        Peak.Holder h = m.atPeak().get(0);
        return TerminalText.safe(chain(h.stack(), h.site()));
    }

    /** @return innermost native frame, first Java frame (without its source), the site; each once */
    static String chain(List<String> stack, String site) {
        StringBuilder b = new StringBuilder();
        List<String> natives = SiteProfile.nativeFrames(stack);
        if (!natives.isEmpty() && !natives.get(0).equals(site)) {
            b.append(natives.get(0)).append(" <- ");
        }
        if (natives.size() < stack.size()) {
            String java = stack.get(natives.size());
            if (!java.equals(site)) {
                int paren = java.indexOf('(');
                b.append(paren > 0 ? java.substring(0, paren) : java).append(" <- ");
            }
        }
        return b.append(site).toString();
    }

    /** @return whether a site's figures are malloc estimates */
    static boolean isMalloc(SiteProfile p) {
        return Site.NATIVE_MALLOC.equals(p.type());
    }
}
