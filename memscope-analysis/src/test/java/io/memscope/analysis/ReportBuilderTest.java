package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
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

    private static MemoryEvent ev(long t, MemoryEventType type, long address, long size, long prev, int site) {
        return new MemoryEvent(t, type, address, size, prev, 1, null, null, null, 0, site);
    }

    private static CaptureData capture() {
        CaptureData d = new CaptureData()
                .putMetadata(CaptureData.MODE, "sample")
                .putMetadata(CaptureData.INTERVAL_BYTES, "1024")
                .putMetadata(CaptureData.START_NANOS, "0")
                .putMetadata(CaptureData.END_NANOS, Long.toString(1000 * MS))
                .addSite(LEAK).addSite(TEMP).addSite(STARTUP).addSite(NATIVE);
        long id = 1;
        // Startup: 10 big samples in the first millisecond, all still alive: not growing over the run.
        for (int i = 0; i < 10; i++) {
            d.addEvent(ev(i * 1000, MemoryEventType.ALLOCATE, id++, 1 << 20, 0, 3));
        }
        // Leak: one sample every 10 ms from 100 ms to 900 ms, never collected.
        for (int i = 0; i < 80; i++) {
            d.addEvent(ev(100 * MS + i * 10 * MS, MemoryEventType.ALLOCATE, id++, 4096, 0, 1));
        }
        // Temporaries: 400 samples, each collected 1 ms later.
        for (int i = 0; i < 400; i++) {
            long t = 100 * MS + i * 2 * MS;
            long sid = id++;
            d.addEvent(ev(t, MemoryEventType.ALLOCATE, sid, 65536, 0, 2));
            d.addEvent(ev(t + MS, MemoryEventType.DEALLOCATE, sid, 65536, MS, 2));
        }
        // Native: 3 blocks, one freed, one reallocated (free old + realloc new).
        d.addEvent(ev(10 * MS, MemoryEventType.ALLOCATE, 0x1000, 100, 0, 4));
        d.addEvent(ev(11 * MS, MemoryEventType.ALLOCATE, 0x2000, 200, 0, 4));
        d.addEvent(ev(12 * MS, MemoryEventType.ALLOCATE, 0x3000, 300, 0, 4));
        d.addEvent(ev(13 * MS, MemoryEventType.DEALLOCATE, 0x2000, 200, 0, 4));
        d.addEvent(ev(14 * MS, MemoryEventType.DEALLOCATE, 0x3000, 300, 0, 4));
        d.addEvent(ev(14 * MS, MemoryEventType.REALLOCATE, 0x4000, 1000, 300, 4));
        d.addGc(new GcRecord(5 * MS, 3 * MS, "G1 Young Generation", "end of minor GC", "G1 Evacuation Pause", 100,
                50, 200));
        d.addGc(new GcRecord(6 * MS, 7 * MS, "G1 Concurrent GC", "end of concurrent GC cycle", "x", 0, 0, 0));
        d.addGc(new GcRecord(9 * MS, 5 * MS, "G1 Old Generation", "end of major GC", "System.gc()", 100, 70, 200));
        return d;
    }

    @Test
    void leakSuspectIsTheGrowingSiteNotTheStartupTable() {
        Report r = ReportBuilder.build(capture());
        assertThat(r.leakSuspects()).extracting(Report.SiteEntry::site).containsExactly("a.Cache.put(Cache.java:10)");
        assertThat(r.topLiveSites()).extracting(Report.SiteEntry::site)
                .containsExactly("a.Main.init(Main.java:30)", "a.Cache.put(Cache.java:10)");
        Report.SiteEntry leak = r.leakSuspects().get(0);
        // p(4096 bytes at mean 1024) = 1 - e^-4: each sample weighs 4096 / p bytes.
        double w = 4096 / -Math.expm1(-4.0);
        assertThat(leak.bytes()).isEqualTo(Math.round(80 * w));
        assertThat(leak.growthBytes()).isBetween(Math.round(35 * w), Math.round(45 * w));
    }

    @Test
    void temporaryIsTheChurningSite() {
        Report r = ReportBuilder.build(capture());
        assertThat(r.temporaries()).extracting(Report.SiteEntry::site).containsExactly("a.Concat.run(Concat.java:20)");
        Report.SiteEntry t = r.temporaries().get(0);
        assertThat(t.bytes()).isEqualTo(400L * 65536); // p ~ 1 for objects 64x the mean
        assertThat(t.liveBytes()).isZero();
        assertThat(t.medianLifetimeMs()).isEqualTo(1.0);
        assertThat(r.topAllocationSites().get(0).site()).isEqualTo("a.Concat.run(Concat.java:20)");
    }

    @Test
    void nativeOutstandingAndGcFigures() {
        Report r = ReportBuilder.build(capture());
        assertThat(r.nativeMemory().outstandingBytes()).isEqualTo(1100);
        assertThat(r.nativeMemory().outstandingBlocks()).isEqualTo(2);
        assertThat(r.nativeMemory().freedBytes()).isEqualTo(500);
        assertThat(r.nativeMemory().peakOutstandingBytes()).isEqualTo(1100);
        assertThat(r.nativeMemory().leaks()).singleElement().satisfies(e -> {
            assertThat(e.site()).isEqualTo("a.Buf.alloc(Buf.java:40)");
            assertThat(e.bytes()).isEqualTo(1100);
            assertThat(e.count()).isEqualTo(2);
        });
        assertThat(r.gc().count()).isEqualTo(3);
        assertThat(r.gc().pauseCount()).isEqualTo(2);
        assertThat(r.gc().pauseTotalMs()).isEqualTo(8.0);
        assertThat(r.gc().pauseMaxMs()).isEqualTo(5.0);
        assertThat(r.gc().maxHeapAfterGcBytes()).isEqualTo(70);
    }

    @Test
    void exactModeUsesExactCounts() {
        CaptureData d = capture().putMetadata(CaptureData.MODE, "exact").addExactCount(2, 12345, 999_999_999);
        Report r = ReportBuilder.build(d);
        assertThat(r.totals().exact()).isTrue();
        assertThat(r.totals().allocatedObjects()).isEqualTo(12345);
        assertThat(r.totals().allocatedBytes()).isEqualTo(999_999_999);
        assertThat(r.topAllocationSites().get(0).count()).isEqualTo(12345);
    }

    @Test
    void emptyCaptureGivesAnEmptyReport() {
        Report r = ReportBuilder.build(new CaptureData());
        assertThat(r.totals().allocatedBytes()).isZero();
        assertThat(r.leakSuspects()).isEmpty();
        assertThat(ReportJson.toJson(r)).contains("\"leakSuspects\": []");
    }

    @Test
    void jsonHasEveryDocumentedFieldAndEscapes() {
        CaptureData d = capture().putMetadata(CaptureData.COMMAND, "say \"hi\"\n\\now\u0001");
        String json = ReportJson.toJson(ReportBuilder.build(d));
        for (String f : List.of("\"format\": \"memscope-report\"", "\"version\": 1", "\"allocatedBytes\"",
                "\"allocatedObjects\"", "\"peakLiveBytes\"", "\"liveBytesAtEnd\"", "\"topAllocationSites\"",
                "\"leakSuspects\"", "\"temporaries\"", "\"outstandingBytes\"", "\"leaks\"", "\"pauseTotalMs\"",
                "\"pauseMaxMs\"", "\"count\"")) {
            assertThat(json).contains(f);
        }
        assertThat(json).contains("say \\\"hi\\\"\\n\\\\now\\u0001");
        String summary = Summary.format(ReportBuilder.build(d));
        assertThat(summary).contains("Leak suspects").contains("a.Cache.put(Cache.java:10)")
                .contains("Temporaries").contains("a.Concat.run(Concat.java:20)").contains("1.1 KiB outstanding");
    }

    /**
     * The agent's report at exit and {@code memscope report} stream the events from the recording (never all in
     * memory): the file is written here in the capture's insertion order, up to 800 ms away from time order, and the
     * report equals the one built from the events in memory.
     */
    @Test
    void aReportStreamedFromTheRecordingEqualsTheOneFromMemory(@TempDir Path tmp) {
        CaptureData memory = capture();
        Path file = tmp.resolve("r.msrec");
        Recordings.write(memory, file, 0);
        List<String> damage = new ArrayList<>();
        CaptureData streamed = Recordings.open(file, d -> damage.add(d.toString()));
        assertThat(damage).isEmpty();
        assertThat(streamed.events()).isEmpty(); // not held
        Report a = ReportBuilder.build(memory);
        Report b = ReportBuilder.build(streamed);
        assertThat(b.totals()).isEqualTo(a.totals());
        assertThat(b.topAllocationSites()).isEqualTo(a.topAllocationSites());
        assertThat(b.topLiveSites()).isEqualTo(a.topLiveSites());
        assertThat(b.leakSuspects()).isEqualTo(a.leakSuspects());
        assertThat(b.temporaries()).isEqualTo(a.temporaries());
        assertThat(b.nativeMemory().leaks()).isEqualTo(a.nativeMemory().leaks());
        assertThat(b.nativeMemory().outstandingBytes()).isEqualTo(a.nativeMemory().outstandingBytes());
        assertThat(b.metadata()).doesNotContainKey("lateEvents");
    }

    @Test
    void timeOrderSortsWithinItsWindowAndCountsWhatCameLater() {
        List<Long> out = new ArrayList<>();
        TimeOrder order = new TimeOrder(100, e -> out.add(e.timestampNanos()));
        long[] in = {10, 5, 60, 30, 150, 120, 90, 400, 20, 390, 500};
        for (long t : in) {
            order.add(ev(t, MemoryEventType.ALLOCATE, t, 1, 0, 1));
        }
        order.finish();
        // 20 arrives after 400 released everything up to 300: out of order, passed on at once and counted
        assertThat(order.late()).isEqualTo(1);
        assertThat(out).containsExactly(5L, 10L, 30L, 60L, 90L, 120L, 150L, 20L, 390L, 400L, 500L);
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
}
