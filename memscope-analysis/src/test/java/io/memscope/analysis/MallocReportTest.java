package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Recording.ProcessMemorySamples;
import io.memscope.recording.Site;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native malloc in the report: malloc events are samples, weighed as heap samples are; the malloc leak rule; the
 * {@code native.malloc} section of report.json. Recordings are written here the way the agent writes them: sampled
 * ALLOCATE/DEALLOCATE events of {@code native:malloc} sites, stacks with native frames innermost, metadata
 * {@code malloc.intervalBytes}.
 */
class MallocReportTest {
    private static final long MS = 1_000_000L;
    private static final Site UNZIP = new Site(1, "com.acme.Unzipper", "open", "Unzipper.java", 12, Site.NATIVE_MALLOC);
    private static final Site CHURN = new Site(2, "com.acme.Codec", "roundTrip", "Codec.java", 30,
            Site.NATIVE_MALLOC);
    private static final Site PURE_NATIVE = new Site(3, "libfoo.so", "foo_ctx_new", Site.NATIVE_FUNCTION_FILE, 0,
            Site.NATIVE_MALLOC);
    private static final String[] UNZIP_STACK = {"libz.so.1!inflateInit2_", "libzip.so+0x1a2b",
        "java.util.zip.Inflater.init(Native Method)", "java.util.zip.Inflater.<init>(Inflater.java:105)",
        "com.acme.Unzipper.open(Unzipper.java:12)"};

    @TempDir
    Path dir;
    private Report leakReport;

    /**
     * pprof export, decoded by protobuf-java: the native_* sample types add up to the native section's figures,
     * malloc's estimates included, and a malloc stack starts at its native frame.
     */
    @Test
    void pprofHasNativeSampleTypesWithMallocStacks() throws Exception {
        leakingSiteIsSuspectChurningSiteIsNot();
        Report r = leakReport;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        io.memscope.analysis.export.PprofProfile.write(r, io.memscope.analysis.export.ExportMetric.NATIVE_BYTES,
                512 * 1024, 0, out);
        var p = io.memscope.analysis.export.pprof.ProfileProto.Profile.parseFrom(new java.util.zip.GZIPInputStream(
                new java.io.ByteArrayInputStream(out.toByteArray())));
        List<String> types = p.getSampleTypeList().stream().map(st -> p.getStringTable((int) st.getType())).toList();
        assertThat(types).contains("native_alloc_objects", "native_alloc_space", "native_inuse_objects",
                "native_inuse_space");
        assertThat(p.getStringTable((int) p.getDefaultSampleType())).isEqualTo("native_inuse_space");
        int inuse = types.indexOf("native_inuse_space");
        int alloc = types.indexOf("native_alloc_space");
        long inuseSum = 0;
        long allocSum = 0;
        boolean nativeLeaf = false;
        for (var s : p.getSampleList()) {
            inuseSum += s.getValue(inuse);
            allocSum += s.getValue(alloc);
            var leaf = p.getLocation((int) s.getLocationId(0) - 1);
            String fn = p.getStringTable((int) p.getFunction((int) leaf.getLine(0).getFunctionId() - 1).getName());
            if (fn.equals("libz.so.1!inflateInit2_") && s.getValue(inuse) > 0) {
                nativeLeaf = true;
            }
        }
        assertThat(inuseSum).isEqualTo(r.nativeMemory().outstandingBytes());
        assertThat(allocSum).isEqualTo(r.nativeMemory().allocatedBytes());
        assertThat(nativeLeaf).isTrue();

        java.io.StringWriter collapsed = new java.io.StringWriter();
        io.memscope.analysis.export.CollapsedStacks.write(r, io.memscope.analysis.export.ExportMetric.NATIVE_BYTES,
                collapsed);
        assertThat(collapsed.toString()).contains("com.acme.Unzipper.open(Unzipper.java:12);"
                + "java.util.zip.Inflater.<init>(Inflater.java:105);java.util.zip.Inflater.init(Native Method);"
                + "libzip.so+0x1a2b;libz.so.1!inflateInit2_;native:malloc ");
        assertThat(collapsed.toString().lines().mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1)))
                .sum()).isEqualTo(r.nativeMemory().outstandingBytes());
    }

    /**
     * 10,000 mallocs of random sizes, sampled with the agent's rule (a countdown of bytes drawn from an exponential
     * of mean {@code interval}: a Poisson process over the bytes allocated), 70% freed later: the estimates of
     * allocated and outstanding bytes are within 4 standard errors ({@link SamplingNoise#variance}) of the truth.
     */
    @Test
    void weightsEstimateTheTruthWithinFourStandardErrors() {
        long interval = 16 * 1024;
        SplittableRandom rnd = new SplittableRandom(20261127);
        TestRun t = TestRun.create(dir.resolve("weights.msr")).site(UNZIP).stack(100, UNZIP_STACK)
                .meta(MetadataKeys.MALLOC_INTERVAL_BYTES, Long.toString(interval))
                .meta(MetadataKeys.START_NANOS, "0");
        double countdown = -interval * Math.log(1 - rnd.nextDouble());
        long trueAllocated = 0;
        long trueOutstanding = 0;
        long samples = 0;
        int n = 10_000;
        long[] sampledAt = new long[n];
        long[] sizes = new long[n];
        for (int i = 0; i < n; i++) {
            long size = 16 + rnd.nextInt(32 * 1024);
            sizes[i] = size;
            trueAllocated += size;
            boolean freed = i % 10 < 7;
            if (!freed) {
                trueOutstanding += size;
            }
            countdown -= size;
            if (countdown <= 0) {
                countdown = -interval * Math.log(1 - rnd.nextDouble());
                samples++;
                sampledAt[i] = 1;
                t.event(i * 100_000L, MemoryEventType.ALLOCATE, 0x10_0000L + i * 64L, size, 0, 1, 100, null);
            }
        }
        // the frees of the sampled blocks that were freed, after every allocation
        for (int i = 0; i < n; i++) {
            if (sampledAt[i] == 1 && i % 10 < 7) {
                t.event(n * 100_000L + i, MemoryEventType.DEALLOCATE, 0x10_0000L + i * 64L, sizes[i], 0, 1, 100,
                        null);
            }
        }
        Report r = ReportBuilder.build(t.close());

        Report.Malloc m = r.nativeMemory().malloc();
        assertThat(m).isNotNull();
        assertThat(m.intervalBytes()).isEqualTo(interval);
        assertThat(m.samples()).isEqualTo(samples);
        assertThat((double) m.allocatedBytes())
                .isCloseTo(trueAllocated, org.assertj.core.data.Offset.offset(
                        4 * Math.sqrt(SamplingNoise.variance(trueAllocated, interval))));
        assertThat((double) m.outstandingBytes())
                .isCloseTo(trueOutstanding, org.assertj.core.data.Offset.offset(
                        4 * Math.sqrt(SamplingNoise.variance(trueOutstanding, interval))));
        // an unweighted sum would be far off: the sampled bytes are a fraction of the truth
        assertThat(samples).isLessThan(n);
        SiteProfile site = r.nativeMemory().leaks().get(0);
        assertThat(site.type()).isEqualTo(Site.NATIVE_MALLOC);
        assertThat(site.liveBytes()).isEqualTo(m.outstandingBytes());
        assertThat(site.samples()).isEqualTo(samples);
        assertThat(site.liveSamples()).isEqualTo(m.outstandingSamples()).isPositive();
        assertThat(site.allocatedObjects()).isCloseTo(n, org.assertj.core.data.Offset.offset(n / 10L));
        assertThat(site.nativeFrames()).containsExactly("libz.so.1!inflateInit2_", "libzip.so+0x1a2b");
        // the native totals include the malloc estimates
        assertThat(r.nativeMemory().outstandingBytes()).isEqualTo(m.outstandingBytes());
    }

    /**
     * async-profiler's nativemem sampling, a byte counter (the call that takes it past the interval is recorded, the
     * counter keeps the remainder): a block of s bytes weighs max(s, interval); at interval 0 every call is recorded
     * and the figures are exact.
     */
    @Test
    void counterSamplingAsAsyncProfilersNativememEstimatesTheTruth() {
        for (long interval : new long[] {0, 16 * 1024}) {
            SplittableRandom rnd = new SplittableRandom(20261128);
            TestRun t = TestRun.create(dir.resolve("counter-" + interval + ".msr")).site(UNZIP)
                    .stack(100, UNZIP_STACK)
                    .meta(MetadataKeys.MALLOC_INTERVAL_BYTES, Long.toString(interval))
                    .meta(MetadataKeys.MALLOC_SAMPLING, "counter")
                    .meta(MetadataKeys.START_NANOS, "0");
            long counter = 0;
            long trueAllocated = 0;
            long trueOutstanding = 0;
            long samples = 0;
            int n = 10_000;
            for (int i = 0; i < n; i++) {
                long size = 16 + rnd.nextInt(32 * 1024);
                trueAllocated += size;
                boolean kept = i % 10 >= 7;
                counter += size;
                if (interval <= 1 || counter >= interval) {
                    counter = interval <= 1 ? 0 : counter % interval;
                    samples++;
                    long address = 0x10_0000L + i * 64L;
                    t.event(i * 100_000L, MemoryEventType.ALLOCATE, address, size, 0, 1, 100, null);
                    if (!kept) {
                        t.event(i * 100_000L + 50_000, MemoryEventType.DEALLOCATE, address, size, 0, 1, 100, null);
                    }
                }
                trueOutstanding += kept ? size : 0;
            }
            Report.Malloc m = ReportBuilder.build(t.close()).nativeMemory().malloc();
            assertThat(m.sampling()).isEqualTo("counter");
            assertThat(m.intervalBytes()).isEqualTo(interval);
            assertThat(m.samples()).isEqualTo(samples);
            if (interval == 0) {
                assertThat(samples).isEqualTo(n);
                assertThat(m.allocatedBytes()).isEqualTo(trueAllocated);
                assertThat(m.outstandingBytes()).isEqualTo(trueOutstanding);
            } else {
                assertThat(samples).isLessThan(n);
                assertThat((double) m.allocatedBytes()).isCloseTo(trueAllocated, org.assertj.core.data.Offset.offset(
                        4 * Math.sqrt(SamplingNoise.variance(trueAllocated, interval))));
                assertThat((double) m.outstandingBytes()).isCloseTo(trueOutstanding,
                        org.assertj.core.data.Offset.offset(
                                4 * Math.sqrt(SamplingNoise.variance(trueOutstanding, interval))));
            }
        }
    }

    /**
     * A site that mallocs and never frees over the run is a leak suspect; one that mallocs and frees 5 ms later in
     * a loop is not, though a few of its blocks are outstanding at the end (the window's youngest part).
     */
    @Test
    void leakingSiteIsSuspectChurningSiteIsNot() {
        long interval = 4096;
        TestRun t = TestRun.create(dir.resolve("leak.msr")).site(UNZIP).site(CHURN).site(PURE_NATIVE)
                .stack(100, UNZIP_STACK)
                .stack(200, "libz.so.1!deflateInit2_", "java.util.zip.Deflater.init(Native Method)",
                        "com.acme.Codec.roundTrip(Codec.java:30)")
                .stack(300, "libfoo.so!foo_ctx_new", "libfoo.so!foo_open")
                .meta(MetadataKeys.MALLOC_INTERVAL_BYTES, Long.toString(interval))
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(10_000 * MS))
                .meta(MetadataKeys.MALLOC_SELF_TEST, "passed")
                .meta(MetadataKeys.MALLOC_PATCHED_LIBRARIES, "7")
                .meta(MetadataKeys.MALLOC_SKIPPED_LIBRARIES, "3")
                .meta(MetadataKeys.MALLOC_DROPPED, "0");
        long addr = 0x7f00_0000_0000L;
        for (int i = 0; i < 1000; i++) {
            long time = i * 10 * MS;
            // the leak: a 7 KiB state per 10 ms, all sampled (p is about 0.83 at this size: weight 1.2x)
            t.event(time, MemoryEventType.ALLOCATE, addr + i * 0x10000L, 7 * 1024, 0, 1, 100, null);
            // the churn: 64 KiB freed 5 ms later
            t.event(time + 1, MemoryEventType.ALLOCATE, addr + 0x1_0000_0000L + i * 0x10000L, 64 * 1024, 0, 2, 200,
                    null);
            t.event(time + 5 * MS, MemoryEventType.DEALLOCATE, addr + 0x1_0000_0000L + i * 0x10000L, 64 * 1024, 0,
                    2, 200, null);
        }
        // the churn's last blocks, in flight at the end
        for (int i = 0; i < 3; i++) {
            t.event(9_999 * MS + i, MemoryEventType.ALLOCATE, addr + 0x2_0000_0000L + i * 0x10000L, 64 * 1024, 0, 2,
                    200, null);
        }
        t.event(100 * MS, MemoryEventType.ALLOCATE, addr + 0x3_0000_0000L, 100, 0, 3, 300, null);
        Report r = ReportBuilder.build(t.close());
        leakReport = r;

        assertThat(r.nativeMemory().leakSuspects()).extracting(SiteProfile::site)
                .containsExactly("com.acme.Unzipper.open(Unzipper.java:12)");
        SiteProfile churn = r.nativeMemory().leaks().stream().filter(p -> p.site().contains("Codec")).findFirst()
                .orElseThrow();
        assertThat(churn.liveBytes()).isPositive(); // outstanding, but young
        assertThat(churn.leakSuspect()).isFalse();
        assertThat(churn.allocatedBytes()).isGreaterThan(1000L * 64 * 1024);
        assertThat(r.nativeMemory().leaks()).extracting(SiteProfile::site).contains("libfoo.so!foo_ctx_new");

        String json = json(r);
        assertThat(json).contains("\"malloc\":{\"intervalBytes\":4096,\"sampling\":\"poisson\",\"samples\":2004")
                .contains("\"nativeFrames\":[\"libz.so.1!inflateInit2_\",\"libzip.so+0x1a2b\"]")
                .contains("\"atRssPeakOf\":\"native\"")
                .contains("\"coverage\":{\"selfTest\":\"passed\",\"patchedLibraries\":7,\"skippedLibraries\":3,"
                        + "\"off\":null,\"dropped\":0,\"untracked\":-1,\"javaStackNotWalkable\":-1,"
                        + "\"noJavaStack\":{}}");
        assertThat(Summary.format(r)).contains("LEAK SUSPECT").contains("com.acme.Unzipper.open(Unzipper.java:12)");
    }

    /**
     * Samples without Java frames (metadata {@code malloc.noJavaStack.<cause>}): the summary says how many, the
     * anomalies (a Java stack AsyncGetCallTrace could not walk) apart from threads without Java frames, and report.json
     * has the counts; a run where every sample had its Java stack says nothing of it.
     */
    @Test
    void samplesWithoutAJavaStackAreCountedByCause() {
        TestRun t = TestRun.create(dir.resolve("unwalked.msr")).site(UNZIP).stack(100, UNZIP_STACK)
                .meta(MetadataKeys.MALLOC_INTERVAL_BYTES, "1")
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS))
                .meta(MetadataKeys.MALLOC_JAVA_STACK_NOT_WALKABLE, "7")
                .meta(MetadataKeys.MALLOC_NO_JAVA_STACK_PREFIX + "notWalkableNotInJava", "5")
                .meta(MetadataKeys.MALLOC_NO_JAVA_STACK_PREFIX + "gcActive", "2")
                .meta(MetadataKeys.MALLOC_NO_JAVA_STACK_PREFIX + "noJavaFrames", "3");
        for (int i = 0; i < 20; i++) {
            t.event(i * MS, MemoryEventType.ALLOCATE, 0x1000 + i * 0x100, 1000, 0, 1, 100, null);
        }
        Report r = ReportBuilder.build(t.close());
        assertThat(r.nativeMemory().malloc().coverage().javaStackNotWalkable()).isEqualTo(7);
        assertThat(Summary.format(r)).contains("    10 malloc samples had no Java stack: 7 whose Java stack could "
                + "not be walked (AsyncGetCallTrace: gcActive 2, notWalkableNotInJava 5), 3 on threads without Java "
                + "frames; each is named by its native function, or by why it has no Java stack\n");
        assertThat(json(r)).contains("\"javaStackNotWalkable\":7,\"noJavaStack\":{\"gcActive\":2,"
                + "\"noJavaFrames\":3,\"notWalkableNotInJava\":5}}");

        TestRun walked = TestRun.create(dir.resolve("walked.msr")).site(UNZIP).stack(100, UNZIP_STACK)
                .meta(MetadataKeys.MALLOC_INTERVAL_BYTES, "1")
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS))
                .meta(MetadataKeys.MALLOC_JAVA_STACK_NOT_WALKABLE, "0");
        walked.event(MS, MemoryEventType.ALLOCATE, 0x1000, 1000, 0, 1, 100, null);
        assertThat(Summary.format(ReportBuilder.build(walked.close()))).doesNotContain("no Java stack");
    }

    /**
     * With process samples, {@code atRssPeak} is the malloc sites' outstanding at the sample of largest RSS, not at
     * the end nor at the native peak.
     */
    @Test
    void atRssPeakIsTheMallocOutstandingAtTheRssPeak() {
        long interval = 1; // every block sampled with p = 1: weights equal sizes
        TestRun t = TestRun.create(dir.resolve("rss.msr")).site(UNZIP).site(CHURN).stack(100, UNZIP_STACK)
                .stack(200, "libz.so.1!deflateInit2_", "com.acme.Codec.roundTrip(Codec.java:30)")
                .meta(MetadataKeys.MALLOC_INTERVAL_BYTES, Long.toString(interval))
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS));
        // by 400 ms: UNZIP 3 x 1000 bytes, CHURN 5000; at 600 ms CHURN is freed, UNZIP grows to 10 blocks
        for (int i = 0; i < 3; i++) {
            t.event(i * 100 * MS, MemoryEventType.ALLOCATE, 0x1000 + i * 0x100, 1000, 0, 1, 100, null);
        }
        t.event(350 * MS, MemoryEventType.ALLOCATE, 0x9000, 5000, 0, 2, 200, null);
        t.event(600 * MS, MemoryEventType.DEALLOCATE, 0x9000, 5000, 0, 2, 200, null);
        for (int i = 3; i < 10; i++) {
            t.event(600 * MS + i, MemoryEventType.ALLOCATE, 0x1000 + i * 0x100, 1000, 0, 1, 100, null);
        }
        long[] ts = {100 * MS, 400 * MS, 700 * MS};
        long[] values = {50_000_000, 90_000_000, 60_000_000}; // RSS peaks at 400 ms
        t.processMemory(new ProcessMemorySamples(List.of("rss"), ts, values));
        Report r = ReportBuilder.build(t.close());

        Report.Malloc m = r.nativeMemory().malloc();
        assertThat(m.atPeakOf()).isEqualTo("rss");
        assertThat(m.atPeakMs()).isEqualTo(400.0);
        assertThat(m.atPeakBytes()).isEqualTo(8000);
        assertThat(m.atPeak()).extracting(Peak.Holder::site, Peak.Holder::bytes).containsExactly(
                org.assertj.core.groups.Tuple.tuple("com.acme.Codec.roundTrip(Codec.java:30)", 5000L),
                org.assertj.core.groups.Tuple.tuple("com.acme.Unzipper.open(Unzipper.java:12)", 3000L));
        assertThat(m.outstandingBytes()).isEqualTo(10_000);
        assertThat(Summary.format(r)).contains("malloc (sampled, mean interval 1 B, 11 samples): 14.6 KiB allocated, "
                + "9.8 KiB outstanding (10 samples); at the RSS peak 7.8 KiB, most at libz.so.1!deflateInit2_ <- "
                + "com.acme.Codec.roundTrip(Codec.java:30)")
                .contains("RSS at its peak: 85.8 MiB at 0.40 s, of which other 85.8 MiB; sampled malloc then 7.8 KiB, "
                        + "most at libz.so.1!deflateInit2_ <- com.acme.Codec.roundTrip(Codec.java:30)");
    }

    /**
     * diff on native memory: a malloc site's change within its sampling noise is not significant, a large one is;
     * an exact native site's change always is.
     */
    @Test
    void diffTestsMallocSitesAgainstTheirSamplingNoise() {
        Report base = mallocRun("base.msr", 40, 2);
        Report same = mallocRun("same.msr", 42, 2); // two more 4 KiB blocks at a 64 KiB interval: noise
        Report grown = mallocRun("grown.msr", 400, 3); // ten times as many, and one more exact block
        RunDiff noise = DiffBuilder.diff(base, same, DiffMetric.NATIVE, false, null);
        assertThat(noise.sites()).filteredOn(e -> e.type().equals(Site.NATIVE_MALLOC)).singleElement()
                .satisfies(e -> {
                    assertThat(e.delta(DiffMetric.NATIVE)).isPositive();
                    assertThat(e.stdError()).isPositive();
                    assertThat(e.significant()).isFalse();
                });
        assertThat(noise.significance().totalSignificant()).isFalse();
        RunDiff grew = DiffBuilder.diff(base, grown, DiffMetric.NATIVE, false, null);
        assertThat(grew.sites()).filteredOn(e -> e.type().equals(Site.NATIVE_MALLOC)).singleElement()
                .satisfies(e -> assertThat(e.significant()).isTrue());
        assertThat(grew.sites()).filteredOn(e -> e.type().equals(Site.NATIVE_DIRECT)).singleElement()
                .satisfies(e -> {
                    assertThat(e.stdError()).isZero();
                    assertThat(e.significant()).isTrue();
                });
    }

    /** A run with {@code blocks} malloc samples of 4 KiB never freed, and {@code direct} exact 1 KiB blocks. */
    private Report mallocRun(String name, int blocks, int direct) {
        Site buf = new Site(9, "com.acme.Buf", "alloc", "Buf.java", 3, Site.NATIVE_DIRECT);
        TestRun t = TestRun.create(dir.resolve(name)).site(UNZIP).site(buf).stack(100, UNZIP_STACK)
                .stack(900, "com.acme.Buf.alloc(Buf.java:3)")
                .meta(MetadataKeys.MALLOC_INTERVAL_BYTES, Long.toString(64 * 1024))
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS));
        for (int i = 0; i < blocks; i++) {
            t.event(i * MS, MemoryEventType.ALLOCATE, 0x1000L + i * 0x1000L, 4096, 0, 1, 100, null);
        }
        for (int i = 0; i < direct; i++) {
            t.event(i * MS, MemoryEventType.ALLOCATE, 0x900_0000L + i * 0x1000L, 1024, 0, 9, 900, null);
        }
        return ReportBuilder.build(t.close());
    }

    /** @return report.json without the whitespace between tokens */
    private static String json(Report r) {
        return ReportJson.toJson(r).replaceAll("\\s*\n\\s*", "").replace("\": ", "\":");
    }
}
