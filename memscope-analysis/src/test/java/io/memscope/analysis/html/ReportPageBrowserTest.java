package io.memscope.analysis.html;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * report.html in headless Chromium, driven like a reader would: the realistic {@link PageFixture} page is opened
 * from disk, checked for console errors and requests outside {@code file:}, and its flame graph, metric switch,
 * search, zoom, inverted view and time-range selection are used through clicks, typing and a mouse drag.
 * Screenshots of each page go to {@code target/browser/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReportPageBrowserTest {
    static final Path OUT = Path.of("target", "browser").toAbsolutePath();

    private HeadlessChromium browser;
    private Path shop;

    @BeforeAll
    void writePages() throws Exception {
        Files.createDirectories(OUT);
        shop = OUT.resolve("shop.html");
        HtmlReport.writePage(PageFixture.shop().json(), shop);
    }

    /** The test JVM's one browser, started by the first page test (each test is skipped, or fails, without one). */
    @BeforeEach
    void startBrowser() throws Exception {
        if (browser == null) {
            browser = HeadlessChromium.shared();
        }
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.close();
        }
    }

    private WebDriver driver() {
        return browser.driver();
    }

    private <T> T waitFor(Function<WebDriver, T> condition) {
        return new WebDriverWait(driver(), Duration.ofSeconds(10)).until(condition);
    }

    /** Opens a page and checks what every page must be: drawn, no console error, nothing fetched. */
    static void openClean(HeadlessChromium browser, Path page) {
        browser.open(page);
        assertThat(browser.script("return document.body.getAttribute('data-ready')")).isEqualTo("true");
        assertThat(browser.consoleErrors()).as("console errors").isEmpty();
        assertThat(browser.requests()).as("requests").isNotEmpty()
                .allSatisfy(url -> assertThat(url).startsWith("file:"));
        assertThat(browser.script("return performance.getEntriesByType('resource').length")).isEqualTo(0L);
    }

    @SuppressWarnings("unchecked")
    private List<String> flameFrames() {
        return (List<String>) browser.script("return Array.from(document.querySelectorAll('#flame g.frame'))"
                + ".map(g => g.getAttribute('data-name'))");
    }

    @SuppressWarnings("unchecked")
    private List<String> framesAtDepth(int depth) {
        return (List<String>) browser.script("return Array.from(document.querySelectorAll("
                + "'#flame g.frame[data-depth=\"' + arguments[0] + '\"]')).map(g => g.getAttribute('data-name'))", depth);
    }

    private String text(String css) {
        return driver().findElement(By.cssSelector(css)).getText();
    }

    private WebElement frame(String name) {
        return driver().findElements(By.cssSelector("#flame g.frame")).stream()
                .filter(g -> name.equals(g.getAttribute("data-name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no frame " + name + " among " + flameFrames()));
    }

    private double frameWidth(String name) {
        return Double.parseDouble(frame(name).findElement(By.tagName("rect")).getAttribute("width"));
    }

    private void metric(String key) {
        driver().findElement(By.cssSelector("#metrics button[data-metric='" + key + "']")).click();
        waitFor(d -> "true".equals(d.findElement(By.cssSelector("#metrics button[data-metric='" + key + "']"))
                .getAttribute("aria-pressed")));
    }

    @SuppressWarnings("unchecked")
    private List<String> firstColumn(String tableId) {
        return (List<String>) browser.script("return Array.from(document.querySelectorAll('#' + arguments[0]"
                + " + ' tbody tr:not(.stack-row)')).map(r => r.cells[0].textContent)", tableId);
    }

    @Test
    void drawsTheFixtureWithoutErrorsOrNetwork() throws Exception {
        openClean(browser, shop);
        browser.screenshot(OUT.resolve("shop.png"));
        assertThat(flameFrames()).contains(PageFixture.LEAK_SITE, PageFixture.TEMP_SITE, PageFixture.BATCH_SITE,
                "java.lang.Thread.run(Thread.java:1583)", "java.lang.String", "all");
        assertThat(text("#command")).isEqualTo("com.example.shop.ShopServer --port 8080 --profile prod");
        assertThat(text("#problems")).contains("LEAK SUSPECT", PageFixture.LEAK_SITE, "TEMPORARIES",
                PageFixture.TEMP_SITE, "NATIVE LEAK", PageFixture.NATIVE_SITE, "double-free");
        assertThat(text("#card-allocated")).contains("1.7 GiB");
        assertThat(firstColumn("sites")).first().isEqualTo(PageFixture.TEMP_SITE);
        assertThat(firstColumn("leaks")).containsOnly(PageFixture.LEAK_SITE);
        assertThat(firstColumn("native")).containsExactly(PageFixture.NATIVE_SITE);
        assertThat(text("#accounting-0")).contains("tenant-b", "40.0 MiB");
        assertThat(driver().findElements(By.cssSelector("#chart canvas"))).isNotEmpty();
        // colours by kind: application, library and JDK frames are drawn, each with its kind
        assertThat(frame(PageFixture.TEMP_SITE).getAttribute("data-kind")).isEqualTo("0");
        assertThat(frame("org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:897)")
                .getAttribute("data-kind")).isEqualTo("1");
        assertThat(frame("java.lang.Thread.run(Thread.java:1583)").getAttribute("data-kind")).isEqualTo("2");
    }

    @Test
    void metricSwitchRedrawsTheFlameGraph() {
        openClean(browser, shop);
        metric("leakBytes");
        assertThat(flameFrames()).contains(PageFixture.LEAK_SITE).doesNotContain(PageFixture.TEMP_SITE,
                PageFixture.BATCH_SITE, PageFixture.NATIVE_SITE);
        assertThat(text("#flame-status")).startsWith("Leak suspects: 108 MiB");
        metric("nativeBytes");
        assertThat(flameFrames()).contains(PageFixture.NATIVE_SITE).doesNotContain(PageFixture.LEAK_SITE);
        assertThat(text("#flame-title")).isEqualTo("Flame graph: native outstanding");
        metric("peakBytes");
        assertThat(flameFrames()).contains(PageFixture.BATCH_SITE, PageFixture.LEAK_SITE);
        metric("allocObjects");
        assertThat(text("#flame-status")).startsWith("Allocated objects: 24,653,000 objects");
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void searchHighlightsFramesAndShowsTheirShare() {
        openClean(browser, shop);
        WebElement search = driver().findElement(By.id("flame-search"));
        search.sendKeys("hashmap");
        // the status is redrawn as the query is typed: wait for the whole query's
        String match = waitFor(d -> {
            Object m = browser.script("const m = document.getElementById('flame-match');"
                    + " return m ? m.textContent : null");
            return m != null && m.toString().contains("4 frames matched") ? m.toString() : null;
        });
        // the share of every stack with a HashMap frame, computed from the fixture, not from the page
        PageFixture f = PageFixture.shop();
        long hashMapBytes = f.stacks.stream().filter(s -> s.frames().stream().anyMatch(x -> x.contains("HashMap")))
                .mapToLong(PageFixture.Stack::allocBytes).sum();
        String pct = String.format(Locale.ROOT, "%.1f%%", 100.0 * hashMapBytes / f.totalAlloc());
        assertThat(match).contains("4 frames matched", "24.0 MiB", pct);
        assertThat(driver().findElements(By.cssSelector("#flame g.frame.matched"))).hasSize(4);
        search.clear();
        search.sendKeys("/Nightly.*render/");
        waitFor(d -> String.valueOf(browser.script("const m = document.getElementById('flame-match');"
                + " return m ? m.textContent : ''")).contains("1 frame matched"));
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void clickZoomsAndResetRestores() {
        openClean(browser, shop);
        double full = Double.parseDouble(driver().findElement(By.cssSelector("#flame svg")).getAttribute("width"));
        double before = frameWidth(PageFixture.BATCH_SITE);
        assertThat(before).isLessThan(full / 2);
        frame(PageFixture.BATCH_SITE).click();
        waitFor(d -> frameWidth(PageFixture.BATCH_SITE) > full - 1);
        assertThat(text("#flame-status")).contains("zoomed into NightlyReport.render");
        assertThat(flameFrames()).doesNotContain(PageFixture.TEMP_SITE);
        driver().findElement(By.id("flame-reset")).click();
        waitFor(d -> Math.abs(frameWidth(PageFixture.BATCH_SITE) - before) < 0.5);
        assertThat(flameFrames()).contains(PageFixture.TEMP_SITE);
    }

    @Test
    void invertedViewStartsAtTheAllocationSites() throws Exception {
        openClean(browser, shop);
        driver().findElement(By.cssSelector("#views button[data-view='inverted']")).click();
        waitFor(d -> "true".equals(d.findElement(By.cssSelector("#views button[data-view='inverted']"))
                .getAttribute("aria-pressed")));
        List<String> sites = framesAtDepth(1);
        assertThat(sites).contains(PageFixture.LEAK_SITE, PageFixture.BATCH_SITE,
                "java.lang.StringBuilder.toString(StringBuilder.java:453)", "java.util.HashMap.resize(HashMap.java:710)")
                .doesNotContain("java.lang.Thread.run(Thread.java:1583)");
        browser.screenshot(OUT.resolve("shop-inverted.png"));
    }

    @Test
    void timeRangeSelectionRestrictsFlameGraphAndTables() throws Exception {
        openClean(browser, shop);
        assertThat(firstColumn("sites")).first().isEqualTo(PageFixture.TEMP_SITE);
        assertThat(driver().findElements(By.cssSelector("#sites th[data-key='window']"))).isEmpty();
        WebElement over = driver().findElement(By.cssSelector("#chart .u-over"));
        int w = over.getSize().getWidth();
        int h = over.getSize().getHeight();
        // the x axis spans the fixture's data, about 0.05 s to 19.95 s: drag from about 12.8 s to 15.2 s
        int x0 = (int) (w * 0.64) - w / 2;
        int x1 = (int) (w * 0.76) - w / 2;
        new Actions(driver()).moveToElement(over, x0, 0).clickAndHold().moveByOffset((x1 - x0) / 2, 2)
                .moveByOffset((x1 - x0) - (x1 - x0) / 2, 0).release().perform();
        waitFor(d -> !d.findElement(By.id("window-label")).getText().isEmpty());
        assertThat(text("#window-label")).startsWith("Time range 12.");
        assertThat(firstColumn("sites")).first().isEqualTo(PageFixture.BATCH_SITE);
        assertThat(driver().findElement(By.cssSelector("#sites th[data-key='window']")).getText())
                .isEqualTo("Allocated in time range");
        assertThat(text("#flame-status")).contains("in the selected time range");
        assertThat(driver().findElement(By.cssSelector("#metrics button[data-metric='heldBytes']")).isEnabled())
                .isFalse();
        browser.screenshot(OUT.resolve("shop-time-range.png"));
        driver().findElement(By.id("window-clear")).click();
        waitFor(d -> d.findElement(By.id("window-label")).getText().isEmpty());
        assertThat(firstColumn("sites")).first().isEqualTo(PageFixture.TEMP_SITE);
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void tablesSortByEveryColumnAndFilter() {
        openClean(browser, shop);
        driver().findElement(By.cssSelector("#sites th[data-key='heldBytes']")).click();
        assertThat(firstColumn("sites")).first().isEqualTo(PageFixture.LEAK_SITE);
        driver().findElement(By.cssSelector("#sites th[data-key='site']")).click();
        List<String> bySite = firstColumn("sites");
        assertThat(bySite).isSortedAccordingTo(String::compareTo);
        WebElement filter = driver().findElement(By.cssSelector("#sites input[type='search']"));
        filter.sendKeys("nightly");
        assertThat(firstColumn("sites")).hasSize(2).allSatisfy(s -> assertThat(s).contains("NightlyReport"));
    }

    @Test
    void hostileNamesAreShownAsText() throws Exception {
        Path page = OUT.resolve("hostile.html");
        HtmlReport.writePage(PageFixture.hostile().json(), page);
        openClean(browser, page);
        browser.screenshot(OUT.resolve("hostile.png"));
        assertNothingRan(browser);
        String body = text("body");
        assertThat(body).contains("evil.<script>alert(1)</script>.run(<b>Evil</b>.java:1)",
                "</script><script>window.pwned=1</script>", "<img src=x onerror=\"window.pwned=1\">",
                "<svg onload=alert(3)>");
        assertThat(flameFrames()).contains("evil.<script>alert(1)</script>.run(<b>Evil</b>.java:1)",
                "evil.Main.main(</script><!--<script>alert(2)</script>.java:2)", "evil.\u2028Line.sep(\u2029.java:3)");
        // the tooltip and a stack list put names into the page too
        new Actions(driver()).moveToElement(frame("evil.<script>alert(1)</script>.run(<b>Evil</b>.java:1)")).perform();
        waitFor(d -> d.findElement(By.id("tooltip")).isDisplayed());
        assertThat(text("#tooltip")).contains("evil.<script>alert(1)</script>.run(<b>Evil</b>.java:1)");
        driver().findElement(By.cssSelector("#sites td button.linkish")).click();
        assertThat(text("#sites .stack")).contains("</script><!--<script>alert(2)</script>");
        assertNothingRan(browser);
    }

    @Test
    void pageOfAReportBuiltFromACapture() throws Exception {
        Path page = OUT.resolve("from-report.html");
        HtmlReport.write(HtmlReportTest.report(false), page);
        openClean(browser, page);
        browser.screenshot(OUT.resolve("from-report.png"));
        assertThat(flameFrames()).contains("com.example.app.Cache.put(Cache.java:10)",
                "com.example.app.Main.main(Main.java:5)", "byte[]", "java.lang.String");
        assertThat(text("#problems")).contains("LEAK SUSPECT", "com.example.app.Cache.put(Cache.java:10)",
                "TEMPORARIES", "NATIVE LEAK", "com.example.app.Buf.alloc(Buf.java:40)");
        assertThat(text("#gc")).contains("P50\n5.0 ms");
        metric("nativeBytes");
        assertThat(flameFrames()).contains("com.example.app.Buf.alloc(Buf.java:40)", "native:direct-buffer");
    }

    @Test
    void scopesFunctionsAndPoolsOfACapture() throws Exception {
        Path page = OUT.resolve("from-report-api.html");
        HtmlReport.write(HtmlReportTest.report(false), page);
        openClean(browser, page);
        // scopes as a tree (a path right before its children), sortable and filterable
        assertThat(firstColumn("scopes")).containsExactly("import", "request", "request/parse");
        assertThat((String) browser.script("return document.querySelector('#scope-2 td').style.paddingLeft"))
                .isEqualTo("24px");
        assertThat(text("#scopes")).contains("5.0 MiB", "1.0 MiB", "500 ms");
        driver().findElement(By.cssSelector("#scopes th[data-key='totalMs']")).click();
        assertThat(firstColumn("scopes")).containsExactly("request", "import", "request/parse");
        driver().findElement(By.cssSelector("#scopes th[data-key='allocatedBytes']")).click();
        assertThat(firstColumn("scopes")).first().isEqualTo("request");
        driver().findElement(By.cssSelector("#scopes input[type='search']")).sendKeys("pars");
        assertThat(firstColumn("scopes")).containsExactly("request/parse");
        assertThat(text("#functions")).contains("com.example.app.Cache.put", "com.example.app.Main.main(Main.java:5)",
                "80", "40 ms", "320 KiB");
        driver().findElement(By.cssSelector("#functions th[data-key='calls']")).click();
        assertThat(text("#tracked-objects")).contains("userCache", "java.util.HashMap", "48 B", "alive at the end");
        assertThat(text("#pools")).contains("db");
        assertThat(firstColumn("pool-leaks")).containsExactly("db", "db");
        assertThat(text("#pool-leaks")).contains("lost while borrowed", "not returned", "com.example.app.Connection");
        driver().findElement(By.cssSelector("#pool-leak-0 td button.linkish")).click();
        assertThat(text("#pool-leaks .stack")).contains("com.example.app.Main.main(Main.java:");
        assertThat(text("#problems")).contains("POOL LEAK", "db: lease lost while borrowed",
                "db: lease never returned");
        // the flame graph restricted to a scope: only the samples taken while it was open on their thread
        assertThat(flameFrames()).contains(HtmlReportTest.IMPORT_SITE, "com.example.app.Cache.put(Cache.java:10)");
        new org.openqa.selenium.support.ui.Select(driver().findElement(By.id("flame-scope"))).selectByValue("import");
        waitFor(d -> text("#flame-title").endsWith("in scope import"));
        assertThat(flameFrames()).contains(HtmlReportTest.IMPORT_SITE, "char[]")
                .doesNotContain("com.example.app.Cache.put(Cache.java:10)");
        assertThat(text("#flame-status")).contains("in scope import (sampled estimate)");
        metric("heldBytes");
        assertThat(flameFrames()).contains(HtmlReportTest.IMPORT_SITE);
        assertThat(driver().findElement(By.cssSelector("#metrics button[data-metric='nativeBytes']")).isEnabled())
                .isFalse();
        // a click on a scope's path in the table does the same
        driver().findElement(By.cssSelector("#scopes input[type='search']")).clear();
        driver().findElement(By.cssSelector("#scopes input[type='search']")).sendKeys("request");
        driver().findElement(By.cssSelector("#scopes tbody tr td.code")).click();
        waitFor(d -> text("#flame-title").endsWith("in scope request"));
        metric("allocBytes");
        assertThat(flameFrames()).contains("com.example.app.Cache.put(Cache.java:10)", "java.lang.String")
                .doesNotContain(HtmlReportTest.IMPORT_SITE);
        new org.openqa.selenium.support.ui.Select(driver().findElement(By.id("flame-scope"))).selectByValue("");
        waitFor(d -> !text("#flame-title").contains("in scope"));
        assertThat(flameFrames()).contains(HtmlReportTest.IMPORT_SITE, "com.example.app.Cache.put(Cache.java:10)");
        browser.screenshot(OUT.resolve("from-report-api.png"));
        assertThat(browser.consoleErrors()).isEmpty();
    }

    @Test
    void emptyApiSectionsSayBriefly() throws Exception {
        openClean(browser, shop);
        assertThat(text("#api-none")).contains("None in this recording");
        assertThat(driver().findElements(By.id("scopes"))).isEmpty();
        assertThat(driver().findElements(By.id("flame-scope"))).isEmpty();
    }

    @Test
    void hostileNamesOfACaptureAreShownAsText() throws Exception {
        Path page = OUT.resolve("from-report-hostile.html");
        HtmlReport.write(HtmlReportTest.report(true), page);
        openClean(browser, page);
        assertNothingRan(browser);
        assertThat(text("#command")).startsWith(HtmlReportTest.HOSTILE_CLASS + " </SCRIPT><script>window.pwned=1"
                + "</script> &lt;");
        assertThat(text("#sites")).contains(HtmlReportTest.HOSTILE_CLASS + ".put(Cache.java:10)",
                "evil.\"quoted\"&amp;.run(Concat.java:20)");
        assertThat(text("#gc-list")).contains("</script><!--<img src=x onerror=window.pwned=1>");
        assertThat(flameFrames()).contains(HtmlReportTest.HOSTILE_CLASS + ".put(Cache.java:10)");
        // a scope, a pool, a named object and a call site named <script>alert(1)</script>: text, wherever shown
        String hostile = HtmlReportTest.HOSTILE_NAME;
        assertThat(firstColumn("scopes")).contains(hostile);
        assertThat(firstColumn("pools")).containsExactly(hostile);
        assertThat(firstColumn("pool-leaks")).containsOnly(hostile);
        assertThat(firstColumn("tracked-objects")).containsExactly(hostile);
        assertThat(text("#functions")).contains(hostile);
        assertThat(text("#problems")).contains(hostile + ": lease lost while borrowed");
        new org.openqa.selenium.support.ui.Select(driver().findElement(By.id("flame-scope"))).selectByValue(hostile);
        waitFor(d -> text("#flame-title").endsWith("in scope " + hostile));
        assertThat(flameFrames()).contains(HtmlReportTest.IMPORT_SITE);
        browser.screenshot(OUT.resolve("from-report-hostile.png"));
        assertNothingRan(browser);
    }

    @Test
    void diffPageColoursGrowthAndShrinkageApart() throws Exception {
        Path page = OUT.resolve("diff.html");
        HtmlReport.writePage(PageFixture.diffJson(), page);
        openClean(browser, page);
        browser.screenshot(OUT.resolve("diff.png"));
        assertThat(text("#page-kind")).isEqualToIgnoringCase("comparison of two runs");
        assertThat(text("#flame-title")).isEqualTo("Differential flame graph: allocated bytes");
        assertThat(driver().findElement(By.id("timeline-section")).isDisplayed()).isFalse();
        // widths from the new run: the nightly report (gone in the new run) is not drawn, the new site is
        assertThat(flameFrames()).contains(PageFixture.LEAK_SITE, PageFixture.NEW_SITE)
                .doesNotContain(PageFixture.BATCH_SITE);
        assertThat(fill(PageFixture.LEAK_SITE)).as("grew: red").satisfies(c -> assertThat(c[0]).isGreaterThan(c[2]));
        assertThat(fill(PageFixture.TEMP_SITE)).as("shrank: blue").satisfies(c -> assertThat(c[2]).isGreaterThan(c[0]));
        metric("baseBytes");
        assertThat(flameFrames()).contains(PageFixture.BATCH_SITE).doesNotContain(PageFixture.NEW_SITE);
        new Actions(driver()).moveToElement(frame(PageFixture.BATCH_SITE)).perform();
        waitFor(d -> d.findElement(By.id("tooltip")).isDisplayed());
        assertThat(text("#tooltip")).contains("base run\n300 MiB", "new run\n0 B", "change\n−300 MiB (−100.0%)");
        // the diff table: largest absolute change first (the price formatter's String stack lost 305 MiB)
        assertThat(firstColumn("diff")).first().isEqualTo(PageFixture.TEMP_SITE);
        assertThat(text("#problems")).contains("GREW", PageFixture.LEAK_SITE, "+192 MiB", "SHRANK",
                PageFixture.BATCH_SITE);
        assertThat(text("#card-change")).contains("−");
    }

    /** The fill of a frame's rectangle as {r, g, b}. */
    private int[] fill(String name) {
        String rgb = (String) browser.script("return getComputedStyle(arguments[0].querySelector('rect')).fill",
                frame(name));
        String[] parts = rgb.replaceAll("[^0-9,]", "").split(",");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }

    /** No injected element, handler or script ran: the page holds only its own four script elements. */
    static void assertNothingRan(HeadlessChromium browser) {
        try {
            browser.driver().switchTo().alert();
            throw new AssertionError("an alert is open");
        } catch (NoAlertPresentException expected) {
            // nothing ran
        }
        assertThat(browser.script("return typeof window.pwned")).isEqualTo("undefined");
        assertThat(browser.script("return document.querySelectorAll('script').length")).isEqualTo(4L);
        assertThat(browser.script("return document.querySelectorAll('img, iframe, object, embed, b, "
                + "[onerror], [onload], [onclick], [onmouseover]').length")).isEqualTo(0L);
        assertThat(browser.consoleErrors()).isEmpty();
    }
}
