package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import io.memscope.recording.MetadataKeys;
import io.memscope.recording.Site;
import io.memscope.recording.SiteCount;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link RecordedRun} into a {@link Report}.
 *
 * <p><b>Replay.</b> The events are streamed from the recording twice: first for each site's allocation window, then
 * in time order (through a {@link TimeOrder} window) for the live figures. Memory: per site, per live sample and
 * per outstanding native block, never per event.
 *
 * <p><b>Weights.</b> Heap objects are sampled by bytes as a Poisson process with mean {@code m} (the capture's
 * {@value MetadataKeys#INTERVAL_BYTES}), so an object of {@code s} bytes is sampled with probability
 * {@code p = 1 - exp(-s/m)}. Each sample stands for {@code 1/p} objects and {@code s/p} bytes (Horvitz-Thompson):
 * sums over samples are unbiased estimates of allocated and live figures, per site and in total.
 *
 * <p><b>Leak suspects</b> are sites with sampled objects still alive at the end (the agent runs a full GC first)
 * whose estimated live bytes grew: live at the end exceeds live at the midpoint of the site's allocation window by at
 * least a quarter of live-at-end, and that window covers at least 5% of the run. Objects built once at start-up
 * (a short window) and caches that stopped growing are not suspects.
 *
 * <p><b>Temporaries</b> are sites that allocated at least 1 MiB and 1% of all allocated bytes while keeping at most
 * 5% of it live at the end, with at least half of their samples collected: memory that only churns.
 */
public final class ReportBuilder {
    /** Entries per ranking. */
    public static final int TOP = 10;

    private ReportBuilder() {
    }

    public static Report build(RecordedRun run) {
        return new ReportBuilder.Run(run).build();
    }

    /** @return what the report says about the recording it comes from: closed or not, damage */
    static Report.Source source(RecordedRun run) {
        var h = run.header();
        var end = run.totals();
        var damage = run.damage();
        return new Report.Source(run.file().toString(), h.majorVersion() + "." + h.minorVersion(), end.isPresent(),
                end.map(t -> t.clean()).orElse(false), run.eventCount(), end.map(t -> t.eventsDropped()).orElse(0L),
                damage.map(d -> d.what()).orElse(null), damage.map(d -> d.offset()).orElse(-1L),
                run.skippedBlocks());
    }

    /** Per-site accumulation during replay. */
    private static final class SiteAcc {
        final Site site;
        long samples;
        double estBytes;
        double estCount;
        double liveBytes;
        double liveCount;
        long firstNanos = Long.MAX_VALUE;
        long lastNanos = Long.MIN_VALUE;
        double liveAtMid = -1;
        long deadSamples;
        final LifetimeMedian lifetimes = new LifetimeMedian();
        long stackId;
        String type;

        SiteAcc(Site site) {
            this.site = site;
            this.type = site.typeName();
        }

        long midNanos() {
            return firstNanos + (lastNanos - firstNanos) / 2;
        }
    }

    private static final class NativeBlock {
        final long size;
        final int siteId;
        final long stackId;

        NativeBlock(long size, int siteId, long stackId) {
            this.size = size;
            this.siteId = siteId;
            this.stackId = stackId;
        }
    }

    private static final class Run {
        final RecordedRun data;
        final double mean;
        final Map<Integer, SiteAcc> heap = new HashMap<>();

        Run(RecordedRun data) {
            this.data = data;
            this.mean = Math.max(1, data.metadataLong(MetadataKeys.INTERVAL_BYTES, 512 * 1024));
        }

        double probability(long size) {
            double p = -Math.expm1(-Math.max(size, 1) / mean);
            return p <= 0 ? 1 : p;
        }

        SiteAcc acc(int siteId) {
            return heap.computeIfAbsent(siteId, id -> {
                Site s = data.site(id);
                return new SiteAcc(s != null ? s : new Site(id, "unknown", "site" + id, null, 0, "?"));
            });
        }

        boolean isNative(int siteId) {
            Site s = data.site(siteId);
            return s != null && s.isNative();
        }

        // Replay state (pass 2).
        final Map<Long, double[]> liveSamples = new HashMap<>(); // sample id -> {bytes weight, count weight, site}
        double totalLive;
        double peakLive;
        long samples;
        double sampledAllocatedBytes;
        double sampledAllocatedCount;
        final Map<Long, NativeBlock> blocks = new HashMap<>();
        long nAllocated;
        long nAllocations;
        long nFreed;
        long nOutstanding;
        long nPeak;
        long lateEvents;

        Report build() {
            // Pass 1: allocation windows per heap site; the first and last timestamps.
            long[] firstLast = {Long.MAX_VALUE, Long.MIN_VALUE};
            data.replay((t, type, address, size, prev, tid, tname, var, typeName, stack, site) -> {
                firstLast[0] = Math.min(firstLast[0], t);
                firstLast[1] = Math.max(firstLast[1], t);
                if (type == MemoryEventType.ALLOCATE && !isNative(site)) {
                    SiteAcc a = acc(site);
                    a.firstNanos = Math.min(a.firstNanos, t);
                    a.lastNanos = Math.max(a.lastNanos, t);
                }
            });
            boolean none = firstLast[0] == Long.MAX_VALUE;
            long start = data.metadataLong(MetadataKeys.START_NANOS, none ? 0 : firstLast[0]);
            long end = data.metadataLong(MetadataKeys.END_NANOS, none ? start : firstLast[1]);

            // Pass 2: replay in time order.
            TimeOrder order = new TimeOrder(this::apply);
            data.replay(order);
            order.finish();
            lateEvents = order.late();
            for (SiteAcc a : heap.values()) {
                markMid(a, Long.MAX_VALUE);
            }

            // Allocated figures: exact counts when present, else the sampled estimates.
            boolean exact = "exact".equals(data.metadata().getOrDefault(MetadataKeys.MODE, "sample"));
            Map<Integer, long[]> counts = new HashMap<>();
            for (SiteCount c : data.siteCounts().values()) {
                counts.put(c.siteId(), new long[] {c.allocations(), c.bytes()});
            }
            long allocatedBytes;
            long allocatedObjects;
            if (exact) {
                allocatedBytes = 0;
                allocatedObjects = 0;
                for (Map.Entry<Integer, long[]> c : counts.entrySet()) {
                    Site s = data.site(c.getKey());
                    if (s != null && s.isNative()) {
                        continue;
                    }
                    allocatedObjects += c.getValue()[0];
                    allocatedBytes += c.getValue()[1];
                    acc(c.getKey()); // make sure every counted site is listed
                }
            } else {
                allocatedBytes = Math.round(sampledAllocatedBytes);
                allocatedObjects = Math.round(sampledAllocatedCount);
            }

            List<SiteEntry0> entries = new ArrayList<>();
            long durationNanos = Math.max(1, end - start);
            for (SiteAcc a : heap.values()) {
                long allocB = Math.round(a.estBytes);
                long allocC = Math.round(a.estCount);
                long[] c = counts.get(a.site.id());
                if (exact && c != null) {
                    allocC = c[0];
                    allocB = c[1];
                }
                long liveB = Math.max(0, Math.round(a.liveBytes));
                long liveC = Math.max(0, Math.round(a.liveCount));
                long growth = a.liveAtMid < 0 ? 0 : Math.max(0, Math.round(a.liveBytes - a.liveAtMid));
                long medianNanos = a.lifetimes.medianNanos();
                double median = medianNanos < 0 ? -1 : medianNanos / 1e6;
                entries.add(new SiteEntry0(a, allocB, allocC, liveB, liveC, growth, median, durationNanos));
            }

            List<Report.SiteEntry> top = entries.stream()
                    .filter(x -> x.allocB > 0)
                    .sorted(Comparator.comparingLong((SiteEntry0 x) -> -x.allocB))
                    .limit(TOP).map(x -> x.entry(x.allocB, x.allocC)).toList();
            List<Report.SiteEntry> topLive = entries.stream()
                    .filter(x -> x.liveB > 0)
                    .sorted(Comparator.comparingLong((SiteEntry0 x) -> -x.liveB))
                    .limit(TOP).map(x -> x.entry(x.liveB, x.liveC)).toList();
            List<Report.SiteEntry> leaks = entries.stream()
                    .filter(SiteEntry0::isLeakSuspect)
                    .sorted(Comparator.comparingLong((SiteEntry0 x) -> -x.growth))
                    .limit(TOP).map(x -> x.entry(x.liveB, x.liveC)).toList();
            final long totalAllocated = allocatedBytes;
            List<Report.SiteEntry> temps = entries.stream()
                    .filter(x -> x.isTemporary(totalAllocated))
                    .sorted(Comparator.comparingLong((SiteEntry0 x) -> -x.allocB))
                    .limit(TOP).map(x -> x.entry(x.allocB, x.allocC)).toList();
            long liveAtEnd = 0;
            for (SiteEntry0 x : entries) {
                liveAtEnd += x.liveB;
            }

            // Native leaks grouped by site.
            Map<Integer, long[]> bySite = new LinkedHashMap<>();
            Map<Integer, Long> stackBySite = new HashMap<>();
            for (NativeBlock b : blocks.values()) {
                long[] v = bySite.computeIfAbsent(b.siteId, k -> new long[2]);
                v[0] += b.size;
                v[1]++;
                stackBySite.putIfAbsent(b.siteId, b.stackId);
            }
            List<Report.SiteEntry> nLeaks = new ArrayList<>();
            for (Map.Entry<Integer, long[]> en : bySite.entrySet()) {
                Site s = data.site(en.getKey());
                String frame = s == null ? "unknown" : s.frame();
                String type = s == null ? "native" : s.typeName();
                long[] v = en.getValue();
                nLeaks.add(new Report.SiteEntry(frame, type, v[0], v[1], v[0], v[1], v[0], v[1], 0, -1, 0,
                        data.stack(stackBySite.getOrDefault(en.getKey(), 0L))));
            }
            nLeaks.sort(Comparator.comparingLong(x -> -x.bytes()));
            Map<Long, List<String>> anomalyStacks = new HashMap<>();
            for (Anomaly an : data.anomalies()) {
                if (an.stackId() != 0) {
                    anomalyStacks.put(an.stackId(), data.stack(an.stackId()));
                }
            }
            Report.NativeMemory nativeMemory = new Report.NativeMemory(nAllocated, nAllocations, nFreed,
                    nOutstanding, blocks.size(), nPeak, nLeaks.size() > TOP ? nLeaks.subList(0, TOP) : nLeaks,
                    data.anomalies(), anomalyStacks);

            // GC.
            long pauses = 0;
            double pauseTotal = 0;
            double pauseMax = 0;
            long maxAfter = 0;
            for (GcRecord g : data.gcRecords()) {
                maxAfter = Math.max(maxAfter, g.heapUsedAfter());
                if (g.isPause()) {
                    pauses++;
                    double ms = g.durationNanos() / 1e6;
                    pauseTotal += ms;
                    pauseMax = Math.max(pauseMax, ms);
                }
            }
            Report.Gc gc = new Report.Gc(data.gcRecords().size(), pauses, pauseTotal, pauseMax, maxAfter, data.gcRecords());

            Report.Totals totals = new Report.Totals(allocatedBytes, allocatedObjects, Math.round(peakLive),
                    liveAtEnd, samples, durationNanos / 1_000_000, exact);
            Map<String, String> metadata = data.metadata();
            if (lateEvents > 0) {
                metadata = new LinkedHashMap<>(metadata);
                metadata.put("lateEvents", Long.toString(lateEvents));
            }
            return new Report(metadata, source(data), totals, top, topLive, leaks, temps, nativeMemory, gc,
                    data.failureCount(), data.failureMessages());
        }

        /** Applies one event, in time order, to the replay state. */
        private void apply(long timestampNanos, MemoryEventType type, long address, long size, long previousSize,
                           long threadId, int threadNameId, int variableNameId, int typeNameId, long stackId,
                           int siteId) {
            if (isNative(siteId)) {
                switch (type) {
                    case ALLOCATE:
                    case REALLOCATE: {
                        NativeBlock old = blocks.put(address, new NativeBlock(size, siteId,
                                stackId));
                        if (old != null) {
                            nOutstanding -= old.size;
                        }
                        nAllocated += size;
                        nAllocations++;
                        nOutstanding += size;
                        nPeak = Math.max(nPeak, nOutstanding);
                        break;
                    }
                    case DEALLOCATE: {
                        NativeBlock old = blocks.remove(address);
                        if (old != null) {
                            nOutstanding -= old.size;
                            nFreed += old.size;
                        }
                        break;
                    }
                    default:
                        break;
                }
                return;
            }
            // Heap: check midpoint crossings before applying the event.
            if (type == MemoryEventType.ALLOCATE) {
                SiteAcc a = acc(siteId);
                markMid(a, timestampNanos);
                double p = probability(size);
                double wb = size / p;
                double wc = 1 / p;
                liveSamples.put(address, new double[] {wb, wc, siteId});
                a.samples++;
                a.estBytes += wb;
                a.estCount += wc;
                a.liveBytes += wb;
                a.liveCount += wc;
                if (a.stackId == 0) {
                    a.stackId = stackId;
                }
                if (typeNameId != 0 && (a.type == null || a.type.equals("?"))) {
                    a.type = data.string(typeNameId);
                }
                samples++;
                sampledAllocatedBytes += wb;
                sampledAllocatedCount += wc;
                totalLive += wb;
                peakLive = Math.max(peakLive, totalLive);
            } else if (type == MemoryEventType.DEALLOCATE) {
                double[] w = liveSamples.remove(address);
                if (w == null) {
                    return;
                }
                SiteAcc a = acc((int) w[2]);
                markMid(a, timestampNanos);
                a.liveBytes -= w[0];
                a.liveCount -= w[1];
                a.deadSamples++;
                a.lifetimes.add(previousSize);
                totalLive -= w[0];
            }
        }

        private static void markMid(SiteAcc a, long now) {
            if (a.liveAtMid < 0 && a.firstNanos != Long.MAX_VALUE && now > a.midNanos()) {
                a.liveAtMid = a.liveBytes;
            }
        }

        /** A heap site with its final figures, before it becomes a {@link Report.SiteEntry}. */
        private final class SiteEntry0 {
            final SiteAcc a;
            final long allocB;
            final long allocC;
            final long liveB;
            final long liveC;
            final long growth;
            final double medianMs;
            final long runNanos;

            SiteEntry0(SiteAcc a, long allocB, long allocC, long liveB, long liveC, long growth, double medianMs,
                       long runNanos) {
                this.a = a;
                this.allocB = allocB;
                this.allocC = allocC;
                this.liveB = liveB;
                this.liveC = liveC;
                this.growth = growth;
                this.medianMs = medianMs;
                this.runNanos = runNanos;
            }

            boolean isLeakSuspect() {
                long liveSamples = a.samples - a.deadSamples;
                if (liveSamples < 2 || liveB <= 0 || a.liveAtMid < 0) {
                    return false;
                }
                long window = a.lastNanos - a.firstNanos;
                return window >= runNanos / 20 && growth * 4 >= liveB;
            }

            boolean isTemporary(long totalAllocated) {
                return allocB >= (1 << 20) && allocB * 100 >= totalAllocated
                        && liveB * 20 <= allocB
                        && a.samples > 0 && a.deadSamples * 2 >= a.samples;
            }

            Report.SiteEntry entry(long bytes, long count) {
                return new Report.SiteEntry(a.site.frame(), a.type, bytes, count, allocB, allocC, liveB, liveC,
                        growth, medianMs, a.samples, data.stack(a.stackId));
            }
        }
    }
}
