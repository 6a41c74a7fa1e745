package io.memscope.analysis;

import io.memscope.recording.RecordingReader;
import io.memscope.MemoryEventType;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Site;
import io.memscope.recording.SiteCount;
import io.memscope.recording.EventSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link RecordedRun} into a {@link Report}, over a {@link TimeWindow}.
 *
 * <p><b>Passes.</b> The recording is streamed from the file twice: the first read (when it is opened) gives the
 * tables and each site's allocation window; the second replays the events in time order (through a
 * {@link TimeOrder} window), merged with the starts of the collections. In that second read, decoding, the time
 * order and the API sections' pass ({@link ApiAnalysis}, which needs the file order) run on the decoding thread,
 * the figures here on the calling thread ({@link RecordedRun#replayInTimeOrder}). Memory: per site, per stack, per
 * live sample and per outstanding native block; never per event. A restricted window reads the file once more for
 * the sites' allocation windows inside it.
 *
 * <p><b>Weights.</b> Heap objects are sampled by bytes as a Poisson process with mean {@code m} (the recording's
 * {@value MetadataKeys#INTERVAL_BYTES}), so an object of {@code s} bytes is sampled with probability
 * {@code p = 1 - exp(-s/m)}. Each sample stands for {@code 1/p} objects and {@code s/p} bytes (Horvitz-Thompson):
 * sums over samples are unbiased estimates of allocated and held figures, per site, per stack and in total. Rounded
 * figures are made to add up: a site's stacks add up to the site, the sites to the totals, the timeline's buckets to
 * the totals (largest remainders).
 *
 * <p><b>Held memory.</b> "Live" and "held" mean reachable: a sampled object is held at a collection when a collection
 * that examined the whole heap (that one or an earlier one) judged it, because it was allocated before that
 * collection's snapshot, and did not free it, and no collection freed it since (rules and precision:
 * {@link GcTimeline}). A sampled object still present that no whole-heap collection judged is <i>unconfirmed</i>: it
 * survived only young collections, which do not look at the old generation, so it may be garbage; unconfirmed bytes
 * are shown beside every held figure, never added to it. Held and unconfirmed figures are computed at every
 * collection ({@link HeldLedger}): at the last collection of the window (the report's "live at end"), at the peak (the
 * whole-heap collection after which the JVM reported the most heap in use: {@link Peak}), per site at its own peak,
 * and at the last collection of each timeline bucket. Recordings before format 1.4 do not say what a collection
 * examined: their full collections and the cycles of ZGC and Shenandoah are recognized by name.
 *
 * <p><b>Exact mode.</b> The recording's exact per-site totals are the allocated figures (of the whole run: a
 * restricted window, or a recording without them, uses the samples instead); each site's total is spread over its
 * stacks and over time in proportion to its samples. A recording that was not closed (the JVM was killed) holds the
 * totals of the agent's last periodic snapshot: the allocated figures are exact as of that time
 * ({@link Report.Totals#exactCountsAsOfMs()}), and allocations after it are not in them.
 *
 * <p><b>Leak suspects</b> are judged on held (confirmed) bytes at whole-heap collections only, and need evidence. For
 * each heap site, three whole-heap collections of the window are compared, placed in time by their snapshots (held at
 * one is what was reachable then): the last one of the window ("end"), a first one (the last whose snapshot is at or
 * before a third of the way from the site's first allocation in the window to the end's, or, when none is there, the
 * first after that allocation) and a second one (the last at or before two thirds of the way, after the first, or,
 * when none is there, the one halfway between the first and the end); all with snapshots after the site's first
 * allocation, and distinct. The site is a suspect when
 * <ul>
 *   <li>it holds at least {@value #LEAK_MIN_SAMPLES} sampled objects at the end,</li>
 *   <li>its held bytes grew at both steps by more than twice the step's standard error (the Horvitz-Thompson variance
 *       of what the step added and of what it removed: the samples held at both ends of a step cancel out), and</li>
 *   <li>it grew from the first to the last by at least a quarter of what it holds at the end.</li>
 * </ul>
 * So a structure built once (it stops growing before the first reference point, or the window has no whole-heap
 * collection after it was built) and a bounded cache (its held bytes stay within their sampling error once full) are
 * not suspects. False positives: a site whose held memory really grows over both steps without being a leak (a cache
 * still filling up through two thirds of the window, a backlog that will drain later); under no growth, both steps
 * pass their test together with a probability of about 0.05% (two independent steps, each 2.3% in the normal
 * approximation). False negatives: a leak with fewer than {@value #LEAK_MIN_SAMPLES} samples held (a small leak, or a
 * short run: more sampling, {@code --interval}, or a longer run finds it), a leak inside a site that holds much more
 * that does not grow (growth below a quarter), a leak that stopped growing before the second reference collection,
 * and a window with fewer than three whole-heap collections after the site began allocating (a short run, or a
 * collector that rarely collects the old generation: the report then says how many it had).
 *
 * <p><b>Native leak suspects</b> follow the same rule on outstanding native bytes: outstanding at the end, grown by
 * at least a quarter of that over the second half of the site's allocation window (outstanding at its midpoint),
 * which covers at least 5% of the report's window. Buffers a pool takes once and reuses are outstanding, not leaks.
 *
 * <p><b>Temporaries</b> are heap sites that allocated at least 1 MiB and 1% of all allocated bytes while holding at
 * most 5% of it at the end, with at least half of their samples collected: memory that only churns.
 */
public final class ReportBuilder {
    /** Entries per ranking. */
    public static final int TOP = 10;
    /** About this many timeline buckets, whatever the run's length. */
    public static final int TIMELINE_BUCKETS = 200;
    /** Sites listed per timeline bucket. */
    public static final int BUCKET_SITES = 5;
    /** Sampled objects a leak suspect must hold at the end at least. */
    public static final int LEAK_MIN_SAMPLES = 4;
    /** Standard errors each step of a suspect's growth must exceed. */
    static final double LEAK_STEP_SIGMAS = 2.0;
    /** Standard errors by which the estimate must exceed the JVM's heap figure to be called inconsistent. */
    static final double HEAP_CHECK_SIGMAS = 3.0;

    private ReportBuilder() {
    }

    /** The report of a whole recording, reading the file twice. */
    public static Report build(Path recording) {
        return build(recording, TimeWindow.ALL);
    }

    /** The report of a recording over a window, reading the file twice (three times for a restricted window). */
    public static Report build(Path recording, TimeWindow window) {
        AllocationWindows windows = new AllocationWindows();
        RecordedRun run = RecordedRun.open(recording, windows);
        return new Builder(run, window, windows).build();
    }

    /** The report of an opened recording (its events are read twice more). */
    public static Report build(RecordedRun run) {
        return build(run, TimeWindow.ALL);
    }

    /** The report of an opened recording over a window. */
    public static Report build(RecordedRun run, TimeWindow window) {
        AllocationWindows windows = new AllocationWindows();
        run.replay(windows);
        return new Builder(run, window, windows).build();
    }

    /**
     * The probability that the sampler picked an object of {@code size} bytes: {@code 1 - exp(-size/mean)}; a sample
     * weighs {@code 1/p} objects and {@code size/p} bytes.
     */
    static double probability(long size, double mean) {
        double p = -Math.expm1(-Math.max(size, 1) / mean);
        return p <= 0 ? 1 : p;
    }

    /** @return what the report says about the recording it comes from: closed or not, damage */
    static Report.Source source(RecordedRun run) {
        var h = run.header();
        var end = run.totals();
        var damage = run.damage();
        // Damaged in the middle yet closed: the file still ends with its intact END block (the END is not read).
        boolean closed = end.isPresent() || damage.isPresent() && RecordingReader.isClosed(run.file());
        return new Report.Source(run.file().toString(), h.majorVersion() + "." + h.minorVersion(), closed,
                end.map(t -> t.clean()).orElse(false), run.eventCount(), end.map(t -> t.eventsDropped()).orElse(0L),
                damage.map(d -> d.what()).orElse(null), damage.map(d -> d.offset()).orElse(-1L),
                run.skippedBlocks());
    }

    /** First and last heap ALLOCATE per site id (optionally inside a time range): the sites' allocation windows. */
    static final class AllocationWindows implements EventSink {
        final Map<Integer, long[]> bySite = new HashMap<>();
        /** The windows of the usual small, dense site ids (the agent's), without boxing per event. */
        private long[] small = new long[0];
        long from = Long.MIN_VALUE;
        long to = Long.MAX_VALUE;

        @Override
        public void accept(long t, MemoryEventType type, long address, long size, long previousSize, long threadId,
                           int threadNameId, int variableNameId, int typeNameId, long stackId, int siteId) {
            if (type != MemoryEventType.ALLOCATE || t < from || t > to) {
                return;
            }
            if (siteId >= 0 && siteId < 1 << 16) {
                int i = siteId * 2;
                if (i >= small.length) {
                    int n = Math.max(i + 2, small.length * 2);
                    int old = small.length;
                    small = java.util.Arrays.copyOf(small, n);
                    for (int j = old; j < n; j += 2) {
                        small[j] = Long.MAX_VALUE;
                        small[j + 1] = Long.MIN_VALUE;
                    }
                }
                small[i] = Math.min(small[i], t);
                small[i + 1] = Math.max(small[i + 1], t);
                return;
            }
            long[] w = bySite.computeIfAbsent(siteId, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
            w[0] = Math.min(w[0], t);
            w[1] = Math.max(w[1], t);
        }

        /** @return {first, last} allocation of the site, or null if it allocated nothing (in the range) */
        long[] window(int siteId) {
            if (siteId >= 0 && siteId < 1 << 16) {
                int i = siteId * 2;
                return i < small.length && small[i] != Long.MAX_VALUE ? new long[] {small[i], small[i + 1]} : null;
            }
            return bySite.get(siteId);
        }
    }

    /** Per-site state of the replay. */
    private static final class SiteAcc {
        final int key;
        final Site site;
        final boolean isNative;
        String type;
        long stackId;
        long firstAlloc = Long.MAX_VALUE;
        long lastAlloc = Long.MIN_VALUE;
        // heap
        long samples;
        long deadSamples;
        double estBytes;
        double estCount;
        /** Ages at collection (allocation to the collection that freed it) of the samples collected in the window. */
        final LifetimeMedian lifetimes = new LifetimeMedian();
        /** Of those, the samples freed by the first collection after their allocation. */
        long freedByFirstCollection;
        final List<StackAcc> stacks = new ArrayList<>(2);
        /**
         * The site's stacks seen last, by a hash of their stack id (direct-mapped): most events find their stack
         * here, in a small array of their site, without probing the index of all stacks.
         */
        final StackAcc[] recentStacks = new StackAcc[8];
        // native
        long nAllocated;
        long nAllocations;
        long nOutstanding;
        long nBlocks;
        long nPeak;
        int nEpoch = -1;
        long nAtPeakBytes;
        long nAtPeakBlocks;
        /** The whole-heap collections the leak rule compares (-1: none), see the class comment. */
        int firstRef = -1;
        int secondRef = -1;
        /** Outstanding bytes at the midpoint of the site's allocation window (valid once {@link #nMidTaken}). */
        long nAtMid;
        boolean nMidTaken;

        SiteAcc(int key, Site site, String type) {
            this.key = key;
            this.site = site;
            this.isNative = site.isNative();
            this.type = type;
        }
    }

    /** Per-stack state of the replay. */
    private static final class StackAcc {
        final int key;
        final long stackId;
        final SiteAcc site;
        double allocBytes;
        double allocCount;
        int[] buckets = new int[4];
        double[] bucketBytes = new double[4];
        int bucketCount;
        /** The bucket being filled and its bytes, kept in fields: most allocations of a stack fall in it. */
        int openBucket = -1;
        double openBytes;
        // native
        long nOutstanding;
        long nBlocks;
        int nEpoch = -1;
        long nAtPeakBytes;
        long nAtPeakBlocks;

        StackAcc(int key, long stackId, SiteAcc site) {
            this.key = key;
            this.stackId = stackId;
            this.site = site;
        }

        void addToBucket(int b, double bytes) {
            if (b == openBucket) {
                openBytes += bytes;
                return;
            }
            closeBucket();
            openBucket = b;
            openBytes = bytes;
        }

        /** Moves the open bucket's bytes into the arrays. */
        void closeBucket() {
            if (openBucket < 0) {
                return;
            }
            int b = openBucket;
            double bytes = openBytes;
            openBucket = -1;
            openBytes = 0;
            for (int i = bucketCount - 1; i >= 0 && i >= bucketCount - 4; i--) {
                if (buckets[i] == b) {
                    bucketBytes[i] += bytes;
                    return;
                }
            }
            if (bucketCount == buckets.length) {
                buckets = java.util.Arrays.copyOf(buckets, bucketCount * 2);
                bucketBytes = java.util.Arrays.copyOf(bucketBytes, bucketCount * 2);
            }
            buckets[bucketCount] = b;
            bucketBytes[bucketCount++] = bytes;
        }
    }

    private static final class NativeBlock {
        final long size;
        final SiteAcc site;
        final StackAcc stack;

        NativeBlock(long size, SiteAcc site, StackAcc stack) {
            this.size = size;
            this.site = site;
            this.stack = stack;
        }
    }

    /** One report: the replay's state and the final figures. */
    private static final class Builder implements EventSink {
        final RecordedRun run;
        final AllocationWindows windows;
        final double mean;
        final long runStart;
        final long from;
        final long to;
        final boolean restricted;
        final GcTimeline gcs;
        final int windowFirstGc;
        final int endGc;
        final int peakGc;
        /** The last whole-heap collection of the window, -1 when none. */
        final int endWholeGc;
        final HeldLedger heldSites;
        final HeldLedger heldStacks;
        final SampleTable samples = new SampleTable();
        final StackIndex stackIndex = new StackIndex();
        /** The site key of each stack key, in an array: a DEALLOCATE finds its site without touching objects. */
        int[] siteOfStack = new int[1024];
        final Map<Integer, SiteAcc> sitesById = new HashMap<>();
        /** Sites by id for the usual small, dense ids (the agent's): no boxing per event. */
        final SiteAcc[] smallIds = new SiteAcc[1 << 16];
        final List<SiteAcc> sites = new ArrayList<>();
        final List<StackAcc> stacks = new ArrayList<>();
        final Map<Long, NativeBlock> blocks = new HashMap<>();

        // replay position: the next boundary of the timeline (positions and snapshots), boundaries crossed
        int nextBoundary;
        int epoch;
        /** The last point crossed, not measured yet (-1: none). */
        int toMeasure = -1;
        int measured = -1;
        boolean done;
        boolean inWindow;
        // the estimates against the JVM's heap figures
        int heapChecked;
        int heapExceeded;
        int heldExceeded;
        double heapWorstSigmas;
        int heapWorstGc = -1;
        long heapWorstEstimate;
        long heapWorstSd;

        // timeline
        final long bucketNanos;
        final int bucketCount;
        final double[] bucketAlloc;
        final long[] bucketHeld;
        final long[] bucketUnconfirmed;
        final long[] bucketHeapUsed;
        final long[] bucketHeapCommitted;
        final boolean[] bucketMeasured;
        final long[] bucketNative;
        final boolean[] bucketNativeSet;
        final double[] bucketPause;
        final int[] bucketGcs;
        final List<List<Timeline.HeldSite>> bucketTop;
        long carryHeld;
        long carryUnconfirmed;
        long carryHeapUsed;
        long carryHeapCommitted;
        /**
         * The heap figures of the last collection that had some: a collection the agent has no heap figures for
         * (all 0: a pause without a GC notification, recording.md 5.1) carries them on.
         */
        long knownHeapUsed;
        long knownHeapCommitted;
        List<Timeline.HeldSite> carryTop = List.of();
        long nativeAtFrom;

        // totals of the window
        double peakHeldBytes;
        double peakHeldCount;
        double peakUnconfirmedBytes;
        double endUnconfirmedBytes;
        long nAllocated;
        long nAllocations;
        long nFreed;
        long nOutstanding;
        long nPeak = -1;
        long nPeakTime;
        int nPeakEpoch;
        long orphanFrees;
        long late;
        ApiReport apiReport = ApiReport.EMPTY;

        Builder(RecordedRun run, TimeWindow window, AllocationWindows windows) {
            this.run = run;
            this.mean = Math.max(1, run.metadataLong(MetadataKeys.INTERVAL_BYTES, 512 * 1024));
            long firstSeen = Math.min(run.firstEventNanos(), firstGcStart(run));
            long start = run.metadataLong(MetadataKeys.START_NANOS, firstSeen == Long.MAX_VALUE ? 0 : firstSeen);
            long lastSeen = Math.max(run.lastEventNanos(), lastGcEnd(run));
            long end = run.metadataLong(MetadataKeys.END_NANOS, lastSeen == Long.MIN_VALUE ? start : lastSeen);
            end = Math.max(end, start);
            this.runStart = start;
            this.restricted = window.restricted();
            long f = window.fromSeconds() == null ? start : start + Math.round(window.fromSeconds() * 1e9);
            long t = window.toSeconds() == null ? end : Math.min(end, start + Math.round(window.toSeconds() * 1e9));
            if (f > end) {
                throw io.memscope.error.MemscopeException.configuration(String.format(java.util.Locale.ROOT,
                        "--from %.3f s is after the end of the run (%.3f s)", window.fromSeconds(),
                        (end - start) / 1e9));
            }
            this.from = f;
            this.to = Math.max(t, f);
            if (restricted) {
                AllocationWindows inside = new AllocationWindows();
                inside.from = from;
                inside.to = to;
                run.replay(inside);
                windows = inside;
            }
            this.windows = windows;
            this.gcs = GcTimeline.of(run, to);
            this.windowFirstGc = gcs.firstAtOrAfter(from);
            this.endGc = gcs.lastAtOrBefore(to);
            this.peakGc = gcs.peak(windowFirstGc, endGc);
            this.endWholeGc = gcs.lastWholeHeap(windowFirstGc, endGc);
            this.heldSites = new HeldLedger(windowFirstGc, endGc, peakGc);
            this.heldStacks = new HeldLedger(windowFirstGc, endGc, peakGc);

            long duration = Math.max(1, to - from);
            long width = Math.max(1_000_000L, ceilDiv(ceilDiv(duration, TIMELINE_BUCKETS), 1_000_000L) * 1_000_000L);
            this.bucketNanos = width;
            this.bucketCount = (int) Math.max(1, ceilDiv(duration, width));
            bucketAlloc = new double[bucketCount];
            bucketHeld = new long[bucketCount];
            bucketUnconfirmed = new long[bucketCount];
            bucketHeapUsed = new long[bucketCount];
            bucketHeapCommitted = new long[bucketCount];
            bucketMeasured = new boolean[bucketCount];
            bucketNative = new long[bucketCount];
            bucketNativeSet = new boolean[bucketCount];
            bucketPause = new double[bucketCount];
            bucketGcs = new int[bucketCount];
            bucketTop = new ArrayList<>(Collections.nCopies(bucketCount, null));
        }

        private static long firstGcStart(RecordedRun run) {
            long m = Long.MAX_VALUE;
            for (GcRecord g : run.gcRecords()) {
                m = Math.min(m, g.startNanos());
            }
            return m;
        }

        private static long lastGcEnd(RecordedRun run) {
            long m = Long.MIN_VALUE;
            for (GcRecord g : run.gcRecords()) {
                m = Math.max(m, g.startNanos() + g.durationNanos());
            }
            return m;
        }

        private static long ceilDiv(long a, long b) {
            return -Math.floorDiv(-a, b);
        }

        int bucketOf(long t) {
            long b = (t - from) / bucketNanos;
            return (int) Math.max(0, Math.min(bucketCount - 1, b));
        }

        double probability(long size) {
            return ReportBuilder.probability(size, mean);
        }

        SiteAcc site(int siteId) {
            boolean small = siteId >= 0 && siteId < smallIds.length;
            SiteAcc a = small ? smallIds[siteId] : sitesById.get(siteId);
            if (a == null) {
                Site s = run.site(siteId);
                if (s == null) {
                    s = new Site(siteId, "unknown", "site" + siteId, null, 0, null);
                }
                a = new SiteAcc(sites.size(), s, s.typeName());
                long[] w = windows.window(siteId);
                if (w != null) {
                    a.firstAlloc = w[0];
                    a.lastAlloc = w[1];
                    if (!a.isNative) {
                        references(a);
                    }
                }
                heldSites.ensure(a.key);
                sitesById.put(siteId, a);
                if (small) {
                    smallIds[siteId] = a;
                }
                sites.add(a);
                if (inWindow) {
                    a.nPeak = 0;
                }
            }
            return a;
        }

        /**
         * Chooses the leak rule's reference collections of a heap site (class comment): the last whole-heap
         * collections at or before a third and two thirds of the way from its first allocation to the window's last
         * whole-heap collection, after the first allocation, distinct and before that last one.
         */
        private void references(SiteAcc a) {
            if (endWholeGc < 0) {
                return;
            }
            long end = gcs.snapshot(endWholeGc);
            long span = end - a.firstAlloc;
            if (span <= 0) {
                return;
            }
            // the whole-heap collections that judged some of the site (snapshot after its first allocation), before
            // the last one; compared by their snapshots: held at one is what was reachable then
            List<Integer> after = new ArrayList<>();
            for (int k = Math.max(0, windowFirstGc); k < endWholeGc; k++) {
                if (gcs.wholeHeap(k) && gcs.snapshot(k) > a.firstAlloc && gcs.snapshot(k) < end) {
                    after.add(k);
                }
            }
            if (after.size() < 2) {
                return;
            }
            int first = -1;
            int second = -1;
            for (int k : after) {
                if (gcs.snapshot(k) <= a.firstAlloc + span / 3) {
                    first = k;
                }
            }
            if (first < 0) {
                first = after.get(0); // none in the first third: the first one there is
            }
            for (int k : after) {
                if (k > first && gcs.snapshot(k) > gcs.snapshot(first)
                        && gcs.snapshot(k) <= a.firstAlloc + 2 * (span / 3)) {
                    second = k;
                }
            }
            if (second < 0) { // none in the second third after the first: the one halfway to the end
                int i = after.indexOf(first);
                second = after.get(Math.min(after.size() - 1, i + Math.max(1, (after.size() - i) / 2)));
            }
            if (second <= first || gcs.snapshot(second) <= gcs.snapshot(first)) {
                return;
            }
            a.firstRef = first;
            a.secondRef = second;
            heldSites.mark(a.key, 0, first);
            heldSites.mark(a.key, 1, second);
        }

        StackAcc stack(long stackId, SiteAcc site) {
            long h = stackId * 0x9E3779B97F4A7C15L;
            int i = (int) (h >>> 61);
            StackAcc recent = site.recentStacks[i];
            if (recent != null && recent.stackId == stackId) {
                return recent;
            }
            StackAcc found = lookup(stackId, site);
            site.recentStacks[i] = found;
            return found;
        }

        private StackAcc lookup(long stackId, SiteAcc site) {
            int key = stackIndex.indexOf(stackId, site.site.id(), stacks.size());
            if (key == stacks.size()) {
                StackAcc s = new StackAcc(key, stackId, site);
                stacks.add(s);
                if (key == siteOfStack.length) {
                    siteOfStack = java.util.Arrays.copyOf(siteOfStack, key * 2);
                }
                siteOfStack[key] = site.key;
                site.stacks.add(s);
                heldStacks.ensure(key);
                return s;
            }
            return stacks.get(key);
        }

        Report build() {
            ApiAnalysis api = apiAnalysis(run);
            // put in time order, and the API sections' pass, on the decoding thread: one read of the file, two cores
            late = run.replayInTimeOrder(this, api != null && api.needsPass() ? api : null);
            finish();
            samples.clear();
            apiReport = api == null ? ApiReport.EMPTY : api.report();
            return report();
        }

        // ------------------------------------------------------------------------------------------ replay

        @Override
        public void accept(long t, MemoryEventType type, long address, long size, long previousSize, long threadId,
                           int threadNameId, int variableNameId, int typeNameId, long stackId, int siteId) {
            if (done) {
                return;
            }
            if (gcs.synthetic() && t > to) {
                done = true; // no collection: held at the end means not yet collected at the window's end
                return;
            }
            if (nextBoundary < gcs.boundaries() && gcs.boundaryTime(nextBoundary) < t) {
                crossBefore(t);
                if (done) {
                    return;
                }
            }
            if (!inWindow && t >= from) {
                enterWindow();
            }
            SiteAcc site = site(siteId);
            if (site.isNative) {
                if (t <= to) {
                    nativeEvent(t, type, address, size, site, stackId);
                }
                return;
            }
            if (type == MemoryEventType.ALLOCATE) {
                if (t > to) {
                    return;
                }
                double p = probability(size);
                double wb = size / p;
                double wc = 1 / p;
                double var = (double) size * size * (1 - p) / (p * p);
                StackAcc stack = stack(stackId, site);
                samples.put(address, stack.key, epoch);
                heldSites.allocated(site.key, wb, wc, var);
                heldStacks.allocated(stack.key, wb, wc, var);
                if (site.stackId == 0) {
                    site.stackId = stackId;
                }
                if (typeNameId != 0 && (site.type == null || site.type.equals("?"))) {
                    site.type = run.string(typeNameId);
                }
                if (t >= from) {
                    site.samples++;
                    site.estBytes += wb;
                    site.estCount += wc;
                    stack.allocBytes += wb;
                    stack.allocCount += wc;
                    int b = bucketOf(t);
                    bucketAlloc[b] += wb;
                    stack.addToBucket(b, wb);
                }
            } else if (type == MemoryEventType.DEALLOCATE) {
                int slot = samples.find(address);
                if (slot < 0) {
                    orphanFrees++;
                    return;
                }
                int born = samples.epoch(slot);
                // a heap DEALLOCATE carries the sample's size: its weight again, exactly as added
                double p = probability(size);
                double wb = size / p;
                double wc = 1 / p;
                double var = (double) size * size * (1 - p) / (p * p);
                int stackKey = samples.stack(slot);
                int siteKey = siteOfStack[stackKey];
                heldSites.collected(siteKey, wb, wc, var, born);
                heldStacks.collected(stackKey, wb, wc, var, born);
                long allocated = t - previousSize;
                if (allocated >= from && allocated <= to) {
                    SiteAcc a = sites.get(siteKey);
                    a.deadSamples++;
                    if (t <= to) {
                        a.lifetimes.add(previousSize);
                        if (gcs.pointsBetween(born, epoch) <= 1) {
                            a.freedByFirstCollection++; // it survived no collection
                        }
                    }
                }
                samples.remove(slot);
            }
        }

        /**
         * Crosses the boundaries (positions and snapshots) before {@code t}: a point crossed is measured when the next
         * boundary is crossed (its frees observed before it), or at the end.
         */
        private void crossBefore(long t) {
            while (nextBoundary < gcs.boundaries() && gcs.boundaryTime(nextBoundary) < t) {
                cross(nextBoundary++);
                if (done) {
                    return;
                }
            }
        }

        private void cross(int b) {
            if (toMeasure >= 0) {
                int k = toMeasure;
                toMeasure = -1;
                if (k <= endGc) {
                    measure(k);
                }
                if (k >= endGc) {
                    done = true; // collection endGc is measured: nothing later changes a figure of the window
                    return;
                }
            }
            int k = gcs.pointAt(b);
            if (k < 0) {
                // One snapshot pends at a time. A snapshot whose collection's verdict comes after the pending one's is
                // not taken (its verdict will confirm the pending snapshot, which it covers): so overlapping whole-heap
                // collections (generational ZGC's major cycles, whose snapshots lag their starts) still confirm, one
                // in a few. One whose verdict comes first replaces the pending one.
                int pending = heldSites.pendingMark();
                int of = gcs.snapshotOf(b);
                if (pending < 0 || of < 0 || gcs.pointBoundary(of) < gcs.pointBoundary(gcs.snapshotOf(pending))) {
                    heldSites.crossMark(b);
                    heldStacks.crossMark(b);
                }
            } else {
                boolean verdict = heldSites.pendingAtOrBefore(gcs.markOf(k));
                heldSites.crossPoint(b, verdict);
                heldStacks.crossPoint(b, verdict);
                toMeasure = k;
            }
            epoch = b + 1;
        }

        /** Takes the figures of collection {@code k} (the replay is at the boundary after it, or the end). */
        private void measure(int k) {
            int mark = gcs.markOf(k);
            if (mark >= 0 && heldSites.pendingAtOrBefore(mark)) {
                heldSites.confirm(); // a whole-heap collection: what it judged and did not free was reachable
                heldStacks.confirm();
            }
            heldSites.measure(k);
            heldStacks.measure(k);
            measured = k;
            GcRecord g = gcs.record(k);
            if (g.heapCommitted() != 0 || g.heapUsedAfter() != 0) {
                knownHeapUsed = g.heapUsedAfter();
                knownHeapCommitted = g.heapCommitted();
                if (k >= windowFirstGc) {
                    checkHeap(k, g);
                }
            }
            long held = Math.round(heldSites.heldBytes());
            long unconfirmed = Math.round(Math.max(0, heldSites.unconfirmedBytes()));
            boolean lastOfBucket = k == endGc || k + 1 >= gcs.size() || gcs.position(k + 1) > to
                    || bucketOf(gcs.position(k + 1)) != bucketOf(gcs.position(k));
            if (k >= windowFirstGc) {
                int b = bucketOf(gcs.position(k));
                bucketHeld[b] = held;
                bucketUnconfirmed[b] = unconfirmed;
                bucketHeapUsed[b] = knownHeapUsed;
                bucketHeapCommitted[b] = knownHeapCommitted;
                bucketMeasured[b] = true;
                if (lastOfBucket) {
                    bucketTop.set(b, topHeld());
                }
            } else {
                carryHeld = held;
                carryUnconfirmed = unconfirmed;
                carryHeapUsed = knownHeapUsed;
                carryHeapCommitted = knownHeapCommitted;
                if (k + 1 == windowFirstGc || k == endGc) {
                    carryTop = topHeld();
                }
            }
            if (k == peakGc) {
                peakHeldBytes = heldSites.heldBytes();
                peakHeldCount = heldSites.heldCount();
                peakUnconfirmedBytes = heldSites.unconfirmedBytes();
            }
            if (k == endGc) {
                endUnconfirmedBytes = heldSites.unconfirmedBytes();
            }
        }

        /**
         * Every sampled object present after collection {@code k} is in the heap then: their estimated bytes beyond the
         * JVM's heap used after it by more than {@value #HEAP_CHECK_SIGMAS} standard errors is an inconsistency.
         */
        private void checkHeap(int k, GcRecord g) {
            if (gcs.synthetic()) {
                return;
            }
            heapChecked++;
            double present = heldSites.presentBytes();
            double sd = Math.sqrt(heldSites.presentVariance());
            double held = heldSites.heldBytes();
            double heldSd = Math.sqrt(heldSites.heldVariance());
            if (held - g.heapUsedAfter() > HEAP_CHECK_SIGMAS * heldSd && held > g.heapUsedAfter()) {
                heldExceeded++; // held alone above the heap: the contradiction the summary names first
            }
            double excess = present - g.heapUsedAfter();
            if (excess > HEAP_CHECK_SIGMAS * sd && excess > 0) {
                heapExceeded++;
                double sigmas = sd > 0 ? excess / sd : Double.MAX_VALUE;
                if (heapWorstGc < 0 || sigmas > heapWorstSigmas) {
                    heapWorstSigmas = sigmas;
                    heapWorstGc = k;
                    heapWorstEstimate = Math.round(present);
                    heapWorstSd = Math.round(sd);
                }
            }
        }

        /** @return the sites holding the most at the collection just measured */
        private List<Timeline.HeldSite> topHeld() {
            int n = BUCKET_SITES;
            int[] best = new int[n];
            double[] val = new double[n];
            int have = 0;
            for (SiteAcc a : sites) {
                double v = heldSites.heldBytes(a.key);
                if (a.isNative || v < 0.5) {
                    continue;
                }
                if (have < n || v > val[have - 1]) {
                    int i = Math.min(have, n - 1);
                    while (i > 0 && val[i - 1] < v) {
                        best[i] = best[i - 1];
                        val[i] = val[i - 1];
                        i--;
                    }
                    best[i] = a.key;
                    val[i] = v;
                    have = Math.min(n, have + 1);
                }
            }
            List<Timeline.HeldSite> l = new ArrayList<>(have);
            for (int i = 0; i < have; i++) {
                SiteAcc a = sites.get(best[i]);
                l.add(new Timeline.HeldSite(a.site.frame(), typeOf(a), Math.round(val[i])));
            }
            return l;
        }

        private void enterWindow() {
            inWindow = true;
            nativeAtFrom = nOutstanding;
            for (SiteAcc a : sites) {
                a.nPeak = a.nOutstanding;
            }
            if (nOutstanding > 0) {
                newNativePeak(from);
            }
        }

        private void newNativePeak(long t) {
            nPeak = nOutstanding;
            nPeakTime = t;
            nPeakEpoch++;
        }

        /**
         * Before changing a native site's outstanding figure at {@code t}: the first change after the midpoint of the
         * site's allocation window keeps the figure it had there (the native leak rule's "growing").
         */
        private void midpoint(SiteAcc a, long t) {
            if (!a.nMidTaken && a.firstAlloc != Long.MAX_VALUE && t > a.firstAlloc + (a.lastAlloc - a.firstAlloc) / 2) {
                a.nAtMid = a.nOutstanding;
                a.nMidTaken = true;
            }
        }

        /** Before changing a site's or stack's outstanding figure: keep its value at the current native peak. */
        private void snapshot(SiteAcc a, StackAcc s) {
            if (a.nEpoch != nPeakEpoch) {
                a.nAtPeakBytes = a.nOutstanding;
                a.nAtPeakBlocks = a.nBlocks;
                a.nEpoch = nPeakEpoch;
            }
            if (s != null && s.nEpoch != nPeakEpoch) {
                s.nAtPeakBytes = s.nOutstanding;
                s.nAtPeakBlocks = s.nBlocks;
                s.nEpoch = nPeakEpoch;
            }
        }

        private void release(NativeBlock old, long t, boolean freed) {
            snapshot(old.site, old.stack);
            midpoint(old.site, t);
            nOutstanding -= old.size;
            old.site.nOutstanding -= old.size;
            old.site.nBlocks--;
            old.stack.nOutstanding -= old.size;
            old.stack.nBlocks--;
            if (freed && t >= from) {
                nFreed += old.size;
            }
        }

        private void nativeEvent(long t, MemoryEventType type, long address, long size, SiteAcc site, long stackId) {
            switch (type) {
                case ALLOCATE:
                case REALLOCATE: {
                    StackAcc stack = stack(stackId, site);
                    NativeBlock old = blocks.put(address, new NativeBlock(size, site, stack));
                    if (old != null) {
                        release(old, t, false);
                    }
                    snapshot(site, stack);
                    midpoint(site, t);
                    nOutstanding += size;
                    site.nOutstanding += size;
                    site.nBlocks++;
                    stack.nOutstanding += size;
                    stack.nBlocks++;
                    if (site.stackId == 0) {
                        site.stackId = stackId;
                    }
                    if (t >= from) {
                        nAllocated += size;
                        nAllocations++;
                        site.nAllocated += size;
                        site.nAllocations++;
                        stack.allocBytes += size;
                        stack.allocCount++;
                        stack.addToBucket(bucketOf(t), size);
                        site.nPeak = Math.max(site.nPeak, site.nOutstanding);
                        if (nOutstanding > nPeak) {
                            newNativePeak(t);
                        }
                    }
                    break;
                }
                case DEALLOCATE: {
                    NativeBlock old = blocks.remove(address);
                    if (old != null) {
                        release(old, t, true);
                    }
                    break;
                }
                default:
                    return;
            }
            if (t >= from) {
                int b = bucketOf(t);
                bucketNative[b] = nOutstanding;
                bucketNativeSet[b] = true;
            }
        }

        private void finish() {
            if (!inWindow) {
                enterWindow();
            }
            if (!done) {
                // the boundaries up to the end of the window not crossed by an event, then the last point measured
                while (!done && nextBoundary < gcs.boundaries() && gcs.boundaryTime(nextBoundary) <= to
                        && (gcs.pointAt(nextBoundary) < 0 || gcs.pointAt(nextBoundary) <= endGc)) {
                    cross(nextBoundary++);
                }
                if (!done && toMeasure >= 0 && toMeasure <= endGc) {
                    int k = toMeasure;
                    toMeasure = -1;
                    measure(k);
                }
                if (!done && endGc >= 0 && measured < endGc) {
                    measure(endGc);
                }
            }
            // native figures at the peak: sites and stacks unchanged since it hold their current values
            for (SiteAcc a : sites) {
                snapshot(a, null);
            }
            for (StackAcc s : stacks) {
                if (s.nEpoch != nPeakEpoch) {
                    s.nAtPeakBytes = s.nOutstanding;
                    s.nAtPeakBlocks = s.nBlocks;
                    s.nEpoch = nPeakEpoch;
                }
            }
        }

        // ------------------------------------------------------------------------------------------ figures

        private String typeOf(SiteAcc a) {
            return a.type == null ? "?" : a.type;
        }

        private Report report() {
            for (StackAcc s : stacks) {
                s.closeBucket();
            }
            Map<Integer, SiteCount> counts = run.siteCounts();
            // a recording that was not closed has the counts of its last snapshot: exact as of its time, if known
            long countsAt = run.metadataLong(MetadataKeys.SITE_COUNTS_NANOS, Long.MIN_VALUE);
            boolean closed = run.totals().isPresent();
            boolean exact = "exact".equals(run.metadata().get(MetadataKeys.MODE)) && !counts.isEmpty() && !restricted
                    && (closed || countsAt != Long.MIN_VALUE);
            double countsAsOfMs = exact && !closed ? (countsAt - runStart) / 1e6 : Double.NaN;
            if (exact) {
                for (SiteCount c : counts.values()) {
                    SiteAcc a = site(c.siteId());
                    if (!a.isNative && a.stacks.isEmpty() && c.bytes() > 0) {
                        stack(0, a); // a site counted but never sampled: one stack, its own frame
                    }
                }
            }
            long runNanos = Math.max(1, to - from);

            // Per site: allocated, held at the end / at the peak, growth; each site's stacks add up to it.
            List<SiteProfile> all = new ArrayList<>();
            Map<StackAcc, long[]> stackFigures = new HashMap<>();
            long allocatedBytes = 0;
            long allocatedObjects = 0;
            long liveAtEnd = 0;
            long peakEstimate = 0;
            long peakObjects = 0;
            long unconfirmedAtEnd = 0;
            long unconfirmedAtPeak = 0;
            long sampleCount = 0;
            double[] bucketExact = exact ? new double[bucketCount] : null;
            Map<SiteAcc, SiteProfile> profiles = new LinkedHashMap<>();
            for (SiteAcc a : sites) {
                if (a.isNative) {
                    continue;
                }
                long allocB = Math.round(a.estBytes);
                long allocC = Math.round(a.estCount);
                SiteCount c = counts.get(a.site.id());
                if (exact) {
                    allocB = c == null ? 0 : c.bytes();
                    allocC = c == null ? 0 : c.allocations();
                }
                long liveB = Math.max(0, Math.round(heldSites.endBytes(a.key)));
                long liveC = Math.max(0, Math.round(heldSites.endCount(a.key)));
                long unconfB = Math.max(0, Math.round(heldSites.endUnconfirmedBytes(a.key)));
                long atPeakB = peakGc < 0 ? 0 : Math.max(0, Math.round(heldSites.atPeakBytes(a.key)));
                long atPeakC = peakGc < 0 ? 0 : Math.max(0, Math.round(heldSites.atPeakCount(a.key)));
                long atPeakU = peakGc < 0 ? 0 : Math.max(0, Math.round(heldSites.atPeakUnconfirmedBytes(a.key)));
                long ownPeak = Math.max(0, Math.round(heldSites.peakBytes(a.key)));
                long ownPeakU = ownPeak == 0 ? 0 : Math.max(0, Math.round(heldSites.peakUnconfirmedBytes(a.key)));
                if (allocB == 0 && liveB == 0 && atPeakB == 0 && ownPeak == 0 && a.samples == 0 && unconfB == 0) {
                    continue;
                }
                SiteProfile.Growth growthAt = growth(a);
                long growth = growthAt == null ? 0 : Math.max(0, growthAt.endBytes() - growthAt.firstBytes());
                long medianNanos = a.lifetimes.medianNanos();
                double median = medianNanos < 0 ? -1 : medianNanos / 1e6;
                double firstGcShare = a.lifetimes.count() == 0 ? -1
                        : (double) a.freedByFirstCollection / a.lifetimes.count();
                boolean leak = growthAt != null && growthAt.significant()
                        && growthAt.endSamples() >= LEAK_MIN_SAMPLES && growth * 4 >= growthAt.endBytes();
                allocatedBytes += allocB;
                allocatedObjects += allocC;
                liveAtEnd += liveB;
                peakEstimate += atPeakB;
                peakObjects += atPeakC;
                sampleCount += a.samples;
                // stacks: spread the site's rounded figures in proportion to their samples
                int n = a.stacks.size();
                double[] sb = new double[n];
                double[] sc = new double[n];
                double[] hb = new double[n];
                double[] hc = new double[n];
                double[] pb = new double[n];
                double[] pc = new double[n];
                double[] hu = new double[n];
                double[] pu = new double[n];
                boolean noSamples = a.estBytes <= 0;
                for (int i = 0; i < n; i++) {
                    StackAcc s = a.stacks.get(i);
                    sb[i] = noSamples ? (i == 0 ? 1 : 0) : s.allocBytes;
                    sc[i] = noSamples ? (i == 0 ? 1 : 0) : s.allocCount;
                    hb[i] = heldStacks.endBytes(s.key);
                    hc[i] = heldStacks.endCount(s.key);
                    pb[i] = heldStacks.atPeakBytes(s.key);
                    pc[i] = heldStacks.atPeakCount(s.key);
                    hu[i] = Math.max(0, heldStacks.endUnconfirmedBytes(s.key));
                    pu[i] = Math.max(0, heldStacks.atPeakUnconfirmedBytes(s.key));
                }
                long[] rsb = Apportion.round(sb, allocB);
                long[] rsc = Apportion.round(sc, allocC);
                long[] rhb = Apportion.round(hb, liveB);
                long[] rhc = Apportion.round(hc, liveC);
                long[] rpb = Apportion.round(pb, atPeakB);
                long[] rpc = Apportion.round(pc, atPeakC);
                long[] rhu = Apportion.round(hu, unconfB);
                long[] rpu = Apportion.round(pu, atPeakU);
                double scale = a.estBytes > 0 ? allocB / a.estBytes : 0;
                for (int i = 0; i < n; i++) {
                    StackAcc s = a.stacks.get(i);
                    stackFigures.put(s, new long[] {rsb[i], rsc[i], rhb[i], rhc[i], rpb[i], rpc[i], leak ? 1 : 0,
                        rhu[i], rpu[i]});
                    if (exact) {
                        if (noSamples) {
                            continue;
                        }
                        for (int j = 0; j < s.bucketCount; j++) {
                            bucketExact[s.buckets[j]] += s.bucketBytes[j] * scale;
                        }
                    }
                }
                if (exact && noSamples && allocB > 0) {
                    // counted, never sampled: spread like everything else
                    double total = 0;
                    for (double v : bucketAlloc) {
                        total += v;
                    }
                    for (int b = 0; b < bucketCount; b++) {
                        bucketExact[b] += total > 0 ? allocB * bucketAlloc[b] / total : (double) allocB / bucketCount;
                    }
                }
                boolean temporary = allocB >= (1 << 20) && liveB * 20 <= allocB && a.samples > 0
                        && a.deadSamples * 2 >= a.samples;
                long liveN = heldSites.endSamples(a.key);
                long atPeakN = peakGc < 0 ? 0 : heldSites.atPeakSamples(a.key);
                SiteProfile p = new SiteProfile(a.site.frame(), typeOf(a), false, allocB, allocC, a.samples, liveB,
                        liveC, liveN, ownPeak, atPeakB, atPeakC, atPeakN, growth, median, firstGcShare, leak,
                        temporary, run.stack(a.stackId), unconfB, ownPeakU, atPeakU, growthAt);
                unconfirmedAtEnd += unconfB;
                unconfirmedAtPeak += atPeakU;
                profiles.put(a, p);
            }
            // the 1%-of-all condition of temporaries needs the total
            List<SiteProfile> heap = new ArrayList<>();
            for (Map.Entry<SiteAcc, SiteProfile> e : profiles.entrySet()) {
                SiteProfile p = e.getValue();
                if (p.temporary() && p.allocatedBytes() * 100 < allocatedBytes) {
                    p = new SiteProfile(p.site(), p.type(), false, p.allocatedBytes(), p.allocatedObjects(),
                            p.samples(), p.liveBytes(), p.liveObjects(), p.liveSamples(), p.peakBytes(),
                            p.heldAtPeakBytes(), p.heldAtPeakObjects(), p.heldAtPeakSamples(), p.growthBytes(),
                            p.medianAgeAtCollectionMs(), p.freedByFirstCollectionShare(), p.leakSuspect(), false,
                            p.stack(), p.unconfirmedBytes(), p.peakUnconfirmedBytes(),
                            p.heldAtPeakUnconfirmedBytes(), p.growth());
                }
                heap.add(p);
            }
            all.addAll(heap);

            // Native sites.
            List<SiteProfile> nativeSites = new ArrayList<>();
            for (SiteAcc a : sites) {
                if (!a.isNative || (a.nAllocated == 0 && a.nOutstanding == 0 && a.nPeak <= 0)) {
                    continue;
                }
                // a native leak is judged like a heap leak: outstanding at the end, and grown over the second half of
                // the site's allocation window, which covers at least 5% of the report's or half a second (a pool
                // filled once, or buffers taken at start-up and reused, are outstanding but not leaks; the floor keeps
                // a leak of a few requests a second found in a long run, or in one a loaded machine made long)
                long nGrowth = Math.max(0, a.nOutstanding - (a.nMidTaken ? a.nAtMid : a.nOutstanding));
                boolean nLeak = a.nOutstanding > 0 && nGrowth > 0 && nGrowth * 4 >= a.nOutstanding
                        && a.firstAlloc != Long.MAX_VALUE && a.lastAlloc - a.firstAlloc >= Math.min(runNanos / 20, 500_000_000L);
                nativeSites.add(new SiteProfile(a.site.frame(), typeOf(a), true, a.nAllocated, a.nAllocations, 0,
                        a.nOutstanding, a.nBlocks, 0, Math.max(0, a.nPeak), a.nAtPeakBytes, a.nAtPeakBlocks, 0,
                        nGrowth, -1, -1, nLeak, false, run.stack(a.stackId), 0, 0, 0, null));
                for (StackAcc s : a.stacks) {
                    stackFigures.put(s, new long[] {Math.round(s.allocBytes), Math.round(s.allocCount),
                        s.nOutstanding, s.nBlocks, s.nAtPeakBytes, s.nAtPeakBlocks, s.nOutstanding > 0 ? 1 : 0, 0, 0});
                }
            }
            all.addAll(nativeSites);
            all.sort(Comparator.comparingLong((SiteProfile p) -> -p.allocatedBytes()).thenComparing(SiteProfile::site));

            List<SiteProfile> top = rank(heap, p -> p.allocatedBytes() > 0, SiteProfile::allocatedBytes);
            List<SiteProfile> topLive = rank(heap, p -> p.liveBytes() > 0, SiteProfile::liveBytes);
            List<SiteProfile> leaks = rank(heap, SiteProfile::leakSuspect, SiteProfile::growthBytes);
            List<SiteProfile> temps = rank(heap, SiteProfile::temporary, SiteProfile::allocatedBytes);
            List<SiteProfile> nLeaks = rank(nativeSites, p -> p.liveBytes() > 0, SiteProfile::liveBytes);
            List<SiteProfile> nSuspects = rank(nativeSites, SiteProfile::leakSuspect, SiteProfile::growthBytes);

            // Stacks.
            List<StackProfile> stackProfiles = new ArrayList<>();
            for (StackAcc s : stacks) {
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
                stackProfiles.add(new StackProfile(frames, s.site.site.frame(), typeOf(s.site), s.site.isNative,
                        f[0], f[1], f[2], f[3], f[4], f[5], f[6] != 0, new SparseSeries(idx, values), f[7], f[8]));
            }
            stackProfiles.sort(Comparator.comparingLong((StackProfile p) -> -p.allocatedBytes())
                    .thenComparingLong(p -> -p.heldBytes()));

            // Peak.
            Peak peak = null;
            if (peakGc >= 0) {
                GcRecord g = gcs.record(peakGc);
                List<Peak.Holder> holders = new ArrayList<>();
                for (SiteProfile p : rank(heap, x -> x.heldAtPeakBytes() > 0, SiteProfile::heldAtPeakBytes)) {
                    holders.add(new Peak.Holder(p.site(), p.type(), p.heldAtPeakBytes(), p.heldAtPeakObjects(),
                            p.heldAtPeakSamples(), p.stack(), p.heldAtPeakUnconfirmedBytes()));
                }
                peak = new Peak(g.startNanos(), (g.startNanos() - runStart) / 1e6, g.name(), g.cause(),
                        g.heapUsedAfter(), peakEstimate, peakObjects, holders, unconfirmedAtPeak);
            }
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
                        "true".equalsIgnoreCase(run.metadata().get(io.memscope.launch.MetadataKeys.OPTION_INCLUDE_JDK)));
            }
            double heldAsOf = endWholeGc < 0 ? Double.NaN
                    : (gcs.record(endWholeGc).snapshotNanos() - runStart) / 1e6;
            Report.Totals totals = new Report.Totals(allocatedBytes, allocatedObjects,
                    peak != null ? peakEstimate : liveAtEnd, liveAtEnd, sampleCount, runNanos / 1_000_000, exact,
                    countsAsOfMs, coverage, unconfirmedAtEnd, peak != null ? unconfirmedAtPeak : unconfirmedAtEnd,
                    gcs.wholeHeapCount(windowFirstGc, endGc), heldAsOf);

            // Native memory.
            Peak.NativePeak nativePeak = null;
            if (nPeak > 0) {
                List<Peak.Holder> holders = new ArrayList<>();
                for (SiteProfile p : rank(nativeSites, x -> x.heldAtPeakBytes() > 0, SiteProfile::heldAtPeakBytes)) {
                    holders.add(new Peak.Holder(p.site(), p.type(), p.heldAtPeakBytes(), p.heldAtPeakObjects(), 0,
                            p.stack(), 0));
                }
                nativePeak = new Peak.NativePeak(nPeakTime, (nPeakTime - runStart) / 1e6, nPeak, holders);
            }
            List<Anomaly> anomalies = new ArrayList<>();
            Map<Long, List<String>> anomalyStacks = new HashMap<>();
            for (Anomaly an : run.anomalies()) {
                if (ApiAnalysis.isApiAnomaly(an)) {
                    continue; // pools' and scopes' own, in the API sections
                }
                if (an.timestampNanos() >= from && an.timestampNanos() <= to) {
                    anomalies.add(an);
                    if (an.stackId() != 0) {
                        anomalyStacks.put(an.stackId(), run.stack(an.stackId()));
                    }
                }
            }
            Report.NativeMemory nativeMemory = new Report.NativeMemory(nAllocated, nAllocations, nFreed,
                    nOutstanding, blocks.size(), Math.max(0, nPeak), nativePeak, nLeaks, anomalies, anomalyStacks,
                    nSuspects);

            // GC.
            List<GcRecord> collections = new ArrayList<>();
            long pauses = 0;
            double pauseTotal = 0;
            double pauseMax = 0;
            long maxAfter = 0;
            for (GcRecord g : GcTimeline.withExamined(run.gcRecords())) {
                if (g.startNanos() < from || g.startNanos() > to) {
                    continue;
                }
                collections.add(g);
                int b = bucketOf(g.startNanos());
                bucketGcs[b]++;
                maxAfter = Math.max(maxAfter, g.heapUsedAfter());
                if (g.isPause()) {
                    pauses++;
                    double ms = g.durationNanos() / 1e6;
                    pauseTotal += ms;
                    pauseMax = Math.max(pauseMax, ms);
                    bucketPause[b] += ms;
                }
            }
            Report.Gc gc = new Report.Gc(collections.size(), pauses, pauseTotal, pauseMax, maxAfter, collections);

            Timeline timeline = timeline(exact ? bucketExact : bucketAlloc, allocatedBytes);

            Map<String, String> metadata = run.metadata();
            if (late > 0) {
                metadata = new LinkedHashMap<>(metadata);
                metadata.put("lateEvents", Long.toString(late));
            }
            Report.HeapCheck heapCheck = heapWorstGc < 0
                    ? new Report.HeapCheck(heapChecked, heapExceeded, heldExceeded, Double.NaN, null, 0, 0, 0)
                    : new Report.HeapCheck(heapChecked, heapExceeded, heldExceeded,
                            (gcs.record(heapWorstGc).startNanos() - runStart) / 1e6, gcs.record(heapWorstGc).name(),
                            heapWorstEstimate, gcs.record(heapWorstGc).heapUsedAfter(), heapWorstSd);
            return new Report(metadata, source(run), new Report.Window(runStart, from, to, restricted), totals,
                    peak, all, top, topLive, leaks, temps, nativeMemory, gc, timeline, stackProfiles,
                    run.failureCount(), run.failureMessages(), apiReport, run.accounting(), heapCheck,
                    RetentionPaths.of(run, runStart, from, to, restricted));
        }

        /**
         * @return a heap site's held bytes at the leak rule's reference collections and whether it grew significantly
         *         at both steps, or null when it has no reference collections
         */
        private SiteProfile.Growth growth(SiteAcc a) {
            if (a.firstRef < 0 || endWholeGc < 0) {
                return null;
            }
            double b1 = Math.max(0, heldSites.markBytes(a.key, 0));
            double b2 = Math.max(0, heldSites.markBytes(a.key, 1));
            double b3 = Math.max(0, heldSites.endMeasureBytes(a.key));
            // A step's difference is what was added minus what was removed, both sampled: its variance is the sum of
            // their variances, V(added) + V(removed) = (V(after) - V(before)) + 2 V(removed)
            double s12 = stepVariance(heldSites.markVariance(a.key, 0), heldSites.markVariance(a.key, 1),
                    heldSites.markFreedVariance(a.key, 0), heldSites.markFreedVariance(a.key, 1));
            double s23 = stepVariance(heldSites.markVariance(a.key, 1), heldSites.endMeasureVariance(a.key),
                    heldSites.markFreedVariance(a.key, 1), heldSites.endFreedVariance(a.key));
            boolean significant = b2 - b1 > LEAK_STEP_SIGMAS * Math.sqrt(s12)
                    && b3 - b2 > LEAK_STEP_SIGMAS * Math.sqrt(s23);
            return new SiteProfile.Growth((gcs.snapshot(a.firstRef) - runStart) / 1e6, Math.round(b1),
                    (gcs.snapshot(a.secondRef) - runStart) / 1e6, Math.round(b2),
                    (gcs.snapshot(endWholeGc) - runStart) / 1e6, Math.round(b3), heldSites.endMeasureSamples(a.key),
                    significant);
        }

        /** @return the variance of the difference of two held estimates of a site (see {@link #growth}) */
        private static double stepVariance(double before, double after, double freedBefore, double freedAfter) {
            return Math.max(0, after - before + 2 * (freedAfter - freedBefore));
        }

        /** The API sections' analysis: only for recordings that may have them (format 1.2 and later), else null. */
        private static ApiAnalysis apiAnalysis(RecordedRun run) {
            var h = run.header();
            if (h.majorVersion() == 1 && h.minorVersion() < 2) {
                return null;
            }
            return ApiAnalysis.of(run);
        }

        private Timeline timeline(double[] alloc, long total) {
            long[] allocated = Apportion.round(alloc, total);
            List<Timeline.Bucket> buckets = new ArrayList<>(bucketCount);
            long held = carryHeld;
            long unconfirmed = carryUnconfirmed;
            long used = carryHeapUsed;
            long committed = carryHeapCommitted;
            List<Timeline.HeldSite> top = carryTop;
            long nat = nativeAtFrom;
            for (int b = 0; b < bucketCount; b++) {
                if (bucketMeasured[b]) {
                    held = bucketHeld[b];
                    unconfirmed = bucketUnconfirmed[b];
                    used = bucketHeapUsed[b];
                    committed = bucketHeapCommitted[b];
                    if (bucketTop.get(b) != null) {
                        top = bucketTop.get(b);
                    }
                }
                if (bucketNativeSet[b]) {
                    nat = bucketNative[b];
                }
                buckets.add(new Timeline.Bucket((from - runStart + b * bucketNanos) / 1e6, allocated[b],
                        gcs.synthetic() ? 0 : held, used, committed, nat, bucketPause[b], bucketGcs[b], top,
                        gcs.synthetic() ? 0 : unconfirmed));
            }
            return new Timeline(from, bucketNanos, buckets);
        }

        private static List<SiteProfile> rank(List<SiteProfile> l, java.util.function.Predicate<SiteProfile> keep,
                                              java.util.function.ToLongFunction<SiteProfile> by) {
            return l.stream().filter(keep)
                    .sorted(Comparator.comparingLong((SiteProfile p) -> -by.applyAsLong(p))
                            .thenComparing(SiteProfile::site))
                    .limit(TOP).toList();
        }
    }
}
