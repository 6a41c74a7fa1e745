package io.memscope.analysis;

import java.util.Locale;

/** The summary's line about the process's memory: the resident set at its peak and what it was made of. */
final class ProcessMemorySummary {
    private ProcessMemorySummary() {
    }

    /**
     * {@code RSS at its peak: 1.2 GiB at 12.30 s, of which heap resident 812 MiB, metaspace 91 MiB, code cache
     * 12 MiB, threads 3.1 MiB (NMT), direct 256 MiB, malloc 17 MiB, files 40 MiB, other 10 MiB; resident figures
     * measured 40 ms after the peak}; heap committed
     * where no resident check ran; unknown parts are left out. Nothing without samples; a note when the samples have
     * no RSS (no /proc). With malloc sampled, the line ends with its estimate then and where most of it was:
     * {@code ; sampled malloc then ~120 MiB, most at libz.so.1!inflateInit2_ <- java.util.zip.Inflater.init <-
     * com.acme.Unzipper.open(Unzipper.java:12)} ({@link MallocSummary#mostAt}).
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
        part(parts, p.heapResidentBytes() >= 0 ? "heap resident" : "heap committed", p.heapBytes(), "");
        part(parts, "metaspace", p.metaspaceBytes(), "");
        part(parts, "code cache", p.codeCacheBytes(), "");
        String threads = p.threads() >= 0 ? p.threads() + " threads" : "threads";
        part(parts, "threads", p.threadStacksBytes(), pm.threadStacks().equals("nmt") ? " (" + threads + ", NMT)"
                : pm.threadStacks().equals("resident") ? " (" + threads + ", resident stacks)"
                : " (" + threads + " x stack size, an upper bound)");
        part(parts, "direct", p.directBytes(), "");
        part(parts, "malloc", p.mallocBytes(), "glibc".equals(pm.parts().get("malloc")) ? ""
                : " (memscope-tracked: Unsafe, arenas)");
        part(parts, "files", p.filesBytes(), "");
        part(parts, "other", p.otherBytes(), "");
        // malloc's samples at the RSS peak: where the C allocator's memory was then (in whichever part holds it)
        String most = malloc != null && "rss".equals(malloc.atPeakOf()) ? MallocSummary.mostAt(malloc) : null;
        String sampled = most == null ? "" : "; sampled malloc then " + Summary.estimate(malloc.atPeakBytes(),
                malloc.intervalBytes()) + ", most at " + most;
        sb.append(String.format(Locale.ROOT, "  RSS at its peak: %s at %.2f s, of which %s%s%s%n",
                Summary.bytes(p.rssBytes()), p.timeMs() / 1000, parts, residentAge(p), sampled));
    }

    /**
     * {@code ; resident figures measured 40 ms after the peak}: how far from the peak the resident check's pass was
     * (its heap, code cache and stacks figures); nothing without one.
     */
    static String residentAge(ProcessMemory.Sample p) {
        double age = p.residentAgeMs();
        if (Double.isNaN(age) || p.heapResidentBytes() < 0) {
            return "";
        }
        long ms = Math.round(Math.abs(age));
        return ms == 0 ? "; resident figures measured at the peak"
                : String.format(Locale.ROOT, "; resident figures measured %s %s the peak",
                        ms < 10_000 ? ms + " ms" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0),
                        age > 0 ? "after" : "before");
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
