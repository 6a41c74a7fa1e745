package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.memscope.analysis.export.CollapsedStacks;
import io.memscope.analysis.export.ExportMetric;
import io.memscope.analysis.export.PprofProfile;
import io.memscope.analysis.export.RecordingTraceEvents;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Site;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Profile formats other tools read: collapsed stacks, pprof (read back by an independent decoder), Chrome trace. */
class ExportTest {
    private static final long MS = 1_000_000L;

    @TempDir
    Path tmp;

    private Report report() {
        TestRun d = TestRun.create(tmp.resolve("e.msrec"))
                .meta(MetadataKeys.MODE, "sample").meta(MetadataKeys.INTERVAL_BYTES, "4096")
                .meta(MetadataKeys.START_NANOS, "0").meta(MetadataKeys.END_NANOS, Long.toString(100 * MS))
                .site(new Site(1, "a.Cache", "put", "Cache.java", 10, "byte[]"))
                .site(new Site(2, "a.Parse", "read", "Parse.java", 20, "char[]"))
                .site(new Site(3, "a.Buf", "alloc", "Buf.java", 30, Site.NATIVE_DIRECT))
                .stack(11, "a.Cache.put(Cache.java:10)", "a.Svc.handle(Svc.java:5)", "a.Main.main(Main.java:1)")
                .stack(12, "a.Cache.put(Cache.java:10)", "a.Job.run(Job.java:7)")
                .stack(13, "a.Parse.read(Parse.java:20)", "a.Svc.handle(Svc.java:6)", "a.Main.main(Main.java:1)")
                .stack(14, "a.Buf.alloc(Buf.java:30)", "a.Main.main(Main.java:2)");
        long id = 1;
        for (int i = 0; i < 30; i++) {
            d.alloc(i * MS, id++, 1000 + i, 1, i % 3 == 0 ? 12 : 11);     // kept
            long t = id++;
            d.alloc(i * MS, t, 3000, 2, 13);                              // garbage
            d.free(i * MS + 2 * MS, t, 3000, 2 * MS, 2);
        }
        d.event(5 * MS, io.memscope.MemoryEventType.ALLOCATE, 0x1000, 4096, 0, 3, 14, null);
        d.gc(new GcRecord(50 * MS, MS, "G1 Young Generation", "G1 Evacuation Pause", 1 << 20, 1 << 19, 1 << 22));
        d.gc(new GcRecord(90 * MS, MS, "G1 Old Generation", "System.gc()", 1 << 20, 1 << 18, 1 << 22));
        return ReportBuilder.build(d.close());
    }

    @Test
    void collapsedStacksAreRootFirstWithTheTypeLastAndAddUpToTheTotals() throws Exception {
        Report r = report();
        for (ExportMetric m : ExportMetric.values()) {
            StringWriter w = new StringWriter();
            CollapsedStacks.write(r, m, w);
            long sum = 0;
            for (String line : w.toString().split("\n")) {
                if (!line.isEmpty()) {
                    sum += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            long expected = switch (m) {
                case ALLOC_BYTES -> r.totals().allocatedBytes();
                case ALLOC_OBJECTS -> r.totals().allocatedObjects();
                case LIVE_BYTES -> r.totals().heldAtEndBytes();
                case LIVE_OBJECTS -> r.sites().stream().filter(s -> !s.nativeMemory())
                        .mapToLong(SiteProfile::liveObjects).sum();
                case PEAK_BYTES -> r.totals().peakHeldBytes();
                case NATIVE_BYTES -> r.nativeMemory().outstandingBytes();
            };
            assertThat(sum).as(m.label()).isEqualTo(expected).isPositive();
        }
        StringWriter w = new StringWriter();
        CollapsedStacks.write(r, ExportMetric.ALLOC_BYTES, w);
        assertThat(w.toString()).contains("a.Main.main(Main.java:1);a.Svc.handle(Svc.java:5);"
                + "a.Cache.put(Cache.java:10);byte[] ");
        StringWriter n = new StringWriter();
        CollapsedStacks.write(r, ExportMetric.NATIVE_BYTES, n);
        assertThat(n.toString()).isEqualTo("a.Main.main(Main.java:2);a.Buf.alloc(Buf.java:30);native:direct-buffer "
                + "4096\n");
    }

    @Test
    void pprofIsReadBackByAnIndependentDecoder() throws Exception {
        Report r = report();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(PprofProfile.period(r)).as("the recording's interval").isEqualTo(4096);
        PprofProfile.write(r, ExportMetric.LIVE_BYTES, PprofProfile.period(r), 1_767_225_600_000_000_000L, out);
        PprofWire p = PprofWire.decode(new ByteArrayInputStream(out.toByteArray()));
        assertThat(p.strings.get(0)).isEmpty();
        assertThat(p.sampleTypes).extracting(t -> p.strings.get((int) t[0]) + "/" + p.strings.get((int) t[1]))
                .containsExactly("alloc_objects/count", "alloc_space/bytes", "inuse_objects/count",
                        "inuse_space/bytes", "native_alloc_objects/count", "native_alloc_space/bytes",
                        "native_inuse_objects/count", "native_inuse_space/bytes");
        assertThat(p.strings.get((int) p.defaultSampleType)).isEqualTo("inuse_space");
        assertThat(p.period).isEqualTo(4096);
        assertThat(p.sum("alloc_space")).isEqualTo(r.totals().allocatedBytes());
        assertThat(p.sum("alloc_objects")).isEqualTo(r.totals().allocatedObjects());
        assertThat(p.sum("inuse_space")).isEqualTo(r.totals().heldAtEndBytes()).isPositive();
        boolean found = false;
        for (int s = 0; s < p.sampleLocations.size(); s++) {
            List<String> frames = p.frames(s);
            if (frames.get(1).equals("a.Svc.handle(Svc.java:5)")) {
                assertThat(frames).containsExactly("a.Cache.put(Cache.java:10)", "a.Svc.handle(Svc.java:5)",
                        "a.Main.main(Main.java:1)");
                found = true;
            }
        }
        assertThat(found).isTrue();
    }

    @Test
    void chromeTraceHasCounterTracksPerBucketAndTheCollections() throws Exception {
        Report r = report();
        StringWriter w = new StringWriter();
        RecordingTraceEvents.write(r, 4242, w);
        JsonNode events = new ObjectMapper().readTree(w.toString());
        long heapCounters = 0;
        long allocated = 0;
        long gcs = 0;
        for (JsonNode e : events) {
            if ("C".equals(e.get("ph").asText()) && "memscope heap".equals(e.get("name").asText())) {
                heapCounters++;
                assertThat(e.get("pid").asLong()).isEqualTo(4242);
                assertThat(e.get("args").has("heldBytes")).isTrue();
            }
            if ("memscope allocation".equals(e.get("name").asText())) {
                allocated += e.get("args").get("allocatedBytes").asLong();
            }
            if ("X".equals(e.get("ph").asText())) {
                gcs++;
            }
        }
        assertThat(heapCounters).isEqualTo(r.timeline().buckets().size());
        assertThat(allocated).isEqualTo(r.totals().allocatedBytes());
        assertThat(gcs).isEqualTo(2);
    }
}
