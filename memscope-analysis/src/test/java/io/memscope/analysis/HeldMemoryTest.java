package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Site;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Held" means reachable at a collection that examined the whole heap: a structure built at one site, garbage churned
 * at another, a young collection (which confirms nothing: the structure is unconfirmed there), a full one (the
 * structure held), the structure dropped and found garbage by the next full one, a smaller one held to the end.
 * Samples of 1 MiB at a mean interval of 1 KiB weigh their own size (p = 1).
 */
class HeldMemoryTest {
    private static final long MS = 1_000_000L;
    private static final long MIB = 1 << 20;
    private static final Site BIG = new Site(1, "a.Big", "build", "Big.java", 1, "byte[]");
    private static final Site GARBAGE = new Site(2, "a.Churn", "run", "Churn.java", 2, "byte[]");
    private static final Site SMALL = new Site(3, "a.Small", "keep", "Small.java", 3, "byte[]");

    @TempDir
    Path tmp;

    private Path recording() {
        TestRun d = capture("held", 450)
                .site(BIG).site(GARBAGE).site(SMALL)
                .stack(77, "a.Big.build(Big.java:1)", "a.Main.main(Main.java:9)");
        for (int i = 0; i < 10; i++) {
            d.alloc((10 + i) * MS, 100 + i, MIB, 1, 77);
        }
        for (int i = 0; i < 20; i++) {
            d.alloc((20 + i) * MS, 200 + i, MIB, 2);
        }
        for (int i = 0; i < 20; i++) {
            d.free(102 * MS, 200 + i, MIB, (82 - i) * MS, 2);   // collected by the collection at 100 ms
        }
        for (int i = 0; i < 10; i++) {
            d.free(305 * MS, 100 + i, MIB, (295 - i) * MS, 1);  // collected by the collection at 300 ms
        }
        for (int i = 0; i < 3; i++) {
            d.alloc(310 * MS, 300 + i, MIB, 3);
        }
        d.gc(new GcRecord(100 * MS, MS, "G1 Young Generation", "G1 Evacuation Pause", 40 * MIB, 12 * MIB, 64 * MIB,
                "end of minor GC"));
        d.gc(new GcRecord(200 * MS, MS, "G1 Old Generation", "G1 Compaction Pause", 20 * MIB, 11 * MIB, 64 * MIB,
                "end of major GC"));
        d.gc(new GcRecord(300 * MS, 5 * MS, "G1 Old Generation", "G1 Compaction Pause", 20 * MIB, 4 * MIB,
                64 * MIB, "end of major GC"));
        d.gc(new GcRecord(400 * MS, 5 * MS, "G1 Old Generation", "System.gc()", 8 * MIB, 3 * MIB + MIB / 2,
                64 * MIB, "end of major GC"));
        d.close();
        return d.file();
    }

    /** @return a sampled capture of {@code endMs}, the interval 1 KiB (samples of 1 MiB weigh their own size) */
    private TestRun capture(String name, long endMs) {
        return TestRun.create(tmp.resolve(name + ".msrec"))
                .meta(MetadataKeys.MODE, "sample").meta(MetadataKeys.INTERVAL_BYTES, "1024")
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(endMs * MS));
    }

    /**
     * @return a capture of 300 ms: 4 MiB of {@link #BIG} allocated from 50 ms, 2 MiB of {@link #SMALL} from
     *         {@code smallAtMs}, never freed; the caller adds the collections
     */
    private TestRun bigThenSmall(String name, long smallAtMs) {
        TestRun d = capture(name, 300).site(BIG).site(SMALL);
        for (int i = 0; i < 4; i++) {
            d.alloc((50 + i) * MS, 100 + i, MIB, 1);
        }
        for (int i = 0; i < 2; i++) {
            d.alloc((smallAtMs + i) * MS, 200 + i, MIB, 3);
        }
        return d;
    }

    private static SiteProfile site(Report r, String frame) {
        return r.sites().stream().filter(s -> s.site().equals(frame)).findFirst().orElseThrow();
    }

    @Test
    void thePeakIsTheWholeHeapCollectionThatHeldTheMostAndGarbageIsNotHeldThere() {
        Report r = ReportBuilder.build(recording());
        Peak peak = r.peak();
        assertThat(peak.timeMs()).as("not the young collection at 100 ms, after which the heap held more").isEqualTo(200.0);
        assertThat(peak.heapUsedAfterGcBytes()).isEqualTo(11 * MIB);
        assertThat(peak.estimatedBytes()).isEqualTo(10 * MIB);
        assertThat(peak.unconfirmedBytes()).isZero();
        assertThat(peak.sites()).extracting(Peak.Holder::site).containsExactly("a.Big.build(Big.java:1)");
        assertThat(peak.sites().get(0).stack()).containsExactly("a.Big.build(Big.java:1)", "a.Main.main(Main.java:9)");
        assertThat(r.totals().peakHeldBytes()).isEqualTo(10 * MIB);
        assertThat(r.totals().heldAtEndBytes()).isEqualTo(3 * MIB);
        assertThat(r.totals().unconfirmedAtEndBytes()).isZero();
        assertThat(r.totals().allocatedBytes()).isEqualTo(33 * MIB);
        assertThat(r.totals().wholeHeapCollections()).isEqualTo(3);
        assertThat(r.totals().heldAsOfMs()).isEqualTo(400.0);

        assertThat(site(r, "a.Big.build(Big.java:1)").peakBytes()).isEqualTo(10 * MIB);
        assertThat(site(r, "a.Big.build(Big.java:1)").liveBytes()).isZero();
        assertThat(site(r, "a.Churn.run(Churn.java:2)").peakBytes()).as("garbage is never held").isZero();
        assertThat(site(r, "a.Small.keep(Small.java:3)").peakBytes()).isEqualTo(3 * MIB);
        assertThat(site(r, "a.Small.keep(Small.java:3)").heldAtPeakBytes()).isZero();

        String json = ReportJson.toJson(r);
        assertThat(json).contains("\"peakBytes\": " + 10 * MIB).contains("\"estimatedBytes\": " + 10 * MIB);
        assertThat(Summary.format(r)).contains("Peak: at 0.20 s, after G1 Old Generation").contains("a.Big.build");
    }

    @Test
    void aRestrictedWindowsAllocationWindowsAreLearntInTheFirstReadAndGiveTheSameReport() {
        Path file = recording();
        TimeWindow window = new TimeWindow(0.015, 0.3);
        long from = 15 * MS;
        long to = 300 * MS;
        RecordedRun opened = RecordedRun.open(file, window); // the run's start is known before its first event
        AllocationWindows learnt = opened.allocationWindows(from, to);
        assertThat(learnt).isNotNull();
        AllocationWindows own = new AllocationWindows(from, to);
        opened.replay(own::add);
        assertThat(learnt.window(1)).containsExactly(15 * MS, 19 * MS).isEqualTo(own.window(1));
        assertThat(learnt.window(2)).isEqualTo(own.window(2));
        assertThat(learnt.window(3)).as("after the window").isNull();
        assertThat(own.window(3)).isNull();
        assertThat(opened.allocationWindows().window(3)).containsExactly(310 * MS, 310 * MS);
        assertThat(opened.allocationWindows(from, 200 * MS)).as("nothing allocated from 200 to 300 ms").isNotNull();
        assertThat(opened.allocationWindows(from, 30 * MS)).as("allocated at 39 ms: not those").isNull();
        assertThat(opened.allocationWindows(16 * MS, to)).as("another start").isNull();

        RecordedRun whole = RecordedRun.open(file);
        assertThat(whole.allocationWindows(from, to)).as("opened for the whole run: a read of their own").isNull();
        assertThat(ReportJson.toJson(ReportBuilder.build(file, window)))
                .isEqualTo(ReportJson.toJson(ReportBuilder.build(whole, window)));
    }

    /**
     * Two whole-heap concurrent cycles overlapping at the end of a capture (the end check's cycle placed, within the
     * clock's uncertainty, before the end of the cycle it waited for): the later one's snapshot is taken, so what was
     * allocated between the two snapshots is judged by the last one, not left unconfirmed at the end.
     */
    @Test
    void theLastWholeHeapCycleJudgesEvenWhenItOverlapsThePendingOne() {
        TestRun d = bigThenSmall("overlap", 150); // small: after the first cycle's snapshot, before the second's
        d.gc(new GcRecord(100 * MS, 100 * MS, "ZGC Cycles", "Allocation Rate", 0, 0, 0, null,
                GcRecord.Examined.WHOLE_HEAP, 100 * MS, 200 * MS));
        d.gc(new GcRecord(180 * MS, 80 * MS, "ZGC Cycles", "System.gc()", 0, 0, 0, null,
                GcRecord.Examined.WHOLE_HEAP, 180 * MS, 260 * MS));
        d.close();
        Report r = ReportBuilder.build(d.file());
        assertThat(r.totals().unconfirmedAtEndBytes()).isZero();
        assertThat(r.totals().heldAtEndBytes()).isEqualTo(6 * MIB);
        assertThat(site(r, "a.Small.keep(Small.java:3)").liveBytes()).isEqualTo(2 * MIB);
    }

    /**
     * The end check's cycle starting a millisecond before the pending cycle's verdict, and a cycle recorded after the
     * capture's end (the JVM's own exit): the end check's snapshot is the window's last and replaces the pending one,
     * so what was allocated between the two snapshots is held at the end, as of the end check.
     */
    @Test
    void theEndChecksCycleJudgesEvenWhenACycleIsRecordedAfterTheCapture() {
        TestRun d = bigThenSmall("after", 120); // small: after the pending cycle's snapshot, before the end check's
        d.gc(new GcRecord(150 * MS, 50 * MS, "ZGC Major Cycles", "Allocation Rate", 0, 0, 0, null,
                GcRecord.Examined.WHOLE_HEAP, 80 * MS, 200 * MS));
        d.gc(new GcRecord(199 * MS, 20 * MS, "ZGC Major Cycles", "System.gc()", 0, 0, 0, null,
                GcRecord.Examined.WHOLE_HEAP, 199 * MS, 219 * MS));
        d.gc(new GcRecord(320 * MS, 10 * MS, "ZGC Major Cycles", "Allocation Stall", 0, 0, 0, null,
                GcRecord.Examined.WHOLE_HEAP, 320 * MS, 330 * MS));
        d.close();
        Report r = ReportBuilder.build(d.file());
        assertThat(r.totals().unconfirmedAtEndBytes()).isZero();
        assertThat(r.totals().heldAtEndBytes()).isEqualTo(6 * MIB);
        assertThat(r.totals().heldAsOfMs()).isEqualTo(199.0);
    }

    @Test
    void aYoungCollectionConfirmsNothing() {
        // only the young collection at 100 ms: the structure survived it, but it may have been promoted and become
        // garbage there; nothing examined the old generation
        Report r = ReportBuilder.build(recording(), new TimeWindow(null, 0.15));
        assertThat(r.totals().heldAtEndBytes()).isZero();
        assertThat(r.totals().unconfirmedAtEndBytes()).isEqualTo(10 * MIB);
        assertThat(r.peak()).as("no whole-heap collection in the window").isNull();
        assertThat(r.totals().wholeHeapCollections()).isZero();
        assertThat(site(r, "a.Big.build(Big.java:1)").unconfirmedBytes()).isEqualTo(10 * MIB);
        assertThat(site(r, "a.Big.build(Big.java:1)").liveBytes()).isZero();
        Timeline.Bucket atYoung = r.timeline().buckets().get((int) (100 * MS / r.timeline().bucketNanos()));
        assertThat(atYoung.gcCount()).isEqualTo(1);
        assertThat(atYoung.unconfirmedBytes()).isEqualTo(10 * MIB);
        assertThat(atYoung.heldBytes()).isZero();
        assertThat(Summary.format(r)).contains("10.0 MiB more at the end is unconfirmed")
                .contains("Peak: unknown: no collection of the whole heap");
        assertThat(ReportJson.toJson(r)).contains("\"unconfirmedAtEndBytes\": " + 10 * MIB)
                .contains("\"unconfirmedBytes\": " + 10 * MIB);
    }

    @Test
    void theTimelineHasAbout200BucketsThatAddUpToTheTotals() {
        Report r = ReportBuilder.build(recording());
        List<Timeline.Bucket> b = r.timeline().buckets();
        assertThat(r.timeline().bucketNanos()).isEqualTo(3 * MS); // 450 ms / 200, rounded up to whole ms
        assertThat(b).hasSize(150);
        assertThat(b.stream().mapToLong(Timeline.Bucket::allocatedBytes).sum()).isEqualTo(r.totals().allocatedBytes());
        Timeline.Bucket atFirstGc = b.get(33); // 99..102 ms: the young collection
        assertThat(atFirstGc.heldBytes()).isZero();
        assertThat(atFirstGc.unconfirmedBytes()).isEqualTo(10 * MIB);
        assertThat(atFirstGc.heapUsedBytes()).isEqualTo(12 * MIB);
        assertThat(atFirstGc.heapCommittedBytes()).isEqualTo(64 * MIB);
        assertThat(atFirstGc.gcCount()).isEqualTo(1);
        assertThat(atFirstGc.gcPauseMs()).isEqualTo(1.0);
        Timeline.Bucket atFull = b.get(66); // 198..201 ms: the first full collection
        assertThat(atFull.heldBytes()).isEqualTo(10 * MIB);
        assertThat(atFull.unconfirmedBytes()).isZero();
        assertThat(atFull.topSites()).extracting(Timeline.HeldSite::site).containsExactly("a.Big.build(Big.java:1)");
        assertThat(b.get(10).heldBytes()).as("before the first collection").isZero();
        assertThat(b.get(80).heldBytes()).as("carried from the last collection before").isEqualTo(10 * MIB);
        assertThat(b.get(101).heldBytes()).isZero();
        assertThat(b.get(140).heldBytes()).isEqualTo(3 * MIB);
        assertThat(b.get(140).topSites()).extracting(Timeline.HeldSite::site)
                .containsExactly("a.Small.keep(Small.java:3)");
        assertThat(Summary.format(r)).contains("over time");
    }

    @Test
    void aWindowRestrictsEveryFigure() {
        Report late = ReportBuilder.build(recording(), new TimeWindow(0.25, 0.45));
        assertThat(late.window().restricted()).isTrue();
        assertThat(late.totals().allocatedBytes()).isEqualTo(3 * MIB);
        assertThat(late.totals().heldAtEndBytes()).isEqualTo(3 * MIB);
        assertThat(late.gc().count()).isEqualTo(2);
        // the peak is where the most was held: at 400 ms the small structure (3 MiB); at 300 ms nothing sampled was
        // held (the big one freed by it), though the JVM reported more heap in use after it (4 MiB against 3.5)
        assertThat(late.peak().timeMs()).isEqualTo(400.0);
        assertThat(late.totals().peakHeldBytes()).isEqualTo(3 * MIB);
        assertThat(late.timeline().buckets().get(0).startMs()).isEqualTo(250.0);
        assertThat(late.timeline().buckets().get(0).heldBytes()).as("carried in from 200 ms").isEqualTo(10 * MIB);

        Report early = ReportBuilder.build(recording(), new TimeWindow(null, 0.25));
        assertThat(early.totals().allocatedBytes()).isEqualTo(30 * MIB);
        assertThat(early.totals().heldAtEndBytes()).as("held at the collection at 200 ms").isEqualTo(10 * MIB);
        assertThat(early.totals().peakHeldBytes()).isEqualTo(10 * MIB);
        assertThat(early.gc().count()).isEqualTo(2);
        assertThat(early.timeline().buckets().stream().mapToLong(Timeline.Bucket::allocatedBytes).sum())
                .isEqualTo(30 * MIB);
    }

    @Test
    void stacksAddUpToTheirSites() {
        Report r = ReportBuilder.build(recording());
        StackProfile big = r.stacks().stream().filter(s -> s.site().startsWith("a.Big")).findFirst().orElseThrow();
        assertThat(big.frames()).containsExactly("a.Big.build(Big.java:1)", "a.Main.main(Main.java:9)");
        assertThat(big.allocatedBytes()).isEqualTo(10 * MIB);
        assertThat(big.heldAtPeakBytes()).isEqualTo(10 * MIB);
        assertThat(big.heldBytes()).isZero();
        assertThat(big.allocatedBytesByBucket().sum(0, Integer.MAX_VALUE)).isEqualTo(10 * MIB);
        assertThat(big.allocatedBytesByBucket().get(3)).as("10..12 ms").isEqualTo(2 * MIB);
        StackProfile garbage = r.stacks().stream().filter(s -> s.site().startsWith("a.Churn")).findFirst()
                .orElseThrow();
        assertThat(garbage.frames()).as("no stack: the site's frame").containsExactly("a.Churn.run(Churn.java:2)");
        assertThat(r.stacks().stream().mapToLong(StackProfile::allocatedBytes).sum())
                .isEqualTo(r.totals().allocatedBytes());
        assertThat(r.stacks().stream().mapToLong(StackProfile::heldBytes).sum())
                .isEqualTo(r.totals().heldAtEndBytes());
        assertThat(r.stacks().stream().mapToLong(StackProfile::heldAtPeakBytes).sum())
                .isEqualTo(r.totals().peakHeldBytes());
    }

    @Test
    void theAttributionRuleIsTheLastCollectionThatStartedBefore() {
        GcTimeline t = GcTimeline.of(List.of(
                new GcRecord(100, 1, "G1 Young Generation", null, 0, 0, 0),
                new GcRecord(150, 1, "ZGC Pauses", null, 0, 0, 0),
                new GcRecord(200, 1, "G1 Old Generation", null, 0, 0, 0)), 1000);
        assertThat(t.size()).as("pause records of concurrent collectors are not collections").isEqualTo(2);
        assertThat(t.collectedBy(50)).isEqualTo(-1);
        assertThat(t.collectedBy(100)).isEqualTo(-1);
        assertThat(t.collectedBy(101)).isEqualTo(0);
        assertThat(t.collectedBy(200)).isEqualTo(0);
        assertThat(t.collectedBy(201)).isEqualTo(1);
        assertThat(GcTimeline.of(List.of(), 1000).synthetic()).isTrue();
    }

    @Test
    void aWholeHeapConcurrentCycleIsPositionedAtItsEndAndJudgesFromItsStart() {
        GcTimeline t = GcTimeline.of(List.of(
                new GcRecord(100, 1, "ZGC Minor Cycles", null, 0, 0, 0, null, GcRecord.Examined.YOUNG, 100, 100),
                new GcRecord(150, 200, "ZGC Major Cycles", null, 0, 0, 0, null, GcRecord.Examined.WHOLE_HEAP, 150,
                        350),
                new GcRecord(200, 50, "ZGC Minor Cycles", null, 0, 0, 0, null, GcRecord.Examined.YOUNG, 200, 200)),
                1000);
        assertThat(t.size()).isEqualTo(3);
        assertThat(t.position(1)).as("the minor cycle during the major one comes first").isEqualTo(200);
        assertThat(t.position(2)).isEqualTo(350);
        assertThat(t.wholeHeap(2)).isTrue();
        assertThat(t.collectedBy(300)).as("freed while the major cycle runs: before its verdict").isEqualTo(1);
        assertThat(t.collectedBy(351)).isEqualTo(2);
        // boundaries: the minor at 100, the major's snapshot at 150, the minor at 200, the major's verdict at 350
        assertThat(t.boundaries()).isEqualTo(4);
        assertThat(t.boundaryTime(1)).isEqualTo(150);
        assertThat(t.pointAt(1)).isEqualTo(-1);
        assertThat(t.markOf(2)).isEqualTo(1);
        assertThat(t.confirmedBefore(2)).isEqualTo(150);
        assertThat(t.confirmedBefore(1)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void recordsThatDoNotSayWhatTheyExaminedAreRecognizedByName() {
        List<GcRecord> l = GcTimeline.withExamined(List.of(
                new GcRecord(100, 1, "G1 Young Generation", null, 0, 0, 0),
                new GcRecord(200, 1, "G1 Old Generation", null, 0, 0, 0),
                new GcRecord(300, 5, "ZGC Cycles", null, 0, 0, 0),
                new GcRecord(400, 1, "JVM pause", null, 0, 0, 0)));
        assertThat(l).extracting(GcRecord::examined).containsExactly(GcRecord.Examined.YOUNG,
                GcRecord.Examined.WHOLE_HEAP, GcRecord.Examined.WHOLE_HEAP, GcRecord.Examined.UNKNOWN);
        assertThat(l.get(2).verdictNanos()).isEqualTo(305);
    }

    /**
     * Generational ZGC's major cycles overlap: each one's snapshot lags its start by 300 ms (the young collections an
     * object needs to be old), cycles start every 100 ms, so three snapshots wait for their verdicts at once and one
     * cycle in four confirms (snapshots 400 ms apart). Old garbage is freed only by major cycles. A cache whose
     * entries live 500 ms holds about 26 of them at any time; a leak grows. The leak rule compares the collections
     * that confirmed, at their snapshots, and counts there every entry alive at the snapshot, those an earlier
     * snapshot confirmed included (they die before the verdict): the cache is flat, only the leak is a suspect.
     */
    @Test
    void overlappingWholeHeapCyclesAreComparedWhereTheyConfirmed() {
        Site cache = new Site(4, "a.Cache", "put", "Cache.java", 4, "byte[]");
        Site leak = new Site(5, "a.Leak", "add", "Leak.java", 5, "byte[]");
        TestRun d = capture("generational", 3000).site(cache).site(leak);
        List<Long> majorStarts = new java.util.ArrayList<>();
        for (long start = 400; start <= 2900; start += 100) {
            majorStarts.add(start); // the last, at 2900, is the end check
        }
        java.util.TreeMap<Long, List<long[]>> events = new java.util.TreeMap<>(); // t -> {id, lifetime, site}
        for (long n = 0, a = 5; a <= 2880; n++, a += 19) {
            events.computeIfAbsent(a * MS, t -> new java.util.ArrayList<>()).add(new long[] {1000 + n, -1, 4});
            long death = a + CACHE_LIFETIME_MS;
            for (long start : majorStarts) {
                if (start > death) { // freed by the first major cycle that starts after it died, seen at its end
                    long seen = start + 22;
                    events.computeIfAbsent(seen * MS, t -> new java.util.ArrayList<>())
                            .add(new long[] {1000 + n, (seen - a) * MS, 4});
                    break;
                }
            }
        }
        for (long j = 0, a = 50; a <= 2850; j++, a += 100) {
            events.computeIfAbsent(a * MS, t -> new java.util.ArrayList<>()).add(new long[] {5000 + j, -1, 5});
        }
        events.forEach((t, list) -> list.forEach(e -> {
            if (e[1] < 0) {
                d.alloc(t, e[0], MIB, (int) e[2]);
            } else {
                d.free(t, e[0], MIB, e[1], (int) e[2]);
            }
        }));
        for (long start = 10; start < 3000; start += 20) {
            d.gc(new GcRecord(start * MS, MS, "ZGC Minor Cycles", "Allocation Rate", 0, 0, 0, null,
                    GcRecord.Examined.YOUNG, start * MS, start * MS));
        }
        for (long start : majorStarts) {
            boolean endCheck = start == 2900;
            d.gc(new GcRecord(start * MS, 20 * MS, "ZGC Major Cycles", endCheck ? "System.gc()" : "Allocation Rate",
                    0, 0, 0, null, GcRecord.Examined.WHOLE_HEAP, (endCheck ? start : start - 300) * MS,
                    (start + 20) * MS));
        }
        d.close();
        Report r = ReportBuilder.build(d.file());

        assertThat(r.leakSuspects()).extracting(SiteProfile::site).containsExactly("a.Leak.add(Leak.java:5)");
        SiteProfile.Growth g = site(r, "a.Cache.put(Cache.java:4)").growth();
        assertThat(g.significant()).isFalse();
        for (double ms : new double[] {g.firstMs(), g.secondMs()}) {
            // the snapshots confirmed: 100 ms, then every 400 ms (the one pending when the last verdict came)
            assertThat((long) ms % 400).as("a confirmed snapshot: %s", g).isEqualTo(100);
        }
        // at least every entry alive at the snapshot (the measure may add some dead before it but freed later: an
        // upper bound of what was reachable, see HeldLedger), at most those that died within 100 ms before it too
        assertThat(g.firstBytes()).as("%s", g).isBetween(cacheAlive((long) g.firstMs(), 0) * MIB,
                cacheAlive((long) g.firstMs(), 100) * MIB);
        assertThat(g.secondBytes()).as("%s", g).isBetween(cacheAlive((long) g.secondMs(), 0) * MIB,
                cacheAlive((long) g.secondMs(), 100) * MIB);
        assertThat(r.totals().heldAsOfMs()).isEqualTo(2900.0);
    }

    private static final long CACHE_LIFETIME_MS = 500;

    /** @return the entries of the cache (one every 19 ms from 5 ms) alive at {@code ms} or dead within {@code slack} */
    private static long cacheAlive(long ms, long slack) {
        long n = 0;
        for (long a = 5; a <= 2880; a += 19) {
            if (a <= ms && ms < a + CACHE_LIFETIME_MS + slack) {
                n++;
            }
        }
        return n;
    }
}
