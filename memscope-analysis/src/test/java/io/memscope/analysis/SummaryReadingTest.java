package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.launch.MetadataKeys;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Site;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a new user reading the summary must not misread, found running memscope on real libraries: a held peak
 * judged only by the end check (after main returned, a parsed JSON tree or a cache local to main is garbage), the
 * figures of an attached capture (objects older than the attach are not seen), a native total without malloc, and
 * the timeline's sparklines (one line each, with the run's length). Samples of 1 MiB at a mean interval of 1 KiB
 * weigh their own size.
 */
class SummaryReadingTest {
    private static final long MS = 1_000_000L;
    private static final long MIB = 1 << 20;
    private static final Site TREE = new Site(1, "a.Parse", "readTree", "Parse.java", 7, "byte[]");

    @TempDir
    Path tmp;

    /**
     * 20 MiB held by main from 10 ms to the end of main at 900 ms, seen by two young collections; the only
     * whole-heap collection is the end check at 950 ms, when main's locals are gone.
     */
    private TestRun run(String name, GcRecord... before) {
        TestRun d = TestRun.create(tmp.resolve(name + ".msrec"))
                .meta(MetadataKeys.MODE, "sample").meta(MetadataKeys.INTERVAL_BYTES, "1024")
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS))
                .site(TREE);
        for (int i = 0; i < 20; i++) {
            d.alloc((10 + i) * MS, 100 + i, MIB, 1);
        }
        for (int i = 0; i < 20; i++) {
            d.free(952 * MS, 100 + i, MIB, (940 - i) * MS, 1);
        }
        // what each examined, as the agent records it
        d.gc(young(200));
        d.gc(young(600));
        for (GcRecord g : before) {
            d.gc(g);
        }
        d.gc(new GcRecord(950 * MS, 5 * MS, "G1 Old Generation", "System.gc()", 30 * MIB, 3 * MIB, 64 * MIB,
                "end of major GC").withExamined(GcRecord.Examined.WHOLE_HEAP, 950 * MS, 950 * MS));
        return d;
    }

    private static GcRecord young(long ms) {
        return new GcRecord(ms * MS, MS, "G1 Young Generation", "G1 Evacuation Pause", 40 * MIB, 24 * MIB, 64 * MIB,
                "end of minor GC").withExamined(GcRecord.Examined.YOUNG, ms * MS, ms * MS);
    }

    @Test
    void aHeldPeakJudgedOnlyAtTheEndSaysWhatSurvivedBefore() {
        TestRun d = run("end-only");
        d.close();
        Report r = ReportBuilder.build(d.file());
        assertThat(r.totals().wholeHeapCollections()).isEqualTo(1);
        assertThat(r.totals().peakHeldBytes()).isZero();
        String s = Summary.format(r);
        assertThat(s).contains("! held memory is judged only at collections that examined the whole heap, and this "
                + "run had one (at 0.95 s): the held peak misses what the program held before; at 0.2 s 20.0 MiB "
                + "survived young collections (held or garbage, unknown)");
    }

    /**
     * G1's Remark on JDK 17 examines the whole heap but no GarbageCollectorMXBean reports it, so it has no heap
     * figures: the peak is still the Remark, where the 20 MiB were held (a peak is memory really held), not the end
     * check after which the JVM reported more heap in use; its holders are the Remark's, and no note says the peak
     * missed anything.
     */
    @Test
    void aMarkingCycleWithoutHeapFiguresThatHeldTheMostIsThePeak() {
        TestRun d = run("remark", new GcRecord(800 * MS, MS, "G1 Remark", null, 0, 0, 0, null)
                .withExamined(GcRecord.Examined.WHOLE_HEAP, 800 * MS, 800 * MS));
        d.close();
        Report r = ReportBuilder.build(d.file());
        assertThat(r.totals().wholeHeapCollections()).isEqualTo(2);
        assertThat(r.peak().timeMs()).isEqualTo(800.0);
        assertThat(r.peak().gcName()).isEqualTo("G1 Remark");
        assertThat(r.peak().heapUsedAfterGcBytes()).as("the Remark has no heap figures").isZero();
        assertThat(r.peak().estimatedBytes()).isEqualTo(20 * MIB);
        assertThat(r.totals().peakHeldBytes()).isEqualTo(20 * MIB);
        assertThat(r.peak().sites()).singleElement().satisfies(h -> {
            assertThat(h.site()).isEqualTo("a.Parse.readTree(Parse.java:7)");
            assertThat(h.bytes()).isEqualTo(20 * MIB);
            assertThat(h.samples()).isEqualTo(20);
        });
        assertThat(r.sites()).filteredOn(p -> p.site().equals("a.Parse.readTree(Parse.java:7)")).singleElement()
                .satisfies(p -> assertThat(p.heldAtPeakBytes()).isEqualTo(20 * MIB));
        assertThat(r.stacks()).as("the stacks' ledger took the same peak")
                .extracting(StackProfile::heldAtPeakBytes).containsExactly(20 * MIB);
        assertThat(r.totals().heldAtEndBytes()).isZero();
        String s = Summary.format(r);
        assertThat(s).contains("Peak: at 0.80 s, after G1 Remark");
        assertThat(s).doesNotContain("found more held than the peak").doesNotContain("held peak misses");
        assertThat(io.memscope.analysis.html.ReportPageData.heldNotes(r)).noneMatch(n -> n.contains("than the peak"));
    }

    /**
     * The agent's own heap beside the heap in use at the peak: with the out-of-memory reserves (8 MiB of 12) while
     * the capture ran, without them at a peak after the capture let them go (the end check's collection).
     */
    @Test
    void theAgentsReservesCountOnlyAtAPeakBeforeTheyWereLetGo() {
        for (boolean before : new boolean[] {true, false}) {
            TestRun d = before ? run("reserves-held", new GcRecord(800 * MS, MS, "G1 Old Generation", "System.gc()",
                    40 * MIB, 25 * MIB, 64 * MIB, "end of major GC")
                    .withExamined(GcRecord.Examined.WHOLE_HEAP, 800 * MS, 800 * MS)) : run("reserves-gone");
            d.meta(MetadataKeys.AGENT_HEAP_BYTES, Long.toString(12 * MIB))
                    .meta(MetadataKeys.AGENT_RESERVE_BYTES, Long.toString(8 * MIB))
                    .meta(MetadataKeys.AGENT_RESERVES_RELEASED_NANOS, Long.toString(940 * MS));
            d.close();
            Report r = ReportBuilder.build(d.file());
            assertThat(r.peak().timeMs()).isEqualTo(before ? 800.0 : 950.0);
            assertThat(Summary.format(r)).as("peak before the reserves went: " + before)
                    .contains("in use (memscope's own tables about " + (before ? "12.0" : "4.0") + " MiB of it)");
        }
    }

    /** A restricted window starting after the Remark: the peak is chosen among the window's collections only. */
    @Test
    void aWindowsPeakIsAmongItsOwnWholeHeapCollections() {
        TestRun d = run("remark-window", new GcRecord(800 * MS, MS, "G1 Remark", null, 0, 0, 0, null)
                .withExamined(GcRecord.Examined.WHOLE_HEAP, 800 * MS, 800 * MS));
        d.close();
        Report r = ReportBuilder.build(d.file(), new TimeWindow(0.9, null));
        assertThat(r.peak().timeMs()).isEqualTo(950.0);
        assertThat(r.totals().peakHeldBytes()).isZero();
    }

    @Test
    void aWindowWithoutWholeHeapCollectionSaysSoOfTheWindow() {
        TestRun d = run("window");
        d.close();
        String s = Summary.format(ReportBuilder.build(d.file(), new TimeWindow(0.1, 0.7)));
        assertThat(s).contains("Peak: unknown: no collection of the whole heap in the window");
        assertThat(s).contains("! held memory is judged only at collections that examined the whole heap, and this "
                + "window had none; at 0.2 s 20.0 MiB survived young collections");
    }

    @Test
    void noWarningWhenSeveralWholeHeapCollectionsJudgedIt() {
        TestRun d = run("judged", new GcRecord(700 * MS, 5 * MS, "G1 Old Generation", "G1 Compaction Pause",
                30 * MIB, 22 * MIB, 64 * MIB, "end of major GC").withExamined(GcRecord.Examined.WHOLE_HEAP, 700 * MS,
                700 * MS));
        d.close();
        Report r = ReportBuilder.build(d.file());
        assertThat(r.totals().peakHeldBytes()).isEqualTo(20 * MIB);
        assertThat(Summary.format(r)).doesNotContain("held peak misses");
    }

    @Test
    void anAttachedCaptureSaysOlderObjectsAreNotSeen() {
        TestRun d = run("attached").meta("attached", "true");
        d.close();
        assertThat(Summary.format(ReportBuilder.build(d.file()))).contains("attached to a running JVM: only what was "
                + "allocated after the attach is seen");
        TestRun own = run("started");
        own.close();
        assertThat(Summary.format(ReportBuilder.build(own.file()))).doesNotContain("attached to a running JVM");
    }

    @Test
    void theNativeLineSaysWhatItCoversWithoutMalloc() {
        TestRun d = run("native");
        d.close();
        assertThat(Summary.format(ReportBuilder.build(d.file()))).contains("Native memory (direct buffers, Unsafe, "
                + "FFM arenas; malloc by native libraries not sampled: --malloc): ");
    }

    @Test
    void theSparklinesTakeOneLineEachWithTheRunsLength() {
        TestRun d = run("spark");
        d.close();
        String s = Summary.format(ReportBuilder.build(d.file()));
        assertThat(s).containsPattern("(?m)^  over time \\(0 \\.\\. 1\\.0 s; 0 \\.\\. [0-9.]+ MiB\\):$");
        assertThat(s).containsPattern("(?m)^    heap after GC  [\u2581-\u2588 ]+$");
        assertThat(s).containsPattern("(?m)^    held           [\u2581-\u2588 ]*$");
        assertThat(s).containsPattern("(?m)^    unconfirmed    [\u2581-\u2588 ]+$");
    }
}
