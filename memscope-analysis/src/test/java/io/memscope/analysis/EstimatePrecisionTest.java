package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.GcRecord;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Site;
import java.nio.file.Path;
import io.memscope.analysis.html.HeadlessChromium;
import io.memscope.analysis.html.HtmlReport;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Estimates are shown as precise as they are: a figure from one or two samples is not printed to the object, it says
 * how many samples it rests on, and report.json keeps the raw estimate and the sample counts.
 */
class EstimatePrecisionTest {
    private static final long MS = 1_000_000L;
    private static final Site ONE = new Site(1, "a.Work", "once", "Work.java", 10, "java.lang.Object");
    private static final Site EXC = new Site(2, "a.Work", "fail", "Work.java", 20, "java.lang.RuntimeException");

    @TempDir
    Path tmp;

    private Report report() {
        TestRun d = TestRun.create(tmp.resolve("r.msrec"))
                .meta(MetadataKeys.MODE, "sample")
                .meta(MetadataKeys.INTERVAL_BYTES, "524288")
                .meta(MetadataKeys.START_NANOS, "0")
                .meta(MetadataKeys.END_NANOS, Long.toString(1000 * MS))
                .site(ONE).site(EXC);
        d.alloc(100 * MS, 1, 16, 1);   // one sampled 16-byte object: stands for 32,769 objects
        d.alloc(200 * MS, 2, 40, 2);   // two sampled exceptions: 26,215 objects, 1.0 MiB
        d.alloc(300 * MS, 3, 40, 2);
        d.gc(new GcRecord(900 * MS, 10 * MS, "G1 Old Generation", "System.gc()", 300, 200, 500, "end of major GC"));
        return ReportBuilder.build(d.close());
    }

    @Test
    void theSummaryRoundsAnEstimateToItsPrecisionAndNamesSmallSampleCounts() {
        Report r = report();
        SiteProfile one = r.sites().stream().filter(s -> s.site().contains("once")).findFirst().orElseThrow();
        assertThat(one.allocatedObjects()).as("the raw estimate").isEqualTo(32769);
        assertThat(one.liveSamples()).isEqualTo(1);
        String text = Summary.format(r);
        assertThat(text).doesNotContain("32,769").doesNotContain("26,215").doesNotContain("26,214");
        String onceLine = text.lines().filter(l -> l.contains("a.Work.once")).findFirst().orElseThrow();
        assertThat(onceLine).contains("~30,000 obj").contains("(1 sample)");
        String failLine = text.lines().filter(l -> l.contains("a.Work.fail")).findFirst().orElseThrow();
        assertThat(failLine).contains("1.0 MiB").contains("~30,000 obj").contains("(2 samples)");
    }

    @Test
    void reportJsonKeepsTheRawEstimateAndTheSampleCounts() {
        String json = ReportJson.toJson(report());
        assertThat(json).contains("\"count\": 32769").contains("\"samples\": 1")
                .contains("\"liveSamples\": 1").contains("\"liveSamples\": 2").contains("\"heldAtPeakSamples\": 2");
    }

    @Test
    void estimatesKeepTheDigitsTheirSamplesSupport() {
        long m = 512 * 1024;
        assertThat(Summary.estimate(524_304, m)).isEqualTo("~500 KiB");           // 1 sample: ±100%
        assertThat(Summary.estimate(100L * m, m)).isEqualTo("~50 MiB");            // 100 samples: ±5 MiB
        assertThat(Summary.estimate(3L * m, m)).isEqualTo("1.5 MiB");              // ±0.9 MiB: one decimal
        assertThat(Summary.estimate(20L * m, m)).isEqualTo("~10 MiB");             // ±2.2 MiB
        assertThat(Summary.estimate(2000L * m, m)).isEqualTo("~1000 MiB");         // ±22 MiB
        assertThat(Summary.estimate(20_000L * m, m)).isEqualTo("9.8 GiB");         // ±0.07 GiB: the usual digits
        assertThat(Summary.estimate(524_304, 0)).as("exact").isEqualTo("512.0 KiB");
        assertThat(Summary.estimatedCount(12_345_678, 100L * m, m)).isEqualTo("~12,000,000");
        assertThat(Summary.estimatedCount(123, 100L * m, m)).isEqualTo("~120");
        assertThat(Summary.estimatedCount(7, m, m)).isEqualTo("7");
        assertThat(Summary.estimatedCount(32_769, 524_304, 0)).as("exact").isEqualTo("32,769");
    }

    @Test
    void thePageRoundsTheSameWay() throws Exception {
        Path out = Path.of("target", "browser").toAbsolutePath();
        Files.createDirectories(out);
        Path page = out.resolve("precision.html");
        HtmlReport.write(report(), page);
        try (HeadlessChromium browser = HeadlessChromium.shared()) {
            browser.open(page);
            assertThat(browser.script("return document.body.getAttribute('data-ready')")).isEqualTo("true");
            assertThat(browser.consoleErrors()).isEmpty();
            String row = (String) browser.script("return Array.from(document.querySelectorAll('#sites tbody tr'))"
                    + ".map(r => Array.from(r.cells).map(c => c.textContent).join('|'))"
                    + ".find(t => t.includes('a.Work.once'))");
            assertThat(row).contains("|~500 KiB|").contains("|~30,000|").doesNotContain("32,769");
            String cards = (String) browser.script("return document.getElementById('totals').textContent");
            assertThat(cards).doesNotContain("58,984").contains("~");
        }
    }
}
