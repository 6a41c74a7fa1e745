package io.memscope.analysis;

import java.util.Locale;

/** The summary's line about the process's memory: the resident set at its peak and what it was made of. */
final class ProcessMemorySummary {
    private ProcessMemorySummary() {
    }

    /**
     * {@code RSS at its peak: 1.2 GiB at 12.30 s, of which heap committed 812 MiB, metaspace 91 MiB, code cache
     * 12 MiB, threads 3.1 MiB (NMT), direct 256 MiB, malloc 1.0 MiB (memscope-tracked), other 40 MiB}; unknown parts
     * are left out. Nothing without samples; a note when the samples have no RSS (no /proc). With malloc tracked, the
     * malloc part names where most of it was then: {@code malloc 120 MiB (most at libz.so.1!inflateInit2_ <- ...)}
     * ({@link MallocSummary#mostAt}).
     */
    static void line(StringBuilder sb, ProcessMemory pm, Report.Malloc malloc) {
        if (pm == null) {
            return;
        }
        ProcessMemory.Sample p = pm.peak();
        if (p == null) {
            sb.append("  RSS: unknown (no /proc/self/status on this platform); the JVM's own figures are in "
                    + "report.json processMemory\n");
            return;
        }
        StringBuilder parts = new StringBuilder();
        part(parts, "heap committed", p.heapCommittedBytes(), "");
        part(parts, "metaspace", p.metaspaceBytes(), "");
        part(parts, "code cache", p.codeCacheBytes(), "");
        String threads = p.threads() >= 0 ? p.threads() + " threads" : "threads";
        part(parts, "threads", p.threadStacksBytes(), pm.threadStacks().equals("nmt") ? " (" + threads + ", NMT)"
                : " (" + threads + " x stack size, an upper bound)");
        part(parts, "direct", p.directBytes(), "");
        String most = malloc != null && "rss".equals(malloc.atPeakOf()) ? MallocSummary.mostAt(malloc) : null;
        if (most != null && p.mallocBytes() < 0) {
            // no process-wide malloc figure: the sampled malloc outstanding then stands in, as an estimate
            parts.append(parts.length() > 0 ? ", " : "").append("malloc ")
                    .append(Summary.estimate(malloc.atPeakBytes(), malloc.intervalBytes()))
                    .append(" (sampled; most at ").append(most).append(')');
        } else {
            part(parts, "malloc", p.mallocBytes(), most != null ? " (most at " + most + ")"
                    : " (memscope-tracked: Unsafe, arenas)");
        }
        part(parts, "other", p.otherBytes(), "");
        sb.append(String.format(Locale.ROOT, "  RSS at its peak: %s at %.2f s, of which %s%n",
                Summary.bytes(p.rssBytes()), p.timeMs() / 1000, parts));
    }

    private static void part(StringBuilder sb, String name, long bytes, String note) {
        if (bytes < 0) {
            return;
        }
        if (sb.length() > 0) {
            sb.append(", ");
        }
        sb.append(name).append(' ').append(Summary.bytes(bytes)).append(note);
    }
}
