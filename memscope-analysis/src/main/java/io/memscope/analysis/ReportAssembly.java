package io.memscope.analysis;

import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Site;
import io.memscope.recording.SiteCount;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles the {@link Report} record from a finished {@link ReportReplay}: rounds the estimates so that they add up
 * (a site's stacks to the site, the sites to the totals, the timeline's buckets to the totals: largest remainders,
 * {@link Apportion}), applies the classification rules ({@link ReportRules}) to each site, ranks the sites, and
 * builds each section (peak, totals, native memory, GC, timeline, heap check). In exact mode the recording's exact
 * counts replace the sampled allocated figures and are spread over stacks and time in proportion to the samples.
 * One report per instance.
 */
final class ReportAssembly {
    private final ReportReplay r;
    private final RecordedRun run;
    private final ApiReport api;
    private final long late;
    private final Map<Integer, SiteCount> counts;
    /** The allocated figures are the exact counts (class comment of {@link ReportBuilder}: Exact mode). */
    private final boolean exact;
    private final double countsAsOfMs;
    private final long windowNanos;
    /** The rounded figures of each stack: allocated bytes and objects, held at the end and at the peak... */
    private final Map<StackTally, long[]> stackFigures = new HashMap<>();
    /** The exact allocated bytes spread over the timeline's buckets (exact mode), else null. */
    private final double[] bucketExact;

    // the sums over heap sites
    private long allocatedBytes;
    private long allocatedObjects;
    private long liveAtEnd;
    private long peakEstimate;
    private long peakObjects;
    private long unconfirmedAtEnd;
    private long unconfirmedAtPeak;
    private long sampleCount;

    /**
     * @param late events the time order passed on out of order ({@link TimeOrder#late()}): named in the metadata
     */
    ReportAssembly(ReportReplay replay, ApiReport api, long late) {
        this.r = replay;
        this.run = replay.run;
        this.api = api;
        this.late = late;
        this.counts = run.siteCounts();
        // a recording that was not closed has the counts of its last snapshot: exact as of its time, if known
        long countsAt = run.metadataLong(MetadataKeys.SITE_COUNTS_NANOS, Long.MIN_VALUE);
        boolean closed = run.totals().isPresent();
        this.exact = "exact".equals(run.metadata().get(MetadataKeys.MODE)) && !counts.isEmpty() && !r.restricted
                && (closed || countsAt != Long.MIN_VALUE);
        this.countsAsOfMs = exact && !closed ? (countsAt - r.runStart) / 1e6 : Double.NaN;
        this.windowNanos = Math.max(1, r.to - r.from);
        this.bucketExact = exact ? new double[r.timeline.count] : null;
    }

    Report report() {
        for (StackTally s : r.stacks) {
            s.closeBucket();
        }
        if (exact) {
            for (SiteCount c : counts.values()) {
                SiteTally a = r.site(c.siteId());
                if (!a.isNative && a.stacks.isEmpty() && c.bytes() > 0) {
                    r.stack(0, a); // a site counted but never sampled: one stack, its own frame
                }
            }
        }
        List<SiteProfile> heap = heapSites();
        List<SiteProfile> nativeSites = nativeSites();
        List<SiteProfile> all = new ArrayList<>(heap);
        all.addAll(nativeSites);
        all.sort(Comparator.comparingLong((SiteProfile p) -> -p.allocatedBytes()).thenComparing(SiteProfile::site));

        List<SiteProfile> top = rank(heap, p -> p.allocatedBytes() > 0, SiteProfile::allocatedBytes);
        List<SiteProfile> topLive = rank(heap, p -> p.liveBytes() > 0, SiteProfile::liveBytes);
        List<SiteProfile> leaks = rank(heap, SiteProfile::leakSuspect, SiteProfile::growthBytes);
        List<SiteProfile> temps = rank(heap, SiteProfile::temporary, SiteProfile::allocatedBytes);
        List<StackProfile> stackProfiles = stackProfiles();
        Peak peak = peak(heap);
        Report.Gc gc = gc();
        Timeline timeline = r.timeline.timeline(exact ? bucketExact : r.timeline.alloc, allocatedBytes, r.runStart,
                r.gcs.synthetic());
        Map<String, String> metadata = run.metadata();
        if (late > 0) {
            metadata = new LinkedHashMap<>(metadata);
            metadata.put("lateEvents", Long.toString(late));
        }
        return new Report(metadata, ReportBuilder.source(run), new Report.Window(r.runStart, r.from, r.to,
                r.restricted), totals(peak), peak, all, top, topLive, leaks, temps, nativeMemory(nativeSites), gc,
                timeline, stackProfiles, run.failureCount(), run.failureMessages(), api, run.accounting(),
                heapCheck(), RetentionPaths.of(run, r.runStart, r.from, r.to, r.restricted),
                r.processMemory);
    }

    // ------------------------------------------------------------------------------------------------ heap sites

    /**
     * @return the heap sites with anything to show: allocated, held at the end or the peak, growth; each site's
     *         stacks get their share of its rounded figures, and the sums are kept for the totals
     */
    private List<SiteProfile> heapSites() {
        List<SiteProfile> profiles = new ArrayList<>();
        for (SiteTally a : r.sites) {
            if (!a.isNative) {
                SiteProfile p = heapSite(a);
                if (p != null) {
                    profiles.add(p);
                }
            }
        }
        // the 1%-of-all condition of temporaries needs the total
        List<SiteProfile> heap = new ArrayList<>(profiles.size());
        for (SiteProfile p : profiles) {
            if (p.temporary() && ReportRules.tooSmallATemporary(p, allocatedBytes)) {
                p = new SiteProfile(p.site(), p.type(), false, p.allocatedBytes(), p.allocatedObjects(),
                        p.samples(), p.liveBytes(), p.liveObjects(), p.liveSamples(), p.peakBytes(),
                        p.heldAtPeakBytes(), p.heldAtPeakObjects(), p.heldAtPeakSamples(), p.growthBytes(),
                        p.medianAgeAtCollectionMs(), p.freedByFirstCollectionShare(), p.leakSuspect(), false,
                        p.stack(), p.unconfirmedBytes(), p.peakUnconfirmedBytes(),
                        p.heldAtPeakUnconfirmedBytes(), p.growth());
            }
            heap.add(p);
        }
        return heap;
    }

    /** @return one heap site's profile (its stacks' figures into {@link #stackFigures}), null when it has none */
    private SiteProfile heapSite(SiteTally a) {
        HeldLedger held = r.heldSites;
        long allocB = Math.round(a.estBytes);
        long allocC = Math.round(a.estCount);
        if (exact) {
            SiteCount c = counts.get(a.site.id());
            allocB = c == null ? 0 : c.bytes();
            allocC = c == null ? 0 : c.allocations();
        }
        boolean hasPeak = r.peakGc >= 0;
        long liveB = Math.max(0, Math.round(held.endBytes(a.key)));
        long liveC = Math.max(0, Math.round(held.endCount(a.key)));
        long unconfB = Math.max(0, Math.round(held.endUnconfirmedBytes(a.key)));
        long atPeakB = hasPeak ? Math.max(0, Math.round(held.atPeakBytes(a.key))) : 0;
        long atPeakC = hasPeak ? Math.max(0, Math.round(held.atPeakCount(a.key))) : 0;
        long atPeakU = hasPeak ? Math.max(0, Math.round(held.atPeakUnconfirmedBytes(a.key))) : 0;
        long ownPeak = Math.max(0, Math.round(held.peakBytes(a.key)));
        long ownPeakU = ownPeak == 0 ? 0 : Math.max(0, Math.round(held.peakUnconfirmedBytes(a.key)));
        if (allocB == 0 && liveB == 0 && atPeakB == 0 && ownPeak == 0 && a.samples == 0 && unconfB == 0) {
            return null;
        }
        SiteProfile.Growth growthAt = r.rules.growth(a);
        long growth = ReportRules.growthBytes(growthAt);
        long medianNanos = a.lifetimes.medianNanos();
        double median = medianNanos < 0 ? -1 : medianNanos / 1e6;
        double firstGcShare = a.lifetimes.count() == 0 ? -1
                : (double) a.freedByFirstCollection / a.lifetimes.count();
        boolean leak = ReportRules.leakSuspect(growthAt);
        allocatedBytes += allocB;
        allocatedObjects += allocC;
        liveAtEnd += liveB;
        peakEstimate += atPeakB;
        peakObjects += atPeakC;
        sampleCount += a.samples;
        spreadOverStacks(a, new long[] {allocB, allocC, liveB, liveC, atPeakB, atPeakC, unconfB, atPeakU}, leak);
        long liveN = held.endSamples(a.key);
        long atPeakN = hasPeak ? held.atPeakSamples(a.key) : 0;
        SiteProfile p = new SiteProfile(a.site.frame(), ReportReplay.typeOf(a), false, allocB, allocC, a.samples,
                liveB, liveC, liveN, ownPeak, atPeakB, atPeakC, atPeakN, growth, median, firstGcShare, leak,
                ReportRules.temporary(a, allocB, liveB), run.stack(a.stackId), unconfB, ownPeakU, atPeakU, growthAt);
        unconfirmedAtEnd += unconfB;
        unconfirmedAtPeak += atPeakU;
        return p;
    }

    /**
     * Spreads a heap site's rounded figures over its stacks in proportion to their samples (allocated) and their own
     * held estimates (held), so that they add up to the site's; in exact mode also its exact bytes over the timeline.
     *
     * @param site {allocated bytes, objects, held at the end bytes, objects, at the peak bytes, objects, unconfirmed
     *             at the end, at the peak}
     */
    private void spreadOverStacks(SiteTally a, long[] site, boolean leak) {
        HeldLedger held = r.heldStacks;
        int n = a.stacks.size();
        double[][] raw = new double[8][n];
        boolean noSamples = a.estBytes <= 0;
        for (int i = 0; i < n; i++) {
            StackTally s = a.stacks.get(i);
            raw[0][i] = noSamples ? (i == 0 ? 1 : 0) : s.allocBytes;
            raw[1][i] = noSamples ? (i == 0 ? 1 : 0) : s.allocCount;
            raw[2][i] = held.endBytes(s.key);
            raw[3][i] = held.endCount(s.key);
            raw[4][i] = held.atPeakBytes(s.key);
            raw[5][i] = held.atPeakCount(s.key);
            raw[6][i] = Math.max(0, held.endUnconfirmedBytes(s.key));
            raw[7][i] = Math.max(0, held.atPeakUnconfirmedBytes(s.key));
        }
        long[][] rounded = new long[8][];
        for (int f = 0; f < 8; f++) {
            rounded[f] = Apportion.round(raw[f], site[f]);
        }
        double scale = a.estBytes > 0 ? site[0] / a.estBytes : 0;
        for (int i = 0; i < n; i++) {
            StackTally s = a.stacks.get(i);
            stackFigures.put(s, new long[] {rounded[0][i], rounded[1][i], rounded[2][i], rounded[3][i],
                rounded[4][i], rounded[5][i], leak ? 1 : 0, rounded[6][i], rounded[7][i]});
            if (exact && !noSamples) {
                for (int j = 0; j < s.bucketCount; j++) {
                    bucketExact[s.buckets[j]] += s.bucketBytes[j] * scale;
                }
            }
        }
        long allocB = site[0];
        if (exact && noSamples && allocB > 0) {
            // counted, never sampled: spread like everything else
            double[] alloc = r.timeline.alloc;
            double total = 0;
            for (double v : alloc) {
                total += v;
            }
            for (int b = 0; b < alloc.length; b++) {
                bucketExact[b] += total > 0 ? allocB * alloc[b] / total : (double) allocB / alloc.length;
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- native sites

    /** @return the native sites with anything to show (their stacks' figures into {@link #stackFigures}) */
    private List<SiteProfile> nativeSites() {
        List<SiteProfile> nativeSites = new ArrayList<>();
        for (SiteTally a : r.sites) {
            if (!a.isNative || (a.nAllocated == 0 && a.nOutstanding == 0 && a.nPeak <= 0)) {
                continue;
            }
            boolean leak = a.isMalloc ? ReportRules.mallocLeakSuspect(a, windowNanos, r.mallocSampling.intervalBytes())
                    : ReportRules.nativeLeakSuspect(a, windowNanos);
            long growth = a.isMalloc ? ReportRules.mallocGrowth(a) : ReportRules.nativeGrowth(a);
            nativeSites.add(new SiteProfile(a.site.frame(), ReportReplay.typeOf(a), true, a.nAllocated,
                    Math.round(a.nAllocations), a.nSamples, a.nOutstanding, Math.round(a.nBlocks), a.nLiveSamples,
                    Math.max(0, a.nPeak), a.nAtPeakBytes, Math.round(a.nAtPeakBlocks), a.nAtPeakSamples, growth, -1,
                    -1, leak, false, run.stack(a.stackId), 0, 0, 0, null));
            for (StackTally s : a.stacks) {
                stackFigures.put(s, new long[] {Math.round(s.allocBytes), Math.round(s.allocCount),
                    s.nOutstanding, Math.round(s.nBlocks), s.nAtPeakBytes, Math.round(s.nAtPeakBlocks),
                    s.nOutstanding > 0 ? 1 : 0, 0, 0});
            }
        }
        return nativeSites;
    }

    private Report.NativeMemory nativeMemory(List<SiteProfile> nativeSites) {
        NativeLedger n = r.natives;
        Peak.NativePeak nativePeak = null;
        if (n.peak > 0) {
            List<Peak.Holder> holders = new ArrayList<>();
            for (SiteProfile p : rank(nativeSites, x -> x.heldAtPeakBytes() > 0, SiteProfile::heldAtPeakBytes)) {
                holders.add(new Peak.Holder(p.site(), p.type(), p.heldAtPeakBytes(), p.heldAtPeakObjects(),
                        p.heldAtPeakSamples(), p.stack(), 0));
            }
            nativePeak = new Peak.NativePeak(n.peakTime, (n.peakTime - r.runStart) / 1e6, n.peak, holders);
        }
        List<Anomaly> anomalies = new ArrayList<>();
        Map<Long, List<String>> anomalyStacks = new HashMap<>();
        for (Anomaly an : run.anomalies()) {
            if (ApiAnalysis.isApiAnomaly(an)) {
                continue; // pools' and scopes' own, in the API sections
            }
            if (an.timestampNanos() >= r.from && an.timestampNanos() <= r.to) {
                anomalies.add(an);
                if (an.stackId() != 0) {
                    anomalyStacks.put(an.stackId(), run.stack(an.stackId()));
                }
            }
        }
        return new Report.NativeMemory(n.allocated, Math.round(n.allocations), n.freed, n.outstanding,
                n.outstandingBlocks(), Math.max(0, n.peak), nativePeak,
                rank(nativeSites, p -> p.liveBytes() > 0, SiteProfile::liveBytes), anomalies, anomalyStacks,
                rank(nativeSites, SiteProfile::leakSuspect, SiteProfile::growthBytes), malloc(nativePeak));
    }

    /**
     * @return the malloc part of native memory, or null when the recording has neither malloc samples nor malloc
     *         metadata (the agent did not track malloc)
     */
    private Report.Malloc malloc(Peak.NativePeak nativePeak) {
        Map<String, String> meta = run.metadata();
        boolean any = r.sites.stream().anyMatch(a -> a.isMalloc);
        if (!any && meta.keySet().stream().noneMatch(k -> k.startsWith("malloc."))) {
            return null;
        }
        NativeLedger n = r.natives;
        boolean atRss = r.processMemory != null && r.processMemory.peak() != null;
        List<Peak.Holder> holders = new ArrayList<>();
        List<SiteTally> ranked = new ArrayList<>();
        for (SiteTally a : r.sites) {
            if (a.isMalloc && (atRss ? a.nAtRssPeakBytes : a.nAtPeakBytes) > 0) {
                ranked.add(a);
            }
        }
        ranked.sort(Comparator.comparingLong((SiteTally a) -> atRss ? a.nAtRssPeakBytes : a.nAtPeakBytes)
                .reversed().thenComparing(a -> a.site.frame()));
        long atPeakBytes = 0;
        for (SiteTally a : ranked) {
            long bytes = atRss ? a.nAtRssPeakBytes : a.nAtPeakBytes;
            atPeakBytes += bytes;
            holders.add(new Peak.Holder(a.site.frame(), ReportReplay.typeOf(a), bytes,
                    Math.round(atRss ? a.nAtRssPeakBlocks : a.nAtPeakBlocks),
                    atRss ? a.nAtRssPeakSamples : a.nAtPeakSamples, run.stack(a.stackId), 0));
        }
        double atMs = atRss ? r.processMemory.peak().timeMs() : nativePeak == null ? -1 : nativePeak.timeMs();
        return new Report.Malloc(r.mallocSampling.intervalBytes(), r.mallocSampling.law(), n.mallocSamples,
                n.mallocAllocated, n.mallocOutstanding, n.mallocLiveSamples, atRss ? "rss" : "native", atMs, atPeakBytes, holders,
                Report.Malloc.Coverage.of(meta));
    }

    // ---------------------------------------------------------------------------------------------------- stacks

    /** @return every stack with figures, most allocated first; its allocations over time in sparse buckets */
    private List<StackProfile> stackProfiles() {
        List<StackProfile> stackProfiles = new ArrayList<>();
        for (StackTally s : r.stacks) {
            long[] f = stackFigures.get(s);
            if (f == null) {
                continue;
            }
            List<String> frames = s.stackId == 0 ? List.of() : run.stack(s.stackId);
            if (frames.isEmpty()) {
                frames = List.of(s.site.site.frame());
            }
            double[] raw = java.util.Arrays.copyOf(s.bucketBytes, s.bucketCount);
            int[] idx = java.util.Arrays.copyOf(s.buckets, s.bucketCount);
            boolean sorted = true;
            for (int i = 1; i < idx.length && sorted; i++) {
                sorted = idx[i - 1] < idx[i];
            }
            if (!sorted) { // events put out of order by more than the reorder window: rare
                Integer[] order = new Integer[s.bucketCount];
                for (int i = 0; i < s.bucketCount; i++) {
                    order[i] = i;
                }
                java.util.Arrays.sort(order, Comparator.comparingInt(i -> s.buckets[i]));
                for (int i = 0; i < s.bucketCount; i++) {
                    idx[i] = s.buckets[order[i]];
                    raw[i] = s.bucketBytes[order[i]];
                }
            }
            long[] values = Apportion.round(raw, f[0]);
            if (raw.length == 0 && f[0] > 0) {
                idx = new int[] {0};
                values = new long[] {f[0]};
            }
            stackProfiles.add(new StackProfile(frames, s.site.site.frame(), ReportReplay.typeOf(s.site),
                    s.site.isNative, f[0], f[1], f[2], f[3], f[4], f[5], f[6] != 0, new SparseSeries(idx, values),
                    f[7], f[8]));
        }
        stackProfiles.sort(Comparator.comparingLong((StackProfile p) -> -p.allocatedBytes())
                .thenComparingLong(p -> -p.heldBytes()));
        return stackProfiles;
    }

    // ------------------------------------------------------------------------------------------ other sections

    /** @return the heap's peak: the window's whole-heap collection that held the most ({@link HeldReplay}), or null */
    private Peak peak(List<SiteProfile> heap) {
        if (r.peakGc < 0) {
            return null;
        }
        GcRecord g = r.gcs.record(r.peakGc);
        List<Peak.Holder> holders = new ArrayList<>();
        for (SiteProfile p : rank(heap, x -> x.heldAtPeakBytes() > 0, SiteProfile::heldAtPeakBytes)) {
            holders.add(new Peak.Holder(p.site(), p.type(), p.heldAtPeakBytes(), p.heldAtPeakObjects(),
                    p.heldAtPeakSamples(), p.stack(), p.heldAtPeakUnconfirmedBytes()));
        }
        return new Peak(g.startNanos(), (g.startNanos() - r.runStart) / 1e6, g.name(), g.cause(),
                g.heapUsedAfter(), peakEstimate, peakObjects, holders, unconfirmedAtPeak);
    }

    private Report.Totals totals(Peak peak) {
        Report.ExactCoverage coverage = null;
        if ("exact".equals(run.metadata().get(MetadataKeys.MODE))) {
            long counted = 0;
            for (SiteCount c : counts.values()) {
                Site s = run.site(c.siteId());
                if (s == null || !s.isNative()) {
                    counted += c.bytes();
                }
            }
            coverage = new Report.ExactCoverage(counted, run.metadataLong(MetadataKeys.JVM_ALLOCATED_BYTES, -1),
                    run.metadata().get(MetadataKeys.JVM_ALLOCATED_SCOPE),
                    "true".equalsIgnoreCase(run.metadata().get(MetadataKeys.OPTION_INCLUDE_JDK)));
        }
        double heldAsOf = r.endWholeGc < 0 ? Double.NaN
                : (r.gcs.confirmedSnapshot(r.endWholeGc) - r.runStart) / 1e6;
        return new Report.Totals(allocatedBytes, allocatedObjects, peak != null ? peakEstimate : liveAtEnd,
                liveAtEnd, sampleCount, windowNanos / 1_000_000, exact, countsAsOfMs, coverage, unconfirmedAtEnd,
                peak != null ? unconfirmedAtPeak : unconfirmedAtEnd, r.gcs.wholeHeapCount(r.windowFirstGc, r.endGc),
                heldAsOf);
    }

    /** @return the collections of the window and their pauses (counted into the timeline's buckets too) */
    private Report.Gc gc() {
        TimelineBuckets t = r.timeline;
        List<GcRecord> collections = new ArrayList<>();
        long pauses = 0;
        double pauseTotal = 0;
        double pauseMax = 0;
        long maxAfter = 0;
        for (GcRecord g : GcTimeline.withExamined(run.gcRecords())) {
            if (g.startNanos() < r.from || g.startNanos() > r.to) {
                continue;
            }
            collections.add(g);
            int b = t.bucketOf(g.startNanos());
            t.gcs[b]++;
            maxAfter = Math.max(maxAfter, g.heapUsedAfter());
            if (g.isPause()) {
                pauses++;
                double ms = g.durationNanos() / 1e6;
                pauseTotal += ms;
                pauseMax = Math.max(pauseMax, ms);
                t.pause[b] += ms;
            }
        }
        return new Report.Gc(collections.size(), run.metadataLong(MetadataKeys.GC_COLLECTIONS_UNTIMED, 0), pauses,
                pauseTotal, pauseMax, maxAfter, collections);
    }

    private Report.HeapCheck heapCheck() {
        HeldReplay h = r.heldResults;
        if (h.heapWorstGc < 0) {
            return new Report.HeapCheck(h.heapChecked, h.heapExceeded, h.heldExceeded, Double.NaN, null, 0, 0, 0);
        }
        GcRecord worst = r.gcs.record(h.heapWorstGc);
        return new Report.HeapCheck(h.heapChecked, h.heapExceeded, h.heldExceeded,
                (worst.startNanos() - r.runStart) / 1e6, worst.name(), h.heapWorstEstimate, worst.heapUsedAfter(),
                h.heapWorstSd);
    }

    private static List<SiteProfile> rank(List<SiteProfile> l, java.util.function.Predicate<SiteProfile> keep,
                                          java.util.function.ToLongFunction<SiteProfile> by) {
        return l.stream().filter(keep)
                .sorted(Comparator.comparingLong((SiteProfile p) -> -by.applyAsLong(p))
                        .thenComparing(SiteProfile::site))
                .limit(ReportBuilder.TOP).toList();
    }
}
