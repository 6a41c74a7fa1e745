package io.memscope.analysis.html;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.analysis.RecordedRun;
import io.memscope.analysis.ReportBuilder;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.GcRecord;
import io.memscope.recording.Recording.ProcessMemorySamples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart of RSS by part and the memory-over-time chart above it share one time axis (headless Chromium). An
 * HSQLDB run of 13.6 s had process samples from 0.6 s to 11.2 s only (its end's collections and heap walk paused the
 * sampler): the RSS chart's axis ended at 11 s under a chart ending at 13.6 s, so that a GC pause or the peak sat at
 * different places in the two.
 */
class ProcessChartTimeAxisBrowserTest {
    private static final long MS = 1_000_000L;
    private static final long MIB = 1L << 20;

    @Test
    void bothChartsSpanTheSameTime(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("recording.msrec");
        List<String> parts = List.of("rss", "heapUsed", "heapCommitted", "metaspace", "codeCache", "threads",
                "threadStacks", "directBuffers", "trackedNative");
        int n = 16; // every 100 ms from 0.6 s to 2.1 s of a run of 3 s
        long[] ts = new long[n];
        long[] values = new long[n * parts.size()];
        for (int i = 0; i < n; i++) {
            ts[i] = (600 + 100L * i) * MS;
            long[] row = {500 * MIB, 100 * MIB, 300 * MIB, 30 * MIB, 10 * MIB, 20, 20 * MIB, 0, 0};
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
            w.gc(new GcRecord(2800 * MS, 50 * MS, "G1 Old Generation", "System.gc()", 300 * MIB, 100 * MIB,
                    300 * MIB, "end of major GC"));
            w.processMemory(new ProcessMemorySamples(parts, ts, values));
            w.metadata(MetadataKeys.END_NANOS, Long.toString(3000 * MS));
        }
        Path page = ReportPageBrowserTest.OUT.resolve("process-chart-time-axis.html");
        Files.createDirectories(ReportPageBrowserTest.OUT);
        HtmlReport.write(ReportBuilder.build(RecordedRun.open(file)), page);
        try (HeadlessChromium browser = HeadlessChromium.shared()) {
            ReportPageBrowserTest.openClean(browser, page);
            String range = "var u = document.getElementById(arguments[0]).plot;"
                    + "return [u.scales.x.min, u.scales.x.max];";
            @SuppressWarnings("unchecked")
            List<Number> memory = (List<Number>) browser.script(range, "chart");
            @SuppressWarnings("unchecked")
            List<Number> process = (List<Number>) browser.script(range, "process-chart");
            assertThat(process.get(0).doubleValue()).isEqualTo(memory.get(0).doubleValue());
            assertThat(process.get(1).doubleValue()).isEqualTo(memory.get(1).doubleValue());
            assertThat(process.get(0).doubleValue()).as("before the first process sample").isLessThan(0.6);
            assertThat(process.get(1).doubleValue()).as("past the last process sample, to the collection at 2.8 s")
                    .isGreaterThanOrEqualTo(2.8);
        }
    }
}
