package io.memscope.analysis.html;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ReportPageBrowserTest {
    private static final Path OUT = Path.of("target", "browser");

    @Test
    void smoke() throws Exception {
        Files.createDirectories(OUT);
        Path page = OUT.resolve("shop.html");
        HtmlReport.writePage(PageFixture.shop().json(), page);
        try (HeadlessChromium b = HeadlessChromium.start(OUT)) {
            b.open(page.toAbsolutePath());
            b.screenshot(OUT.resolve("shop.png"));
            System.out.println("ERRORS " + b.consoleErrors());
            System.out.println("REQUESTS " + b.requests());
            assertThat(b.consoleErrors()).isEmpty();
        }
    }
}
