package io.memscope.analysis;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link CaptureData} into a {@link Report}.
 *
 * <p><b>Replay.</b> The events are read twice, as the capture holds or streams them ({@link CaptureData#eventSource}):
 * first for each site's allocation window, then in time order for the live figures: sorted when held in memory,
 * through a {@link TimeOrder} window when streamed from a recording. Memory: per site, per live sample and per
 * outstanding native block, never per event of a streamed capture.
 *
 * <p><b>Weights.</b> Heap objects are sampled by bytes as a Poisson process with mean {@code m} (the capture's
 * {@value CaptureData#INTERVAL_BYTES}), so an object of {@code s} bytes is sampled with probability
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

    public static Report build(CaptureData data) {
        return new ReportBuilder.Run(data).build();
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
            this.type = site.type();
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
        final CaptureData data;
        final double mean;
        final Map<Integer, SiteAcc> heap = new HashMap<>();

        Run(CaptureData data) {
            this.data = data;
            this.mean = Math.max(1, data.metadataLong(CaptureData.INTERVAL_BYTES, 512 * 1024));
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

        boolean isNative(MemoryEvent e) {
            Site s = data.site(e.siteId());
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
            data.replay(e -> {
                firstLast[0] = Math.min(firstLast[0], e.timestampNanos());
                firstLast[1] = Math.max(firstLast[1], e.timestampNanos());
                if (e.type() == MemoryEventType.ALLOCATE && !isNative(e)) {
                    SiteAcc a = acc(e.siteId());
                    a.firstNanos = Math.min(a.firstNanos, e.timestampNanos());
                    a.lastNanos = Math.max(a.lastNanos, e.timestampNanos());
                }
            });
            boolean none = firstLast[0] == Long.MAX_VALUE;
            long start = data.metadataLong(CaptureData.START_NANOS, none ? 0 : firstLast[0]);
            long end = data.metadataLong(CaptureData.END_NANOS, none ? start : firstLast[1]);

            // Pass 2: replay in time order.
            if (data.isStreamed()) {
                TimeOrder order = new TimeOrder(TimeOrder.WINDOW_NANOS, this::apply);
                data.replay(order::add);
                order.finish();
                lateEvents = order.late();
            } else {
                List<MemoryEvent> events = new ArrayList<>(data.events());
                events.sort(Comparator.comparingLong(MemoryEvent::timestampNanos));
                events.forEach(this::apply);
            }
            for (SiteAcc a : heap.values()) {
                markMid(a, Long.MAX_VALUE);
            }

            // Allocated figures: exact counts when present, else the sampled estimates.
            boolean exact = "exact".equals(data.metadata(CaptureData.MODE, "sample"));
            Map<Integer, long[]> counts = data.exactCounts();
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
                String type = s == null ? "native" : s.type();
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
            for (GcRecord g : data.gcs()) {
                maxAfter = Math.max(maxAfter, g.heapUsedAfter());
                if (g.isPause()) {
                    pauses++;
                    double ms = g.durationNanos() / 1e6;
                    pauseTotal += ms;
                    pauseMax = Math.max(pauseMax, ms);
                }
            }
            Report.Gc gc = new Report.Gc(data.gcs().size(), pauses, pauseTotal, pauseMax, maxAfter, data.gcs());

            Report.Totals totals = new Report.Totals(allocatedBytes, allocatedObjects, Math.round(peakLive),
                    liveAtEnd, samples, durationNanos / 1_000_000, exact);
            Map<String, String> metadata = data.metadata();
            if (lateEvents > 0) {
                metadata = new LinkedHashMap<>(metadata);
                metadata.put("lateEvents", Long.toString(lateEvents));
            }
            return new Report(metadata, totals, top, topLive, leaks, temps, nativeMemory, gc,
                    data.failureCount(), data.failureMessages());
        }

        /** Applies one event, in time order, to the replay state. */
        private void apply(MemoryEvent e) {
            if (isNative(e)) {
                switch (e.type()) {
                    case ALLOCATE:
                    case REALLOCATE: {
                        NativeBlock old = blocks.put(e.address(), new NativeBlock(e.size(), e.siteId(),
                                e.callStackHash()));
                        if (old != null) {
                            nOutstanding -= old.size;
                        }
                        nAllocated += e.size();
                        nAllocations++;
                        nOutstanding += e.size();
                        nPeak = Math.max(nPeak, nOutstanding);
                        break;
                    }
                    case DEALLOCATE: {
                        NativeBlock old = blocks.remove(e.address());
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
            if (e.type() == MemoryEventType.ALLOCATE) {
                SiteAcc a = acc(e.siteId());
                markMid(a, e.timestampNanos());
                double p = probability(e.size());
                double wb = e.size() / p;
                double wc = 1 / p;
                liveSamples.put(e.address(), new double[] {wb, wc, e.siteId()});
                a.samples++;
                a.estBytes += wb;
                a.estCount += wc;
                a.liveBytes += wb;
                a.liveCount += wc;
                if (a.stackId == 0) {
                    a.stackId = e.callStackHash();
                }
                if (e.typeName() != null && (a.type == null || a.type.equals("?"))) {
                    a.type = e.typeName();
                }
                samples++;
                sampledAllocatedBytes += wb;
                sampledAllocatedCount += wc;
                totalLive += wb;
                peakLive = Math.max(peakLive, totalLive);
            } else if (e.type() == MemoryEventType.DEALLOCATE) {
                double[] w = liveSamples.remove(e.address());
                if (w == null) {
                    return;
                }
                SiteAcc a = acc((int) w[2]);
                markMid(a, e.timestampNanos());
                a.liveBytes -= w[0];
                a.liveCount -= w[1];
                a.deadSamples++;
                a.lifetimes.add(e.previousSize());
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
