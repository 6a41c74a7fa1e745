package io.memscope.analysis;

import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import java.util.List;
import java.util.Map;

/**
 * The result of analysing one recording (one JVM's capture), over a time window: what {@code report.json}, the
 * terminal summary, flame graphs and the other exports show. Built by {@link ReportBuilder}; written by
 * {@link ReportJson} and {@link Summary}. Heap figures from samples are unbiased estimates rounded to whole numbers;
 * in exact mode allocated figures are exact. "Live" and "held" mean reachable at a collection that examined the whole
 * heap; "unconfirmed" is what only young collections saw survive, shown apart: see {@link SiteProfile}.
 *
 * @param metadata           the recording's metadata (plus {@code lateEvents} when events came out of order)
 * @param recording          the recording and how complete it is
 * @param window             the time window every figure covers
 * @param totals             totals of the window
 * @param peak               the heap peak, or null without a collection of the window that examined the whole heap
 * @param sites              every site with a figure, heap and native, largest allocated bytes first
 * @param topAllocationSites heap sites by allocated bytes, at most {@value ReportBuilder#TOP}
 * @param topLiveSites       heap sites by held bytes at the end, at most {@value ReportBuilder#TOP}
 * @param leakSuspects       heap leak suspects, largest growth first, at most {@value ReportBuilder#TOP}
 * @param temporaries        heap temporaries, largest allocated first, at most {@value ReportBuilder#TOP}
 * @param nativeMemory       native memory
 * @param gc                 collections of the window
 * @param timeline           memory over time
 * @param stacks             every distinct stack, largest allocated bytes first (flame graphs, exports)
 * @param failureCount       memscope's own failures inside the recorded JVM
 * @param failures           the first failure messages
 * @param api                scopes, the function profile, named objects and pools (the whole run, whatever the
 *                           window)
 * @param accounting         the application's accounting summary tables (memscope-core's MemoryAccounting) as last
 *                           recorded: at the end of the capture, or the last periodic snapshot of a JVM that died;
 *                           null when the recording has none (whatever the window)
 * @param heapCheck          the sampled estimates against the JVM's heap figures
 * @param retention          why held memory is held: the paths from GC roots of the last walk of the heap in the
 *                           window ({@link Retention#NONE} without one)
 * @param processMemory      the process's memory over the window (RSS and its parts), or null when the recording has
 *                           no sample of it in the window
 */
public record Report(Map<String, String> metadata, Source recording, Window window, Totals totals, Peak peak,
                     List<SiteProfile> sites, List<SiteProfile> topAllocationSites, List<SiteProfile> topLiveSites,
                     List<SiteProfile> leakSuspects, List<SiteProfile> temporaries, NativeMemory nativeMemory, Gc gc,
                     Timeline timeline, List<StackProfile> stacks, long failureCount, List<String> failures,
                     ApiReport api, io.memscope.recording.AccountingSnapshot accounting, HeapCheck heapCheck,
                     Retention retention, ProcessMemory processMemory) {

    /** A report without process memory samples. */
    public Report(Map<String, String> metadata, Source recording, Window window, Totals totals, Peak peak,
                  List<SiteProfile> sites, List<SiteProfile> topAllocationSites, List<SiteProfile> topLiveSites,
                  List<SiteProfile> leakSuspects, List<SiteProfile> temporaries, NativeMemory nativeMemory, Gc gc,
                  Timeline timeline, List<StackProfile> stacks, long failureCount, List<String> failures,
                  ApiReport api, io.memscope.recording.AccountingSnapshot accounting, HeapCheck heapCheck,
                  Retention retention) {
        this(metadata, recording, window, totals, peak, sites, topAllocationSites, topLiveSites, leakSuspects,
                temporaries, nativeMemory, gc, timeline, stacks, failureCount, failures, api, accounting, heapCheck,
                retention, null);
    }

    /**
     * The recording the report was built from, and how complete it is.
     *
     * @param file          the recording file as given
     * @param formatVersion {@code major.minor} of the file
     * @param closed        true if the file ends with its END block: the agent closed it (JVM exit, duration,
     *                      detach); false when the JVM died without closing it (killed, crashed, out of memory)
     *                      or is still writing it: the report then covers what the file holds, up to its last
     *                      complete block
     * @param clean         true if closed normally (the END block's CLEAN flag); false when not closed or closed after
     *                      an I/O failure
     * @param events        events read
     * @param eventsDropped events recorded but not in the file (the END block's count; 0 when not closed)
     * @param damage        why the file stops being readable there, for example {@code file ends without an END
     *                      block (...)}, or null
     * @param damageOffset  the byte offset of the damage, -1 without damage
     * @param skippedBlocks blocks of a newer minor version this reader does not know, skipped
     * @param kind          what made it: {@code memscope} (memscope's agent) or {@code jfr} (a JFR recording)
     * @param producer      what wrote it, as far as the file says ({@code memscope agent}, {@code JDK flight
     *                      recorder (...)}, {@code async-profiler})
     * @param limitations   what the report cannot show from such a recording, one sentence each (empty for memscope's)
     * @param chunks        the chunks of a chunked recording, or null for one file
     */
    public record Source(String file, String formatVersion, boolean closed, boolean clean, long events,
                         long eventsDropped, String damage, long damageOffset, int skippedBlocks, String kind,
                         String producer, List<String> limitations, Chunks chunks) {
        public Source {
            limitations = limitations == null ? List.of() : List.copyOf(limitations);
        }

        /** A memscope recording's, not chunked. */
        public Source(String file, String formatVersion, boolean closed, boolean clean, long events,
                      long eventsDropped, String damage, long damageOffset, int skippedBlocks) {
            this(file, formatVersion, closed, clean, events, eventsDropped, damage, damageOffset, skippedBlocks,
                    "memscope", "memscope agent", List.of(), null);
        }

        /** @return whether the recording is a JFR recording ({@code kind} {@code jfr}), not memscope's */
        public boolean jfr() {
            return "jfr".equals(kind);
        }
    }

    /**
     * The chunks a chunked recording (format 1.6) was read from: the ones present in its folder, the oldest deleted
     * to hold its bounds (maxSize, maxAge). The report covers the run from the first chunk present on.
     *
     * @param count          chunks read
     * @param firstIndex     index of the first chunk present (1: none deleted before it)
     * @param lastIndex      index of the last chunk
     * @param deleted        chunks deleted (missing among 1 .. lastIndex)
     * @param coveredFromMs  where the chunks present begin, ms since the run's start (0 when chunk 1 is present)
     * @param carryTruncated outstanding allocations that were not carried into later chunks (beyond the carry's bound
     *                       of 2 million): the held figures miss them
     * @param skippedBefore  chunks present but not read, wholly before the report's window (the first chunk read
     *                       carries their state)
     * @param skippedAfter   chunks present but not read, wholly after the report's window
     */
    public record Chunks(int count, int firstIndex, int lastIndex, int deleted, double coveredFromMs,
                         long carryTruncated, int skippedBefore, int skippedAfter) {
    }

    /**
     * The time window the figures cover: the whole run, or the part {@code memscope report --from/--to} chose.
     *
     * @param runStartNanos start of the run (the capture's start), {@code System.nanoTime()} of the recorded JVM
     * @param fromNanos     start of the window, same clock
     * @param toNanos       end of the window, same clock
     * @param restricted    true when {@code --from} or {@code --to} narrowed it
     */
    public record Window(long runStartNanos, long fromNanos, long toNanos, boolean restricted) {
        /** @return start of the window, ms since the run's start */
        public double fromMs() {
            return (fromNanos - runStartNanos) / 1e6;
        }

        /** @return end of the window, ms since the run's start */
        public double toMs() {
            return (toNanos - runStartNanos) / 1e6;
        }
    }

    /**
     * @param allocatedBytes   heap bytes allocated in the window (exact in exact mode, else estimated)
     * @param allocatedObjects objects (and arrays) allocated in the window (same)
     * @param peakHeldBytes    held bytes at the peak collection ({@link Peak#estimatedBytes()}); without a
     *                         whole-heap collection, {@code heldAtEndBytes}
     * @param heldAtEndBytes   held bytes at the last collection of the window: confirmed reachable by a collection
     *                         that examined the whole heap (for a capture that ended normally: the agent's end check,
     *                         so reachable memory)
     * @param samples          sampled objects allocated in the window (the basis of every estimate)
     * @param durationMs       length of the window in milliseconds
     * @param exact            true when allocated figures are exact counts (exact mode)
     * @param exactCountsAsOfMs when the exact counts are a snapshot, not the final totals (the JVM ended without
     *                         closing its recording): the snapshot's time, ms since the run's start; allocations
     *                         after it are not counted. NaN for final totals and in sample mode
     * @param exactCoverage    in exact mode, what the counts cover; null in sample mode
     * @param unconfirmedAtEndBytes  present at the last collection of the window but judged by no whole-heap
     *                         collection (may be garbage; never in {@code heldAtEndBytes})
     * @param unconfirmedAtPeakBytes the same at the peak collection
     * @param wholeHeapCollections   collections of the window that examined the whole heap (the agent's end check
     *                         included): the held figures' and the leak rule's evidence
     * @param heldAsOfMs       the snapshot the last of them to confirm one confirmed (held figures are what was
     *                         reachable then), ms since the run's start; NaN when none did
     */
    public record Totals(long allocatedBytes, long allocatedObjects, long peakHeldBytes, long heldAtEndBytes,
                         long samples, long durationMs, boolean exact, double exactCountsAsOfMs,
                         ExactCoverage exactCoverage, long unconfirmedAtEndBytes, long unconfirmedAtPeakBytes, int wholeHeapCollections,
                         double heldAsOfMs) {
    }

    /**
     * The sampled estimates against the JVM's own heap figures. Every sampled object still present after a collection
     * is in the heap then, so their estimated bytes (held and unconfirmed together) cannot exceed the heap the JVM
     * reported in use after it, beyond the estimate's sampling error: when they do by more than three standard errors
     * (Horvitz-Thompson variance of the estimate), the estimates are wrong there (a sampler's bias, a misattributed
     * collection) and the report says so instead of printing both as facts.
     *
     * @param checked          collections of the window with the JVM's heap figures, compared
     * @param exceeded         those where the estimate exceeded the JVM's heap used by more than 3 standard errors
     * @param heldExceeded     those where the held (confirmed) estimate alone exceeded it by more than 3 of its
     *                         standard errors: held figures that contradict the JVM
     * @param worstAtMs        the collection where it exceeded it the most (in standard errors), ms since the run's
     *                         start; NaN when none exceeded
     * @param worstCollection  its name
     * @param worstEstimatedBytes    the estimate there (held and unconfirmed)
     * @param worstHeapUsedBytes     the JVM's heap used after it
     * @param worstStandardErrorBytes the estimate's standard error there
     */
    public record HeapCheck(int checked, int exceeded, int heldExceeded, double worstAtMs, String worstCollection,
                            long worstEstimatedBytes, long worstHeapUsedBytes, long worstStandardErrorBytes) {
        /** @return whether the estimates stayed within their error of the JVM's figures */
        public boolean consistent() {
            return exceeded == 0;
        }
    }

    /**
     * What exact mode's counts cover: allocations made by instrumented code (application and library classes; JDK
     * classes only with {@code includeJdk}, and then some packages), against the JVM's own count of the bytes
     * allocated during the capture (ThreadMXBean).
     *
     * @param countedBytes      bytes exact mode counted ({@link Totals#allocatedBytes()} when exact)
     * @param jvmAllocatedBytes the JVM's count, memscope's own threads left out; -1 when the recording has none (a JVM
     *                          that did not close its recording, or a recording from before this count)
     * @param jvmCount          which threads the JVM's count covers: {@code all threads} (JDK 21+) or
     *                          {@code threads alive at the end} (JDK 17-20, which forget an ended thread's bytes);
     *                          null when unknown
     * @param includeJdk        whether some JDK packages were instrumented too ({@code includeJdk})
     */
    public record ExactCoverage(long countedBytes, long jvmAllocatedBytes, String jvmCount, boolean includeJdk) {
        /** @return counted bytes as a share of the JVM's, or NaN when the JVM's count is unknown */
        public double share() {
            return jvmAllocatedBytes > 0 ? (double) countedBytes / jvmAllocatedBytes : Double.NaN;
        }

        /** @return which allocations are counted, in words */
        public String counted() {
            return includeJdk ? "allocations by instrumented code: application and library classes, and the JDK's "
                    + "java.util (not concurrent, jar, zip, logging), java.io, java.nio, java.text, java.time, "
                    + "java.math, java.net and the string builders; not the rest of the JDK (most of java.lang), JNI, "
                    + "Unsafe.allocateInstance, non-array clone() or deserialization"
                    : "allocations by instrumented code: application and library classes; not allocations inside the "
                    + "JDK (collections growing, boxing, string building, parsers' buffers), JNI, "
                    + "Unsafe.allocateInstance, non-array clone() or deserialization (includeJdk counts some JDK "
                    + "packages)";
        }
    }

    /**
     * @param allocatedBytes       native bytes allocated in the window (reallocations count their new size)
     * @param allocations          native allocations (and reallocations) in the window
     * @param freedBytes           native bytes freed in the window
     * @param outstandingBytes     native bytes allocated while tracking and not freed at the end of the window
     * @param outstandingBlocks    blocks behind {@code outstandingBytes}
     * @param peakOutstandingBytes highest outstanding bytes in the window
     * @param peak                 when that was and by which sites, or null without native memory
     * @param leaks                outstanding memory at the end grouped by site, largest first (leak suspects or
     *                             not: a pool's buffers are outstanding too)
     * @param anomalies            double frees and frees of unknown addresses in the window
     * @param anomalyStacks        the stacks of the anomalies, by stack id
     * @param leakSuspects         native leak suspects: sites with memory outstanding at the end that grew (the rule
     *                             of heap leaks, see {@link ReportBuilder}), largest growth first
     * @param malloc               the C allocator's part (sampled), or null when the agent did not track malloc
     */
    public record NativeMemory(long allocatedBytes, long allocations, long freedBytes, long outstandingBytes,
                               long outstandingBlocks, long peakOutstandingBytes, Peak.NativePeak peak,
                               List<SiteProfile> leaks, List<Anomaly> anomalies,
                               Map<Long, List<String>> anomalyStacks, List<SiteProfile> leakSuspects,
                               Malloc malloc) {
    }

    /**
     * Native memory from the C allocator ({@code native:malloc} sites), estimated from samples: each sampled block
     * of {@code s} bytes weighs {@code s/p} bytes, {@code p} as {@code sampling} says (memscope's own samples as heap
     * samples do). These figures are also in {@link NativeMemory}'s totals and site lists.
     *
     * @param intervalBytes      the sampling interval (metadata {@code malloc.intervalBytes}); 0: every malloc recorded
     * @param sampling           how: {@code poisson} (memscope's hooks: {@code p = 1 - exp(-s/intervalBytes)}) or
     *                           {@code counter} (async-profiler's {@code nativemem}:
     *                           {@code p = min(1, s/intervalBytes)}, 1 at interval 0)
     * @param samples            sampled blocks allocated in the window
     * @param allocatedBytes     bytes allocated in the window (estimate)
     * @param outstandingBytes   bytes outstanding at the end of the window (estimate)
     * @param outstandingSamples the sampled blocks behind {@code outstandingBytes}
     * @param atPeakOf           {@code rss}: {@code atPeak} is at the process's RSS peak (the recording has process
     *                           samples); {@code native}: at the native peak
     * @param atPeakMs           when that was, ms since the run's start (-1: no peak)
     * @param atPeakBytes        malloc outstanding then (estimate)
     * @param atPeak             the malloc sites' outstanding then, largest first
     * @param coverage           what the interception covered (from the metadata)
     */
    public record Malloc(long intervalBytes, String sampling, long samples, long allocatedBytes, long outstandingBytes,
                         long outstandingSamples, String atPeakOf, double atPeakMs, long atPeakBytes,
                         List<Peak.Holder> atPeak, Coverage coverage) {
        public Malloc {
            atPeak = List.copyOf(atPeak);
        }

        /**
         * @param selfTest         the start-up self-test's result ({@code passed}, {@code failed: <reason>}), null
         *                         when not recorded
         * @param patchedLibraries libraries whose allocator imports were patched, -1 when not recorded
         * @param skippedLibraries loaded libraries left alone (memscope's own, libc, ld.so), -1 when not recorded
         * @param off              why malloc tracking turned itself off, null while it was on
         * @param dropped          samples lost (the agent's ring was full), -1 when not recorded
         * @param untracked        samples not taken (the table of sampled addresses was full), -1 when not recorded
         * @param javaStackNotWalkable samples of Java threads whose Java stack AsyncGetCallTrace could not walk (named
         *                         by their native function or {@code (Java stack not walkable: <cause>)}), -1 when
         *                         not recorded
         * @param noJavaStack      samples without Java frames by cause (metadata {@code malloc.noJavaStack.<cause>}:
         *                         {@code gcActive}, {@code notWalkableNotInJava}, ... and the expected
         *                         {@code noJavaFrames}, {@code notAJvmThread}), causes never seen left out
         */
        public record Coverage(String selfTest, long patchedLibraries, long skippedLibraries, String off,
                               long dropped, long untracked, long javaStackNotWalkable,
                               Map<String, Long> noJavaStack) {
            public Coverage {
                noJavaStack = Map.copyOf(noJavaStack);
            }

            /** @return the coverage the metadata states ({@code malloc.*} keys) */
            static Coverage of(Map<String, String> meta) {
                Map<String, Long> causes = new java.util.TreeMap<>();
                for (Map.Entry<String, String> e : meta.entrySet()) {
                    if (e.getKey().startsWith(MetadataKeys.MALLOC_NO_JAVA_STACK_PREFIX)) {
                        long n = number(meta, e.getKey());
                        if (n > 0) {
                            causes.put(e.getKey().substring(MetadataKeys.MALLOC_NO_JAVA_STACK_PREFIX.length()), n);
                        }
                    }
                }
                return new Coverage(meta.get(MetadataKeys.MALLOC_SELF_TEST),
                        number(meta, MetadataKeys.MALLOC_PATCHED_LIBRARIES),
                        number(meta, MetadataKeys.MALLOC_SKIPPED_LIBRARIES), meta.get(MetadataKeys.MALLOC_OFF),
                        number(meta, MetadataKeys.MALLOC_DROPPED), number(meta, MetadataKeys.MALLOC_UNTRACKED),
                        number(meta, MetadataKeys.MALLOC_JAVA_STACK_NOT_WALKABLE), causes);
            }

            private static long number(Map<String, String> meta, String key) {
                try {
                    return Long.parseLong(meta.getOrDefault(key, "-1").trim());
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
    }

    /**
     * @param count               collections of any kind in the window, with their records
     * @param untimedCount        collections of the whole recording the agent counted without a record: they went
     *                            by faster than it read them (metadata {@code gc.collectionsUntimed}); not in
     *                            {@code count}
     * @param pauseCount          collections that paused the application
     * @param pauseTotalMs        sum of pauses, ms
     * @param pauseMaxMs          longest pause, ms
     * @param maxHeapAfterGcBytes highest heap use right after a collection
     * @param collections         every collection of the window, oldest first
     */
    public record Gc(long count, long untimedCount, long pauseCount, double pauseTotalMs, double pauseMaxMs,
                     long maxHeapAfterGcBytes, List<GcRecord> collections) {
    }
}
