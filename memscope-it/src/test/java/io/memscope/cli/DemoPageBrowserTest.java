package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.analysis.html.HeadlessChromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The demo's page end to end: {@code memscope run --demo} writes report.html beside report.json, and the page,
 * opened from disk in headless Chromium, shows each of the demo's problems with no console error and no request
 * outside {@code file:}. {@code memscope report DIR --html FILE} writes the same page. The screenshot goes to
 * {@code target/browser/demo.png}.
 */
class DemoPageBrowserTest {
    private static final Path OUT = Path.of("target", "browser").toAbsolutePath();

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void demoPageShowsEachProblem(@TempDir Path out) throws Exception {
        Files.createDirectories(OUT);
        CliRun run = CliRun.run("run", "--demo", "--out", out.toString());
        assertThat(run.exit).as(run.err).isZero();
        Path jvmDir;
        try (Stream<Path> s = Files.list(out)) {
            jvmDir = s.filter(d -> Files.isRegularFile(d.resolve("report.json"))).findFirst().orElseThrow();
        }
        // the tenant caches' accounting (MemoryAccounting) went into the recording at the end of the capture
        String json = Files.readString(jvmDir.resolve("report.json"));
        assertThat(json.replaceAll("\\s+", "")).contains("\"accounting\":{\"atMs\":", "\"table\":\"USER\"",
                "\"user\":\"carol\"");
        assertThat(run.out).contains("Accounting (the application's MemoryAccounting at").contains("carol");
        Path page = jvmDir.resolve("report.html");
        assertThat(page).isRegularFile();
        assertThat(run.out).contains("page:   " + page);
        Path again = out.resolve("again.html");
        assertThat(CliRun.run("report", jvmDir.toString(), "--html", again.toString()).exit).isZero();
        assertThat(again).isRegularFile();

        String leak = "io.memscope.demo.LeakyCacheWorkload.run(LeakyCacheWorkload.java:"
                + Jvms.lineOf("io/memscope/demo/LeakyCacheWorkload.java", "the leaking allocation") + ")";
        String temp = "io.memscope.demo.StringConcatWorkload.concatenate(StringConcatWorkload.java:"
                + Jvms.lineOf("io/memscope/demo/StringConcatWorkload.java", "the needless temporaries") + ")";
        String nativeLeak = "io.memscope.demo.DirectBufferLeakWorkload.run(DirectBufferLeakWorkload.java:"
                + Jvms.lineOf("io/memscope/demo/DirectBufferLeakWorkload.java", "the native leak") + ")";
        try (HeadlessChromium browser = HeadlessChromium.shared()) {
            for (Path p : List.of(page, again)) {
                browser.open(p);
                assertThat(browser.script("return document.body.getAttribute('data-ready')")).isEqualTo("true");
                assertThat(browser.consoleErrors()).isEmpty();
                assertThat(browser.requests()).isNotEmpty().allSatisfy(url -> assertThat(url).startsWith("file:"));
            }
            browser.open(page);
            browser.screenshot(OUT.resolve("demo.png"));
            String problems = browser.driver().findElement(By.id("problems")).getText();
            assertThat(problems).contains("LEAK SUSPECT", leak, "TEMPORARIES", temp, "NATIVE LEAK", nativeLeak);
            @SuppressWarnings("unchecked")
            List<String> frames = (List<String>) browser.script("return Array.from(document.querySelectorAll("
                    + "'#flame g.frame')).map(g => g.getAttribute('data-name'))");
            assertThat(frames).contains(temp, "io.memscope.demo.DemoMain.main(DemoMain.java:"
                    + Jvms.lineOf("io/memscope/demo/DemoMain.java", "w.run();") + ")");
            browser.driver().findElement(By.cssSelector("#metrics button[data-metric='leakBytes']")).click();
            @SuppressWarnings("unchecked")
            List<String> leakFrames = (List<String>) browser.script("return Array.from(document.querySelectorAll("
                    + "'#flame g.frame')).map(g => g.getAttribute('data-name'))");
            assertThat(leakFrames).contains(leak).doesNotContain(temp);
            // the scoped-requests workload: its scopes, the profiled handler, the leaked pooled connection
            assertThat(problems).contains("POOL LEAK", "demo-connections: lease lost while borrowed");
            String scopes = browser.driver().findElement(By.id("scopes")).getText();
            assertThat(scopes).contains("request", "request/parse", "request/render");
            assertThat(browser.driver().findElement(By.id("functions")).getText())
                    .contains("io.memscope.demo.RequestHandler.");
            assertThat(browser.driver().findElement(By.id("tracked-objects")).getText()).contains("sessions");
            assertThat(browser.driver().findElement(By.id("pool-leaks")).getText())
                    .contains("demo-connections", "lost while borrowed");
            String accounting = (String) browser.script("return Array.from(document.querySelectorAll("
                    + "'[id^=accounting-]')).map(e => e.textContent).join('\\n')");
            assertThat(accounting).contains("Accounting: by user", "carol", "memory/");
        }
    }
}
