package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Site;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportBuilderTest {
    private static final long MS = 1_000_000L;
    private static final Site LEAK = new Site(1, "a.Cache", "put", "Cache.java", 10, "byte[]");
    private static final Site TEMP = new Site(2, "a.Concat", "run", "Concat.java", 20, "java.lang.String");
    private static final Site STARTUP = new Site(3, "a.Main", "init", "Main.java", 30, "long[]");
    private static final Site NATIVE = new Site(4, "a.Buf", "alloc", "Buf.java", 40, Site.NATIVE_DIRECT);

    @TempDir
    Path tmp;

    /**
     * A capture in the agent's order of writing: heap events first, then native ones up to 800 ms earlier (the
     * report puts them in time order).
     */
    private TestRun capture(String name) {
        TestRun d = TestRun.create(tmp.resolve(name + ".msrec"))
                .meta(MetadataKeys.MODE, "sample")
                .meta(MetadataKeys.INTERVAL_BYTES, "1024")
                .meta(MetadataKeys.START_NANOS, "0")
                .meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS))
                .site(LEAK).site(TEMP).site(STARTUP).site(NATIVE);
        long id = 1;
        // Startup: 10 big samples in the first millisecond, all still alive: not growing over the run.
        for (int i = 0; i < 10; i++) {
            d.alloc(i * 1000, id++, 1 << 20, 3);
        }
        // Leak: one sample every 10 ms from 100 ms to 900 ms, never collected.
        for (int i = 0; i < 80; i++) {
            d.alloc(100 * MS + i * 10 * MS, id++, 4096, 1);
        }
        // Temporaries: 400 samples, each collected 1 ms later.
        for (int i = 0; i < 400; i++) {
            long t = 100 * MS + i * 2 * MS;
            long sid = id++;
            d.alloc(t, sid, 65536, 2);
            d.free(t + MS, sid, 65536, MS, 2);
        }
        // Native: 3 blocks, one freed, one reallocated (free old + realloc new).
        d.event(10 * MS, MemoryEventType.ALLOCATE, 0x1000, 100, 0, 4);
        d.event(11 * MS, MemoryEventType.ALLOCATE, 0x2000, 200, 0, 4);
        d.event(12 * MS, MemoryEventType.ALLOCATE, 0x3000, 300, 0, 4);
        d.event(13 * MS, MemoryEventType.DEALLOCATE, 0x2000, 200, 0, 4);
        d.event(14 * MS, MemoryEventType.DEALLOCATE, 0x3000, 300, 0, 4);
        d.event(14 * MS, MemoryEventType.REALLOCATE, 0x4000, 1000, 300, 4);
        d.gc(new GcRecord(5 * MS, 3 * MS, "G1 Young Generation", "G1 Evacuation Pause", 100, 50, 200,
                "end of minor GC"));
        d.gc(new GcRecord(6 * MS, 7 * MS, "G1 Concurrent GC", "x", 0, 0, 0, "end of concurrent GC cycle"));
        d.gc(new GcRecord(9 * MS, 5 * MS, "G1 Old Generation", "G1 Compaction Pause", 100, 70, 200,
                "end of major GC"));
        d.gc(new GcRecord(355 * MS, 3 * MS, "G1 Old Generation", "G1 Compaction Pause", 300, 150, 500,
                "end of major GC"));
        d.gc(new GcRecord(455 * MS, 2 * MS, "G1 Young Generation", "G1 Evacuation Pause", 400, 300, 500,
                "end of minor GC"));
        d.gc(new GcRecord(605 * MS, 3 * MS, "G1 Old Generation", "G1 Compaction Pause", 350, 180, 500,
                "end of major GC"));
        // the agent's final full collection
        d.gc(new GcRecord(950 * MS, 10 * MS, "G1 Old Generation", "System.gc()", 300, 200, 500, "end of major GC"));
        return d;
    }

    private Report report() {
        return ReportBuilder.build(capture("c").close());
    }

    @Test
    void leakSuspectIsTheGrowingSiteNotTheStartupTable() {
        Report r = report();
        assertThat(r.leakSuspects()).extracting(SiteProfile::site).containsExactly("a.Cache.put(Cache.java:10)");
        assertThat(r.topLiveSites()).extracting(SiteProfile::site)
                .containsExactly("a.Main.init(Main.java:30)", "a.Cache.put(Cache.java:10)");
        SiteProfile leak = r.leakSuspects().get(0);
        // p(4096 bytes at mean 1024) = 1 - e^-4: each sample weighs 4096 / p bytes.
        double w = 4096 / -Math.expm1(-4.0);
        assertThat(leak.liveBytes()).isEqualTo(Math.round(80 * w));
        // its window: 100 ms to the last whole-heap collection (950 ms); held at the last whole-heap collections at
        // or before a third (383 ms: the one at 355 ms, 26 samples) and two thirds (667 ms: at 605 ms, 51) of it
        SiteProfile.Growth g = leak.growth();
        assertThat(g.firstMs()).isEqualTo(355.0);
        assertThat(g.firstBytes()).isEqualTo(Math.round(26 * w));
        assertThat(g.secondMs()).isEqualTo(605.0);
        assertThat(g.secondBytes()).isEqualTo(Math.round(51 * w));
        assertThat(g.endBytes()).isEqualTo(Math.round(80 * w));
        assertThat(g.endSamples()).isEqualTo(80);
        assertThat(g.significant()).isTrue();
        assertThat(leak.growthBytes()).isEqualTo(Math.round(80 * w) - Math.round(26 * w));
        // built once in the first millisecond: held the same at the three collections
        SiteProfile startup = r.topLiveSites().get(0);
        assertThat(startup.growth().firstBytes()).isEqualTo(startup.growth().endBytes());
        assertThat(startup.growth().significant()).isFalse();
        assertThat(startup.leakSuspect()).isFalse();
    }

    @Test
    void aSiteWithTooFewWholeHeapCollectionsAfterItStartedIsNotJudged() {
        // only the agent's final collection examined the whole heap after the leak began: no evidence of growth
        TestRun d = TestRun.create(tmp.resolve("few.msrec")).meta(MetadataKeys.MODE, "sample")
                .meta(MetadataKeys.INTERVAL_BYTES, "1024").meta(MetadataKeys.START_NANOS, "0")
                .meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS)).site(LEAK);
        for (int i = 0; i < 80; i++) {
            d.alloc(100 * MS + i * 10 * MS, i + 1, 4096, 1);
        }
        for (int i = 1; i < 9; i++) {
            d.gc(new GcRecord(i * 100 * MS + 5 * MS, MS, "G1 Young Generation", null, 100, 50, 200));
        }
        d.gc(new GcRecord(950 * MS, 10 * MS, "G1 Old Generation", "System.gc()", 300, 200, 500));
        Report r = ReportBuilder.build(d.close());
        assertThat(r.leakSuspects()).isEmpty();
        assertThat(r.sites().get(0).growth()).isNull();
        assertThat(r.sites().get(0).liveBytes()).isPositive();
        assertThat(r.totals().wholeHeapCollections()).isEqualTo(1);
        assertThat(Summary.format(r)).contains("Leak suspects: not judged: the window had 1 collection that "
                + "examined the whole heap");
    }

    @Test
    void temporaryIsTheChurningSite() {
        Report r = report();
        assertThat(r.temporaries()).extracting(SiteProfile::site).containsExactly("a.Concat.run(Concat.java:20)");
        SiteProfile t = r.temporaries().get(0);
        assertThat(t.allocatedBytes()).isEqualTo(400L * 65536); // p ~ 1 for objects 64x the mean
        assertThat(t.liveBytes()).isZero();
        assertThat(t.medianAgeAtCollectionMs()).isEqualTo(1.0);
        assertThat(t.freedByFirstCollectionShare()).isEqualTo(1.0);
        assertThat(r.topAllocationSites().get(0).site()).isEqualTo("a.Concat.run(Concat.java:20)");
    }

    /**
     * Two native sites outstanding and growing over their second half: a library's few small buffers (+240 B) and a
     * real leak (+160 KiB). Only the second is a suspect: growth under 64 KiB is nothing to act on.
     */
    @Test
    void aNativeSuspectGrewByAtLeast64KiB() {
        Site small = new Site(5, "a.Client", "buffer", "Client.java", 50, Site.NATIVE_DIRECT);
        Site large = new Site(6, "a.Cache", "block", "Cache.java", 60, Site.NATIVE_DIRECT);
        TestRun d = TestRun.create(tmp.resolve("small.msrec"))
                .meta(MetadataKeys.MODE, "sample")
                .meta(MetadataKeys.INTERVAL_BYTES, "1024")
                .meta(MetadataKeys.START_NANOS, "0")
                .meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS))
                .site(small).site(large);
        for (int i = 0; i < 10; i++) {
            d.event(100 * MS + i * 80 * MS, MemoryEventType.ALLOCATE, 0x10000 + i * 0x100, 48, 0, 5);
            d.event(100 * MS + i * 80 * MS + MS, MemoryEventType.ALLOCATE, 0x100000 + i * 0x10000, 32 * 1024, 0, 6);
        }
        Report r = ReportBuilder.build(d.close());
        assertThat(r.nativeMemory().leaks()).extracting(SiteProfile::site)
                .containsExactlyInAnyOrder("a.Client.buffer(Client.java:50)", "a.Cache.block(Cache.java:60)");
        assertThat(r.nativeMemory().leakSuspects()).extracting(SiteProfile::site)
                .containsExactly("a.Cache.block(Cache.java:60)");
    }

    @Test
    void nativeOutstandingAndGcFigures() {
        Report r = report();
        assertThat(r.nativeMemory().outstandingBytes()).isEqualTo(1100);
        assertThat(r.nativeMemory().outstandingBlocks()).isEqualTo(2);
        assertThat(r.nativeMemory().freedBytes()).isEqualTo(500);
        assertThat(r.nativeMemory().peakOutstandingBytes()).isEqualTo(1100);
        assertThat(r.nativeMemory().leaks()).singleElement().satisfies(e -> {
            assertThat(e.site()).isEqualTo("a.Buf.alloc(Buf.java:40)");
            assertThat(e.liveBytes()).isEqualTo(1100);
            assertThat(e.liveObjects()).isEqualTo(2);
            assertThat(e.allocatedBytes()).isEqualTo(1600);
            assertThat(e.peakBytes()).isEqualTo(1100);
        });
        // native peak: 100 + 1000 after the reallocation at 14 ms (600 at 12 ms before)
        assertThat(r.nativeMemory().peak().outstandingBytes()).isEqualTo(1100);
        assertThat(r.nativeMemory().peak().timeMs()).isEqualTo(14.0);
        assertThat(r.nativeMemory().peak().sites()).singleElement().satisfies(h -> {
            assertThat(h.bytes()).isEqualTo(1100);
            assertThat(h.count()).isEqualTo(2);
        });
        assertThat(r.gc().count()).isEqualTo(7);
        assertThat(r.gc().pauseCount()).as("G1 Concurrent GC counts G1's Remark and Cleanup pauses").isEqualTo(7);
        assertThat(r.gc().pauseTotalMs()).isEqualTo(33.0);
        assertThat(r.gc().pauseMaxMs()).isEqualTo(10.0);
        assertThat(r.gc().maxHeapAfterGcBytes()).isEqualTo(300);
    }

    @Test
    void exactModeUsesExactCounts() {
        Report r = ReportBuilder.build(capture("exact").meta(MetadataKeys.MODE, "exact")
                .siteCount(2, 12345, 999_999_999).close());
        assertThat(r.totals().exact()).isTrue();
        assertThat(r.totals().allocatedObjects()).isEqualTo(12345);
        assertThat(r.totals().allocatedBytes()).isEqualTo(999_999_999);
        assertThat(r.topAllocationSites().get(0).allocatedObjects()).isEqualTo(12345);
        // the exact total is spread over the site's stacks and over time, adding up exactly
        assertThat(r.stacks().stream().filter(s -> !s.nativeMemory()).mapToLong(StackProfile::allocatedBytes).sum())
                .isEqualTo(r.totals().allocatedBytes());
        assertThat(r.timeline().buckets().stream().mapToLong(Timeline.Bucket::allocatedBytes).sum())
                .isEqualTo(r.totals().allocatedBytes());
    }

    @Test
    void exactCountsOfAnUnclosedRecordingAreExactAsOfTheirSnapshot() {
        // a JVM killed after a snapshot: the counts as of its time (metadata), no END block
        RecordedRun killed = capture("killed").meta(MetadataKeys.MODE, "exact").siteCount(2, 100, 6400)
                .siteCount(2, 12345, 999_999_999).meta(MetadataKeys.SITE_COUNTS_NANOS, "1250000000").abandon();
        Report r = ReportBuilder.build(killed);
        assertThat(r.totals().exact()).isTrue();
        assertThat(r.totals().allocatedObjects()).as("the last snapshot's").isEqualTo(12345);
        assertThat(r.totals().exactCountsAsOfMs()).isEqualTo((1_250_000_000 - r.window().runStartNanos()) / 1e6);
        assertThat(ReportJson.toJson(r)).containsPattern("\"exactCountsAsOfMs\": 1250[,\\n]");
        assertThat(Summary.format(r)).contains("exact counts as of");

        // closed: the counts are the final totals
        Report closed = ReportBuilder.build(capture("closed").meta(MetadataKeys.MODE, "exact")
                .siteCount(2, 12345, 999_999_999).meta(MetadataKeys.SITE_COUNTS_NANOS, "1250000000").close());
        assertThat(closed.totals().exact()).isTrue();
        assertThat(closed.totals().exactCountsAsOfMs()).isNaN();
        assertThat(ReportJson.toJson(closed)).contains("\"exactCountsAsOfMs\": null,");
        assertThat(Summary.format(closed)).doesNotContain("exact counts as of");

        // unclosed, counts without their time (no writer does that): not named, so not used
        Report unknown = ReportBuilder.build(capture("unknown").meta(MetadataKeys.MODE, "exact")
                .siteCount(2, 12345, 999_999_999).abandon());
        assertThat(unknown.totals().exact()).isFalse();
    }

    @Test
    void emptyCaptureGivesAnEmptyReport() {
        Report r = ReportBuilder.build(TestRun.create(tmp.resolve("empty.msrec")).close());
        assertThat(r.totals().allocatedBytes()).isZero();
        assertThat(r.leakSuspects()).isEmpty();
        assertThat(ReportJson.toJson(r)).contains("\"leakSuspects\": []");
        // a build's short helper JVMs: one line, not a page of empty sections
        assertThat(Summary.format(r)).contains("nothing recorded").doesNotContain("Top allocation sites")
                .hasLineCount(2);
    }

    /** Without a GC in the recording the peak is unknown, and the summary says why without guessing. */
    @Test
    void noGcRecordMeansAnUnknownPeak() {
        Report r = ReportBuilder.build(TestRun.create(tmp.resolve("nogc.msrec")).site(TEMP)
                .alloc(1_000_000, 1, 4096, TEMP.id()).close());
        assertThat(r.peak()).isNull();
        assertThat(Summary.format(r)).contains("Peak: unknown: no collection of the whole heap in the recording")
                .contains("Top allocation sites");
    }

    @Test
    void jsonHasEveryDocumentedFieldAndEscapes() {
        Report report = ReportBuilder.build(capture("c").meta(MetadataKeys.COMMAND, "say \"hi\"\n\\now\u0001")
                .close());
        String json = ReportJson.toJson(report);
        for (String f : List.of("\"format\": \"memscope-report\"", "\"version\": 4", "\"allocatedBytes\"",
                "\"unconfirmedAtEndBytes\"", "\"unconfirmedAtPeakBytes\"", "\"wholeHeapCollections\"",
                "\"heldAsOfMs\"", "\"heapCheck\"", "\"unconfirmedBytes\"", "\"heldSamples\"", "\"growth\"",
                "\"peakUnconfirmedBytes\"", "\"heldAtPeakUnconfirmedBytes\"", "\"examined\": \"whole-heap\"",
                "\"snapshotNanos\"", "\"verdictNanos\"",
                "\"allocatedObjects\"", "\"peakHeldBytes\"", "\"heldAtEndBytes\"", "\"topAllocationSites\"",
                "\"leakSuspects\"", "\"temporaries\"", "\"outstandingBytes\"", "\"leaks\"", "\"pauseTotalMs\"",
                "\"pauseMaxMs\"", "\"count\"", "\"peak\"", "\"heapUsedAfterGcBytes\"", "\"estimatedBytes\"",
                "\"peakBytes\"", "\"timeline\"", "\"heldBytes\"", "\"heapUsedBytes\"", "\"heapCommittedBytes\"",
                "\"nativeOutstandingBytes\"", "\"gcPauseMs\"", "\"topSites\"", "\"window\"")) {
            assertThat(json).contains(f);
        }
        assertThat(json).contains("say \\\"hi\\\"\\n\\\\now\\u0001");
        String summary = Summary.format(report);
        assertThat(summary).contains("Leak suspects").contains("a.Cache.put(Cache.java:10)")
                .contains("Temporaries").contains("a.Concat.run(Concat.java:20)").contains("1.1 KiB outstanding");
    }

    /** Events written up to 800 ms away from time order are put in order: no event is late. */
    @Test
    void eventsOutOfOrderWithinTheWindowAreNotLate() {
        assertThat(report().metadata()).doesNotContainKey("lateEvents");
    }

    /** A recording whose writer was killed (no END block) still reports what its complete blocks hold. */
    @Test
    void anUnclosedRecordingReportsWhatItHoldsAndSaysSo() {
        Report r = ReportBuilder.build(capture("killed").abandon());
        assertThat(r.recording().closed()).isFalse();
        assertThat(r.recording().damage()).contains("without an END block");
        assertThat(r.nativeMemory().outstandingBytes()).isEqualTo(1100);
        assertThat(Summary.format(r)).contains("the recording was not closed");
        assertThat(ReportJson.toJson(r)).contains("\"closed\": false");
        assertThat(report().recording().closed()).isTrue();
        assertThat(report().recording().damage()).isNull();
    }

    @Test
    void lifetimeMedianIsExactForFewSamplesAndWithinThreePercentForMany() {
        LifetimeMedian few = new LifetimeMedian();
        assertThat(few.medianNanos()).isEqualTo(-1);
        for (long v : new long[] {7, 3, 1_000_000_000L, 5}) {
            few.add(v);
        }
        assertThat(few.medianNanos()).isEqualTo(7); // the upper median, as before
        Random rnd = new Random(42);
        LifetimeMedian many = new LifetimeMedian();
        long[] values = new long[200_000];
        for (int i = 0; i < values.length; i++) {
            values[i] = (long) Math.exp(rnd.nextDouble() * 30); // 1 ns .. 10 s, log-uniform
            many.add(values[i]);
        }
        java.util.Arrays.sort(values);
        long exact = values[values.length / 2];
        assertThat((double) many.medianNanos()).isCloseTo(exact, org.assertj.core.data.Percentage.withPercentage(3.2));
        for (long v = 0; v < 5000; v += 7) { // every bucket's middle lies in the bucket
            assertThat(LifetimeMedian.bucket(LifetimeMedian.middle(LifetimeMedian.bucket(v))))
                    .isEqualTo(LifetimeMedian.bucket(v));
        }
        assertThat(LifetimeMedian.bucket(Long.MAX_VALUE)).isLessThan(64 * LifetimeMedian.SUB_BUCKETS);
    }

    /**
     * Per-request buffers that die at once, in a JVM collecting every 500 ms: each is freed by the first collection
     * after it, so its age at collection is the time to that collection (about 250 ms in the median), not its
     * lifetime. The report names the figure for what it is and says they survived no collection; buffers kept over
     * one collection did survive one.
     */
    @Test
    void ageAtCollectionIsNamedForWhatItIsAndTheShareThatSurvivedNoCollectionIsKnown() {
        Site perRequest = new Site(11, "a.Handler", "handle", "Handler.java", 12, "byte[]");
        Site session = new Site(12, "a.Session", "open", "Session.java", 30, "byte[]");
        TestRun d = TestRun.create(tmp.resolve("ages.msrec"))
                .meta(MetadataKeys.MODE, "sample")
                .meta(MetadataKeys.INTERVAL_BYTES, "8192")
                .meta(MetadataKeys.START_NANOS, "0")
                .meta(MetadataKeys.END_NANOS, Long.toString(1100 * MS))
                .site(perRequest).site(session);
        long id = 1;
        List<long[]> dieAt500 = new ArrayList<>();
        List<long[]> dieAt1000 = new ArrayList<>();
        for (long t = 5 * MS; t < 1000 * MS; t += 10 * MS) {
            long sid = id++;
            d.alloc(t, sid, 8192, 11);
            (t < 500 * MS ? dieAt500 : dieAt1000).add(new long[] {t, sid, 11});
            if (t < 300 * MS && t % (50 * MS) == 5 * MS) {
                long kept = id++;
                d.alloc(t, kept, 8192, 12);
                dieAt1000.add(new long[] {t, kept, 12}); // survives the collection at 500 ms
            }
        }
        d.gc(new GcRecord(500 * MS, 2 * MS, "G1 Young Generation", "G1 Evacuation Pause", 100, 50, 200,
                "end of minor GC"));
        d.gc(new GcRecord(1000 * MS, 2 * MS, "G1 Young Generation", "G1 Evacuation Pause", 100, 50, 200,
                "end of minor GC"));
        for (long[] x : dieAt500) {
            d.free(502 * MS, x[1], 8192, 502 * MS - x[0], (int) x[2]);
        }
        for (long[] x : dieAt1000) {
            d.free(1002 * MS, x[1], 8192, 1002 * MS - x[0], (int) x[2]);
        }
        Report r = ReportBuilder.build(d.close());
        SiteProfile handler = r.sites().stream().filter(s -> s.site().startsWith("a.Handler")).findFirst().orElseThrow();
        SiteProfile sessions = r.sites().stream().filter(s -> s.site().startsWith("a.Session")).findFirst()
                .orElseThrow();
        assertThat(handler.freedByFirstCollectionShare()).as("every buffer died before the first GC after it")
                .isEqualTo(1.0);
        assertThat(handler.medianAgeAtCollectionMs()).as("the time to the next collection, not a lifetime")
                .isBetween(200.0, 300.0);
        assertThat(sessions.freedByFirstCollectionShare()).as("kept over the collection at 500 ms").isEqualTo(0.0);
        String json = ReportJson.toJson(r);
        assertThat(json).contains("\"medianAgeAtCollectionMs\"").contains("\"freedByFirstCollectionShare\": 1");
    }
}
