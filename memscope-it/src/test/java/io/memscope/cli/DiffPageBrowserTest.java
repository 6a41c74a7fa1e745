package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.analysis.html.HeadlessChromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * {@code memscope diff BASE NEW --html FILE} end to end: two real runs of a program whose one site holds 8 MiB in
 * the base run and 48 MiB in the new one; the comparison's page, opened in headless Chromium, names that site as
 * the largest growth, draws it red in the differential flame graph, and lists it first in the table. The screenshot
 * goes to {@code target/browser/diff.png}.
 */
class DiffPageBrowserTest {
    private static final Path OUT = Path.of("target", "browser").toAbsolutePath();

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void diffPageShowsTheGrowingSite(@TempDir Path tmp) throws Exception {
        Files.createDirectories(OUT);
        Path base = SharedRuns.growth(8);
        Path newer = SharedRuns.growth(48);
        String growing = "memscope.fixtures.GrowthFixture.main(GrowthFixture.java:"
                + Jvms.lineOf("memscope/fixtures/GrowthFixture.java", "// GROWING") + ")";
        Path page = tmp.resolve("diff.html");
        CliRun diff = CliRun.run("diff", base.toString(), newer.toString(), "--metric", "live", "--html",
                page.toString());
        assertThat(diff.exit).as(diff.err).isZero();
        assertThat(diff.out).contains("page:   " + page);

        try (HeadlessChromium browser = HeadlessChromium.shared()) {
            browser.open(page);
            assertThat(browser.script("return document.body.getAttribute('data-ready')")).isEqualTo("true");
            assertThat(browser.consoleErrors()).isEmpty();
            assertThat(browser.requests()).isNotEmpty().allSatisfy(url -> assertThat(url).startsWith("file:"));
            browser.screenshot(OUT.resolve("diff.png"));
            assertThat(browser.script("return document.querySelector('#problems li .tag').textContent"))
                    .isEqualTo("Grew");
            assertThat(browser.script("return document.querySelector('#problems li a').textContent"))
                    .isEqualTo(growing);
            assertThat(browser.driver().findElement(By.id("flame-title")).getText())
                    .isEqualTo("Differential flame graph: bytes held at the end");
            String fill = (String) browser.script("const g = Array.from(document.querySelectorAll('#flame g.frame'))"
                    + ".find(g => g.getAttribute('data-name') === arguments[0]);"
                    + "return g ? getComputedStyle(g.querySelector('rect')).fill : null", growing);
            assertThat(fill).as("the growing site's frame").isNotNull();
            String[] rgb = fill.replaceAll("[^0-9,]", "").split(",");
            assertThat(Integer.parseInt(rgb[0])).as("red: it grew").isGreaterThan(Integer.parseInt(rgb[2]) + 60);
            String firstRow = (String) browser.script(
                    "return document.querySelector('#diff tbody tr').cells[0].textContent");
            assertThat(firstRow).isEqualTo(growing);
        }
    }

    /**
     * Two runs of the same program: its sites swing by sampling alone. Every site whose change is within noise is
     * drawn faded (pale, almost grey) and says so in its tooltip; the list of largest changes does not call them
     * grown or shrunk. The screenshot goes to {@code target/browser/diff-noise.png}.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void changesWithinSamplingNoiseAreFaded(@TempDir Path tmp) throws Exception {
        Files.createDirectories(OUT);
        Path a = SharedRuns.noise("a");
        Path b = SharedRuns.noise("b");
        Path page = tmp.resolve("noise.html");
        CliRun diff = CliRun.run("diff", a.toString(), b.toString(), "--metric", "live", "--html", page.toString());
        assertThat(diff.exit).as(diff.err).isZero();

        try (HeadlessChromium browser = HeadlessChromium.shared()) {
            browser.open(page);
            assertThat(browser.script("return document.body.getAttribute('data-ready')")).isEqualTo("true");
            assertThat(browser.consoleErrors()).isEmpty();
            // widths by the size of the change: every site that moved has a box
            browser.script("document.querySelector('#metrics button[data-metric=changeBytes]').click()");
            browser.screenshot(OUT.resolve("diff-noise.png"));
            @SuppressWarnings("unchecked")
            List<java.util.Map<String, Object>> noisy = (List<java.util.Map<String, Object>>) browser.script(
                    "const D = JSON.parse(document.getElementById('memscope-data').textContent);"
                    + "return D.diffSites.filter(s => s.site.includes('NoiseFixture') && !s.significant"
                    + " && s.deltaBytes !== 0).map(s => {"
                    + "  const g = Array.from(document.querySelectorAll('#flame g.frame'))"
                    + "    .find(g => g.getAttribute('data-name') === s.site);"
                    + "  return {site: s.site, verdict: s.verdict,"
                    + "          fill: g ? getComputedStyle(g.querySelector('rect')).fill : null}; })");
            assertThat(noisy).as("sites of the same program that moved by sampling alone").hasSizeGreaterThan(10);
            assertThat(noisy).filteredOn(s -> s.get("fill") != null).as("drawn (wide enough for a box)")
                    .hasSizeGreaterThan(8);
            for (java.util.Map<String, Object> s : noisy) {
                assertThat(s.get("verdict")).isEqualTo("noise");
                if (s.get("fill") == null) {
                    continue;
                }
                int[] rgb = java.util.Arrays.stream(((String) s.get("fill")).replaceAll("[^0-9,]", "").split(","))
                        .mapToInt(Integer::parseInt).toArray();
                assertThat(java.util.Arrays.stream(rgb).min().orElseThrow()).as("%s is pale: %s", s.get("site"),
                        s.get("fill")).isGreaterThan(210);
                assertThat(java.util.Arrays.stream(rgb).max().orElseThrow() - java.util.Arrays.stream(rgb).min()
                        .orElseThrow()).as("%s is nearly grey: %s", s.get("site"), s.get("fill")).isLessThan(20);
            }
            String problems = (String) browser.script("return document.getElementById('problems').textContent");
            for (java.util.Map<String, Object> s : noisy) {
                assertThat(problems).as("a change within noise is not listed as grown or shrunk")
                        .doesNotContain((String) s.get("site"));
            }
            assertThat((String) browser.script("return document.querySelector('#diff thead').textContent"))
                    .contains("Samples").contains("Verdict");
        }
    }
}
