package io.memscope.analysis.html;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.analysis.RecordedRun;
import io.memscope.analysis.ReportBuilder;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Recording.ProcessMemorySamples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page draws only what was measured (headless Chromium): a recording whose process memory samples (every 100 ms)
 * have a one-second hole, and two collections 0.8 s apart, the second in the hole, whose committed heap figures
 * differ (2.5 GiB, then 300 MiB: the shape that once drew the committed heap falling steadily between them). The
 * stacked chart of RSS by part holds a null row in the hole and paints nothing there; the memory-over-time chart
 * draws the heap's used and committed lines from the samples, with nothing in the hole, and the collections' figures
 * as points over them.
 */
class ProcessMemoryChartBrowserTest {
    private static final long MS = 1_000_000L;
    private static final long MIB = 1L << 20;

    @Test
    void theHoleIsAGapAndTheHeapLinesAreTheSamples(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("recording.msrec");
        List<Long> times = new ArrayList<>();
        for (long t = 0; t <= 3000; t += 100) {
            if (t <= 1200 || t >= 2200) {
                times.add(t * MS);
            }
        }
        List<String> parts = List.of("rss", "heapUsed", "heapCommitted", "metaspace", "codeCache", "threads",
                "threadStacks", "directBuffers", "trackedNative");
        long[] ts = new long[times.size()];
        long[] values = new long[times.size() * parts.size()];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = times.get(i);
            boolean before = ts[i] < 1000 * MS;
            long used = before ? 200 * MIB : ts[i] < 2000 * MS ? 100 * MIB : 150 * MIB;
            long committed = ts[i] < 2000 * MS ? 2560 * MIB : 300 * MIB;
            long[] row = {3000 * MIB, used, committed, 30 * MIB, 10 * MIB, 20, 20 * MIB, 64 * MIB, 64 * MIB};
            System.arraycopy(row, 0, values, i * parts.size(), row.length);
        }
        try (RecordingWriter w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, 0)
                .process(77, 1_767_225_600_000L).open()) {
            w.metadata(MetadataKeys.MODE, "sample");
            w.metadata(MetadataKeys.INTERVAL_BYTES, "1024");
            w.metadata(MetadataKeys.START_NANOS, "0");
            w.metadata("processMemory.intervalMs", "100");
            w.site(1, "com.example.Main", "run", "Main.java", 10, "byte[]");
            int main = w.strings().intern("main");
            w.stack(11, List.of("com.example.Main.run(Main.java:10)"));
            for (int i = 0; i < 30; i++) {
                w.accept(i * 100 * MS, MemoryEventType.ALLOCATE, i + 1, 4096, 0, 1, main, 0, 0, 11, 1);
            }
            w.gc(new GcRecord(1000 * MS, MS, "G1 Young Generation", "G1 Evacuation Pause", 300 * MIB, 100 * MIB,
                    2560 * MIB, "end of minor GC"));
            w.gc(new GcRecord(1800 * MS, MS, "G1 Young Generation", "G1 Evacuation Pause", 400 * MIB, 150 * MIB,
                    300 * MIB, "end of minor GC"));
            w.processMemory(new ProcessMemorySamples(parts, ts, values));
            w.metadata(MetadataKeys.END_NANOS, Long.toString(3000 * MS));
        }
        Path page = ReportPageBrowserTest.OUT.resolve("process-memory.html");
        Files.createDirectories(ReportPageBrowserTest.OUT);
        HtmlReport.write(ReportBuilder.build(RecordedRun.open(file)), page);
        try (HeadlessChromium browser = HeadlessChromium.shared()) {
            ReportPageBrowserTest.openClean(browser, page);
            assertThat(browser.script("return document.getElementById('process-chart').hidden")).isEqualTo(false);
            assertThat(browser.script("return document.querySelectorAll('#process-chart canvas').length"))
                    .isEqualTo(1L);
            // one null row in the hole, between the samples at 1.2 s and 2.2 s
            assertThat(browser.script("var u = document.getElementById('process-chart').plot;"
                    + "var n = 0; u.data[0].forEach(function (x, i) { if (x > 1.2 && x < 2.2) {"
                    + "  for (var s = 1; s < u.data.length; s++) if (u.data[s][i] != null) return -1; n++; } });"
                    + "return n")).isEqualTo(1L);
            assertThat(browser.script("return document.getElementById('process-chart').plot.data[0].length"))
                    .isEqualTo((long) ts.length + 1);
            // nothing painted in the hole; the stacked fill painted either side of it
            String alpha = "var u = document.getElementById('process-chart').plot;"
                    + "var x = Math.round(u.valToPos(arguments[0], 'x', true)),"
                    + "    y = Math.round(u.valToPos(arguments[1], 'bytes', true));"
                    + "return u.ctx.getImageData(x, y, 1, 1).data[3];";
            assertThat(browser.script(alpha, 1.7, 100.0 * MIB)).as("in the hole").isEqualTo(0L);
            // memory over time: the heap's lines are the samples, null everywhere in the hole (no segment across it)
            String inHole = "var u = document.getElementById('chart').plot; var s = 0;"
                    + "for (var k = 1; k < u.series.length; k++) if (u.series[k].label === arguments[0]) s = k;"
                    + "if (!s) return -1; var n = 0, drawn = 0;"
                    + "u.data[0].forEach(function (x, i) { if (x > 1.2001 && x < 2.2) { n++; if (u.data[s][i] != null) drawn++; } });"
                    + "return n > 0 && !u.series[s].spanGaps ? drawn : -1;";
            assertThat(browser.script(inHole, "Heap used")).as("heap used in the hole").isEqualTo(0L);
            assertThat(browser.script(inHole, "Heap committed")).as("heap committed in the hole").isEqualTo(0L);
            // at the first collection the committed line holds the sampled 2.5 GiB; after the hole, the sampled 300 MiB
            String at = "var u = document.getElementById('chart').plot, a = arguments, s = 0;"
                    + "for (var k = 1; k < u.series.length; k++) if (u.series[k].label === a[0]) s = k;"
                    + "var i = u.data[0].findIndex(function (x) { return Math.abs(x - a[1]) < 1e-6; });"
                    + "return i < 0 ? null : u.data[s][i];";
            assertThat(((Number) browser.script(at, "Heap committed", 1.0)).longValue()).isEqualTo(2560 * MIB);
            assertThat(((Number) browser.script(at, "Heap committed", 2.5)).longValue()).isEqualTo(300 * MIB);
            // the collections' figures are points (no path) over the samples: 300 MiB before, 100 MiB after the first
            assertThat(browser.script("var u = document.getElementById('chart').plot;"
                    + "var s = u.series.findIndex(function (x) { return x.label === 'Heap used at GCs'; });"
                    + "return s < 0 ? null : u.data[s].filter(function (v) { return v != null; }).length;"))
                    .isEqualTo(4L);
            // no committed line drawn anywhere in the hole, at any height (pixels of the dashed committed colour)
            // (pixels of the committed line's colour in a column, away from the height given: -1 none)
            String committedColourInColumn = "var u = document.getElementById('chart').plot;"
                    + "var x = Math.round(u.valToPos(arguments[0], 'x', true)), h = u.ctx.canvas.height,"
                    + "    y0 = arguments[1] < 0 ? -100 : Math.round(u.valToPos(arguments[1], 'bytes', true)),"
                    + "    d = u.ctx.getImageData(x - 1, 0, 3, h).data, n = 0;"
                    + "for (var i = 0; i < d.length; i += 4) if (d[i + 3] > 100 && Math.abs(d[i] - 0x8a) < 20"
                    + "    && Math.abs(d[i + 1] - 0xa4) < 20 && Math.abs(d[i + 2] - 0xc8) < 20"
                    + "    && Math.abs(Math.floor(i / 12) - y0) > 4) n++;"
                    + "return n;";
            assertThat(browser.script(committedColourInColumn, 1.5, -1.0)).as("committed line in the hole")
                    .isEqualTo(0L);
            assertThat(browser.script(committedColourInColumn, 2.7, 300.0 * MIB)).as("no falling committed line")
                    .isEqualTo(0L);
            assertThat((Long) browser.script(alpha, 0.55, 100.0 * MIB)).as("before it").isPositive();
            assertThat((Long) browser.script(alpha, 2.55, 100.0 * MIB)).as("after it").isPositive();
            // the heap in use after the first collection: the sampled 100 MiB, drawn; nothing in the hole
            String blueNear = "var u = document.getElementById('chart').plot;"
                    + "var x = Math.round(u.valToPos(arguments[0], 'x', true)),"
                    + "    y = Math.round(u.valToPos(arguments[1], 'bytes', true)), d = u.ctx.getImageData(x - 1, y - 3, 3, 7).data;"
                    + "for (var i = 0; i < d.length; i += 4) if (d[i + 3] > 100 && d[i + 2] > 180 && d[i] < 120 && d[i + 1] < 160) return true;"
                    + "return false;";
            assertThat(browser.script(blueNear, 1.1, 100.0 * MIB)).as("the sampled heap in use").isEqualTo(true);
            assertThat(browser.script(blueNear, 1.5, 100.0 * MIB)).as("nothing drawn in the hole").isEqualTo(false);
            assertThat(browser.script(blueNear, 1.5, 125.0 * MIB)).as("no line between the collections")
                    .isEqualTo(false);
            browser.screenshot(ReportPageBrowserTest.OUT.resolve("process-memory.png"));
        }
    }
}
