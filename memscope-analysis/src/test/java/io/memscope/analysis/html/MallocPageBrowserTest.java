package io.memscope.analysis.html;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.analysis.RecordedRun;
import io.memscope.analysis.ReportBuilder;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.Site;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Native malloc in the page, in headless Chromium: under the native metrics the flame graph has the malloc stacks
 * with their native frames ({@code library!function}, coloured as native code), and the native table shows a malloc
 * site's outstanding bytes as an estimate (rounded to its precision, {@code ~}) with its samples.
 */
class MallocPageBrowserTest {
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void flameGraphShowsNativeFramesOfMallocStacks() throws Exception {
        Path file = dir.resolve("malloc.msr");
        try (RecordingWriter w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, 0)
                .process(77, 1_767_225_600_000L).open()) {
            w.metadata(MetadataKeys.MODE, "sample");
            w.metadata(MetadataKeys.START_NANOS, "0");
            w.metadata(MetadataKeys.MALLOC_INTERVAL_BYTES, "65536");
            w.site(1, "com.acme.Unzipper", "open", "Unzipper.java", 12, Site.NATIVE_MALLOC);
            w.stack(11, List.of("libz.so.1!inflateInit2_", "libzip.so+0x1a2b",
                    "java.util.zip.Inflater.init(Native Method)", "com.acme.Unzipper.open(Unzipper.java:12)",
                    "com.acme.Main.main(Main.java:5)"));
            int main = w.strings().intern("main");
            for (int i = 0; i < 300; i++) {
                w.accept(i * 10 * MS, MemoryEventType.ALLOCATE, 0x10000L + i * 0x2000L, 7160, 0, 1, main, 0, 0,
                        11, 1);
            }
            w.metadata(MetadataKeys.END_NANOS, Long.toString(3000 * MS));
        }
        Path page = ReportPageBrowserTest.OUT.resolve("malloc.html");
        Files.createDirectories(ReportPageBrowserTest.OUT);
        HtmlReport.write(ReportBuilder.build(RecordedRun.open(file)), page);
        try (HeadlessChromium browser = HeadlessChromium.shared()) {
            ReportPageBrowserTest.openClean(browser, page);
            for (String metric : List.of("nativeBytes", "nativeAllocBytes")) {
                browser.driver().findElement(By.cssSelector("#metrics button[data-metric='" + metric + "']"))
                        .click();
                new WebDriverWait(browser.driver(), Duration.ofSeconds(10)).until(d -> "true".equals(d.findElement(
                        By.cssSelector("#metrics button[data-metric='" + metric + "']")).getAttribute("aria-pressed")));
                assertThat(browser.script("var g = document.querySelector('#flame g.frame[data-name=\""
                        + "libz.so.1!inflateInit2_\"]'); return g ? g.getAttribute('data-kind') : null"))
                        .as(metric).isEqualTo("4");
                assertThat(browser.script("return !!document.querySelector('#flame g.frame[data-name=\""
                        + "com.acme.Unzipper.open(Unzipper.java:12)\"]')")).isEqualTo(true);
            }
            // the native table: the estimate with its precision and samples
            String row = (String) browser.script("var r = Array.from(document.querySelectorAll('#native tbody tr'))"
                    + ".filter(function (r) { return r.textContent.indexOf('Unzipper') >= 0; })[0];"
                    + "return r ? r.textContent : null");
            assertThat(row).contains("~").contains("300");
            assertThat((String) browser.script("return document.getElementById('card-native').textContent"))
                    .contains("of it malloc ~");
            assertThat(browser.consoleErrors()).isEmpty();
            browser.screenshot(ReportPageBrowserTest.OUT.resolve("malloc.png"));
        }
    }
}
