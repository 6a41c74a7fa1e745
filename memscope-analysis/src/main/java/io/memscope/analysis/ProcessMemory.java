package io.memscope.analysis;

import io.memscope.recording.Recording.ProcessMemorySamples;
import java.util.ArrayList;
import java.util.List;

/**
 * The process's memory over a report's window, from the agent's samples (PROCESS_MEMORY blocks): the resident set
 * and what it is made of at each sample, its peak and its last sample. Each figure is what was measured at that
 * sample's time, never interpolated.
 *
 * <p>The parts of the resident set ({@link Sample}): the heap, the code cache and the thread stacks are resident
 * figures where the agent's resident check over {@code /proc/self/smaps} ran (option {@code rssDetail}; {@link #parts}
 * says which), else committed figures (part of them may not be resident; thread stacks NMT's figure or an estimate,
 * {@link #threadStacks}); metaspace and direct buffers are committed figures; {@code malloc} the native memory
 * memscope tracked (Unsafe, FFM arenas) beyond direct buffers; {@code files} the file-backed and shared resident
 * memory ({@code RssFile + RssShmem}: the JVM's and libraries' code, the CDS archive, mapped buffers); and
 * {@code other} the resident set those parts do not explain (never below 0: when the committed parts add up to
 * more than the resident set, other is 0).
 *
 * @param intervalMs      the agent's sampling interval (metadata {@code processMemory.intervalMs}), 0 when unknown
 * @param samples         the samples in the window, at most {@value #MAX_SAMPLES}: a longer window is cut into that
 *                        many buckets of consecutive samples and each bucket keeps its sample of largest RSS
 * @param measuredSamples the samples in the window before that bound
 * @param peak            the sample of largest RSS in the window (of all measured ones), or null without RSS; its
 *                        resident figures (heap, code cache, stacks) are those of the resident check's pass nearest
 *                        before or after it whose resident set was nearer the peak's ({@link #nearestPass}), which
 *                        a later sample may carry ({@link Sample#residentAtMs} says when)
 * @param end             the last sample in the window
 * @param threadStacks    {@code nmt} (NMT's committed stack bytes) or {@code estimate} (threads times the stack size:
 *                        reserved, an upper bound of what is resident)
 * @param nmt             NMT's committed bytes per category at its last sample in the window, or null
 * @param parts           per part of the breakdown ({@code heap}, {@code codeCache}, {@code threadStacks},
 *                        {@code metaspace}, {@code direct}, {@code files}): {@code resident}, {@code committed} or
 *                        {@code reserved} (metadata {@code processMemory.parts.<name>}; empty for older recordings)
 */
public record ProcessMemory(long intervalMs, List<Sample> samples, int measuredSamples, Sample peak, Sample end,
                            String threadStacks, Nmt nmt, java.util.Map<String, String> parts) {
    /** Samples listed at most; longer windows are downsampled. */
    public static final int MAX_SAMPLES = 2000;

    public ProcessMemory {
        samples = List.copyOf(samples);
        parts = java.util.Map.copyOf(parts);
    }

    /**
     * One sample: bytes, -1 where unknown.
     *
     * @param timeMs            ms since the run's start
     * @param rssBytes          the resident set ({@code /proc/self/status} VmRSS)
     * @param heapUsedBytes     the heap in use (a line over the parts, not a part)
     * @param heapCommittedBytes the heap's committed bytes (a line; the part is {@link #heapBytes()})
     * @param codeCacheBytes    the code heaps' resident bytes at the latest resident check, else committed
     * @param threadStacksBytes the threads' stacks resident at the latest resident check, else NMT's committed figure
     *                          or threads x stack size
     * @param mallocBytes       glibc's malloc'd bytes in use less direct buffers ({@code parts.malloc} = {@code glibc}),
     *                          else memscope-tracked native memory other than direct buffers (Unsafe, FFM arenas)
     * @param otherBytes        RSS minus the parts, at least 0; -1 without RSS
     * @param mappedBytes       the mapped buffer pools (file-backed: part of {@code filesBytes}, not a part of its own)
     * @param threads           the process's threads (a count)
     * @param heapResidentBytes the heap's resident bytes at the latest resident check, -1 without one
     * @param filesBytes        file-backed and shared resident memory ({@code RssFile + RssShmem})
     * @param residentAtMs      when the resident check measured the resident figures (heap, code cache, stacks), ms
     *                          since the run's start; NaN without them (no check yet, or a recording without the time)
     */
    public record Sample(double timeMs, long rssBytes, long heapUsedBytes, long heapCommittedBytes,
                         long metaspaceBytes, long codeCacheBytes, long threadStacksBytes, long directBytes,
                         long mallocBytes, long otherBytes, long rssAnonBytes, long rssFileBytes, long rssShmemBytes,
                         long mappedBytes, long threads, long heapResidentBytes, long filesBytes,
                         double residentAtMs) {

        /** @return how long after this sample its resident figures were measured (ms, below 0: before); NaN unknown */
        public double residentAgeMs() {
            return residentAtMs - timeMs;
        }

        /**
         * @param pass a sample carrying another resident pass's figures
         * @return this sample with that pass's resident figures (heap, code cache, stacks) and other recomputed;
         *         this sample when {@code pass} has none
         */
        Sample withResidentOf(Sample pass) {
            if (Double.isNaN(pass.residentAtMs) || pass.residentAtMs == residentAtMs) {
                return this;
            }
            Sample s = new Sample(timeMs, rssBytes, heapUsedBytes, heapCommittedBytes, metaspaceBytes,
                    pass.codeCacheBytes, pass.threadStacksBytes, directBytes, mallocBytes, -1, rssAnonBytes,
                    rssFileBytes, rssShmemBytes, mappedBytes, threads, pass.heapResidentBytes, filesBytes,
                    pass.residentAtMs);
            return s.withOther();
        }

        /** @return this sample with other = RSS minus the named parts (at least 0; -1 without RSS) */
        Sample withOther() {
            long other = rssBytes < 0 ? -1 : Math.max(0, rssBytes - namedBytes());
            return new Sample(timeMs, rssBytes, heapUsedBytes, heapCommittedBytes, metaspaceBytes, codeCacheBytes,
                    threadStacksBytes, directBytes, mallocBytes, other, rssAnonBytes, rssFileBytes, rssShmemBytes,
                    mappedBytes, threads, heapResidentBytes, filesBytes, residentAtMs);
        }

        /**
         * @return the heap's part of the resident set: its resident bytes where checked (at most what is committed
         *         now: the check may be older than the sample), else its committed bytes; -1 unknown
         */
        public long heapBytes() {
            if (heapResidentBytes < 0) {
                return heapCommittedBytes;
            }
            return heapCommittedBytes < 0 ? heapResidentBytes : Math.min(heapResidentBytes, heapCommittedBytes);
        }

        /** @return the named parts of the resident set added up (unknown ones count 0) */
        public long namedBytes() {
            return Math.max(0, heapBytes()) + Math.max(0, metaspaceBytes) + Math.max(0, codeCacheBytes)
                    + Math.max(0, threadStacksBytes) + Math.max(0, directBytes) + Math.max(0, mallocBytes)
                    + Math.max(0, filesBytes);
        }
    }

    /** NMT's committed bytes per category at one time. */
    public record Nmt(double timeMs, List<Category> categories) {
        public Nmt {
            categories = List.copyOf(categories);
        }
    }

    /** One NMT category ({@code Java Heap}, {@code Class}, {@code Thread}, {@code Thread.stack}, ...). */
    public record Category(String name, long committedBytes) {
    }

    /**
     * @param runStart the run's start ({@code System.nanoTime()} of the recorded JVM)
     * @param from     the window's start, same clock
     * @param to       the window's end, same clock
     * @return the process memory in the window, or null when the recording has no sample in it
     */
    static ProcessMemory of(RecordedRun run, long runStart, long from, long to) {
        List<Sample> all = new ArrayList<>();
        Nmt nmt = null;
        for (ProcessMemorySamples block : run.processMemory()) {
            if (block.part("rss") >= 0 || block.part("heapCommitted") >= 0) {
                Parts p = new Parts(block);
                for (int i = 0; i < block.size(); i++) {
                    long t = block.timestampNanos(i);
                    if (t >= from && t <= to) {
                        all.add(p.sample(i, (t - runStart) / 1e6));
                    }
                }
            } else if (block.size() > 0 && !block.parts().isEmpty() && block.parts().get(0).startsWith("nmt.")) {
                for (int i = 0; i < block.size(); i++) {
                    long t = block.timestampNanos(i);
                    if (t >= from && t <= to) {
                        nmt = nmt(block, i, (t - runStart) / 1e6);
                    }
                }
            }
        }
        if (all.isEmpty()) {
            return null;
        }
        all.sort((a, b) -> Double.compare(a.timeMs(), b.timeMs()));
        Sample peak = null;
        for (Sample s : all) {
            if (s.rssBytes() >= 0 && (peak == null || s.rssBytes() > peak.rssBytes())) {
                peak = s;
            }
        }
        if (peak != null) {
            peak = peak.withResidentOf(nearestPass(all, peak.timeMs(), peak.rssBytes()));
        }
        long interval = 0;
        try {
            interval = Long.parseLong(run.metadata().getOrDefault("processMemory.intervalMs", "0"));
        } catch (NumberFormatException e) {
            interval = 0;
        }
        String stacks = run.metadata().getOrDefault("processMemory.threadStacks", "estimate");
        java.util.Map<String, String> parts = new java.util.TreeMap<>();
        run.metadata().forEach((k, v) -> {
            if (k.startsWith("processMemory.parts.")) {
                parts.put(k.substring("processMemory.parts.".length()), v);
            }
        });
        if (all.get(all.size() - 1).threadStacksBytes() >= 0 && "resident".equals(parts.get("threadStacks"))) {
            stacks = "resident";
        }
        return new ProcessMemory(interval, downsample(all), all.size(), peak, all.get(all.size() - 1),
                stacks.startsWith("nmt") ? "nmt" : stacks.equals("resident") ? "resident" : "estimate", nmt, parts);
    }

    /**
     * One fast sample as the breakdown reads it (the one home of its arithmetic: the report and {@code memscope top}).
     *
     * @param block  a PROCESS_MEMORY block of fast samples (parts named as the agent names them)
     * @param i      the sample's index in it
     * @param timeMs its time, ms since the run's start
     */
    public static Sample sample(ProcessMemorySamples block, int i, double timeMs) {
        return new Parts(block).sample(i, timeMs);
    }

    /**
     * The resident check's pass whose figures stand for a moment's: of the pass nearest before it and the pass
     * nearest after it, the one whose process looked more like that moment's (the resident set of the first sample
     * carrying it nearer {@code rssBytes}), the nearer in time on a tie. A collection between the moment and the
     * nearest pass can change what is resident by hundreds of MiB (G1 returning heap to the OS after a full
     * collection); the pass that saw about the same resident set saw about the same memory.
     *
     * @param rssBytes the moment's resident set; below 0 (unknown): the nearer in time
     * @return the first sample carrying that pass (the later one on a tie), or a sample without resident figures when
     *         none has any
     */
    static Sample nearestPass(List<Sample> all, double timeMs, long rssBytes) {
        Sample before = null;
        Sample after = null;
        double seen = Double.NaN;
        for (Sample s : all) {
            double at = s.residentAtMs();
            if (Double.isNaN(at) || at == seen) {
                continue;
            }
            seen = at;
            if (at <= timeMs) {
                if (before == null || at >= before.residentAtMs()) {
                    before = s;
                }
            } else if (after == null || at < after.residentAtMs()) {
                after = s;
            }
        }
        if (before == null || after == null) {
            return before != null ? before : after != null ? after : all.get(0);
        }
        double dBefore = timeMs - before.residentAtMs();
        double dAfter = after.residentAtMs() - timeMs;
        if (rssBytes >= 0 && before.rssBytes() >= 0 && after.rssBytes() >= 0) {
            long rBefore = Math.abs(before.rssBytes() - rssBytes);
            long rAfter = Math.abs(after.rssBytes() - rssBytes);
            if (rBefore != rAfter) {
                return rBefore < rAfter ? before : after;
            }
        }
        return dBefore < dAfter ? before : after;
    }

    /** At most {@value #MAX_SAMPLES}: consecutive buckets, each keeping its sample of largest RSS. */
    static List<Sample> downsample(List<Sample> all) {
        if (all.size() <= MAX_SAMPLES) {
            return all;
        }
        List<Sample> kept = new ArrayList<>(MAX_SAMPLES);
        for (int b = 0; b < MAX_SAMPLES; b++) {
            int lo = (int) ((long) b * all.size() / MAX_SAMPLES);
            int hi = (int) ((long) (b + 1) * all.size() / MAX_SAMPLES);
            Sample best = all.get(lo);
            for (int i = lo + 1; i < hi; i++) {
                if (all.get(i).rssBytes() > best.rssBytes()) {
                    best = all.get(i);
                }
            }
            kept.add(best);
        }
        return kept;
    }

    private static Nmt nmt(ProcessMemorySamples block, int i, double timeMs) {
        List<Category> c = new ArrayList<>();
        for (int j = 0; j < block.parts().size(); j++) {
            String name = block.parts().get(j);
            long v = block.value(i, j);
            if (name.startsWith("nmt.") && name.endsWith(".committed") && v >= 0) {
                c.add(new Category(name.substring(4, name.length() - ".committed".length()), v));
            }
        }
        return new Nmt(timeMs, c);
    }

    /** A fast sample block's part indexes, by name (-1 when the block lacks a part). */
    private static final class Parts {
        final ProcessMemorySamples b;
        final int rss, anon, file, shmem, threads, heapUsed, heapCommitted, metaspace, codeCache, stacks, direct,
                mapped, tracked, heapResident, codeResident, stacksResident, glibc, residentAge;

        Parts(ProcessMemorySamples b) {
            this.b = b;
            rss = b.part("rss");
            anon = b.part("rssAnon");
            file = b.part("rssFile");
            shmem = b.part("rssShmem");
            threads = b.part("threads");
            heapUsed = b.part("heapUsed");
            heapCommitted = b.part("heapCommitted");
            metaspace = b.part("metaspace");
            codeCache = b.part("codeCache");
            stacks = b.part("threadStacks");
            direct = b.part("directBuffers");
            mapped = b.part("mappedBuffers");
            tracked = b.part("trackedNative");
            heapResident = b.part("heapResident");
            codeResident = b.part("codeCacheResident");
            stacksResident = b.part("threadStacksResident");
            glibc = b.part("malloc");
            residentAge = b.part("residentAge");
        }

        long v(int i, int part) {
            return part < 0 ? -1 : b.value(i, part);
        }

        Sample sample(int i, double timeMs) {
            long rssV = v(i, rss);
            long directV = v(i, direct);
            long trackedV = v(i, tracked);
            // glibc's bytes in use where known (direct buffers, Unsafe and FFM arenas are malloc'd: direct is a part
            // of its own); else what memscope tracks beyond direct buffers. The free memory glibc keeps
            // (mallocFree) is not counted: how much of it is resident is not known
            long glibcV = v(i, glibc);
            long malloc = glibcV >= 0 ? Math.max(0, glibcV - Math.max(0, directV))
                    : trackedV < 0 ? -1 : Math.max(0, trackedV - Math.max(0, directV));
            long codeV = v(i, codeResident) >= 0 ? v(i, codeResident) : v(i, codeCache);
            long stacksV = v(i, stacksResident) >= 0 ? v(i, stacksResident) : v(i, stacks);
            long fileV = v(i, file);
            long shmemV = v(i, shmem);
            long files = fileV < 0 ? -1 : fileV + Math.max(0, shmemV);
            long age = v(i, residentAge);
            return new Sample(timeMs, rssV, v(i, heapUsed), v(i, heapCommitted), v(i, metaspace), codeV, stacksV,
                    directV, malloc, -1, v(i, anon), fileV, shmemV, v(i, mapped), v(i, threads), v(i, heapResident),
                    files, age < 0 ? Double.NaN : Math.rint((timeMs - age / 1e6) * 1000) / 1000) // to the us
                    .withOther();
        }
    }
}
