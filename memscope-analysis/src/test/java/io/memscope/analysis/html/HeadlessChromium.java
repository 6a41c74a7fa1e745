package io.memscope.analysis.html;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.json.Json;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through chromium-driver (Selenium), for the browser tests of report.html.
 *
 * <p>Every page opened is checked the way a careful reader would: the browser's console (errors, including
 * Content-Security-Policy violations and uncaught exceptions) and every network request the page made (through
 * the DevTools performance log), so that a test can assert there were no errors and no request left {@code file:}.
 *
 * <p>When the browser is missing, tests are skipped with a message, unless the environment variable
 * {@value #REQUIRED} is {@code true} (CI sets it in .ci/run): then a missing browser fails them.
 */
public final class HeadlessChromium implements AutoCloseable {
    /** Environment variable that makes a missing browser a test failure instead of a skip. */
    public static final String REQUIRED = "MEMSCOPE_BROWSER_TESTS_REQUIRED";
    /** Environment variables naming the browser and its driver, for machines where they live elsewhere. */
    public static final String BROWSER_ENV = "MEMSCOPE_CHROMIUM";
    public static final String DRIVER_ENV = "MEMSCOPE_CHROMEDRIVER";

    private static final List<String> BROWSERS = List.of("/usr/lib/chromium/chromium", "/usr/bin/chromium",
            "/usr/bin/chromium-browser", "/usr/bin/google-chrome");
    private static final List<String> DRIVERS = List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");

    /** The browser {@link #shared()} hands out, started by its first caller; quit when the test JVM exits. */
    private static HeadlessChromium shared;

    private final ChromeDriver driver;
    private final Path profile;
    private final boolean isShared;
    private final List<String> consoleErrors = new ArrayList<>();
    private final List<String> requests = new ArrayList<>();

    private HeadlessChromium(ChromeDriver driver, Path profile, boolean isShared) {
        this.driver = driver;
        this.profile = profile;
        this.isShared = isShared;
    }

    /**
     * One browser for every page test of the test JVM (a browser's start costs more than most page tests): started
     * with a fresh profile under {@code target/browser-profiles} by the first caller, or skipped (failed under CI) as
     * {@link #start} does. {@link #close} leaves it running for the next test; it is quit when the JVM exits. Each
     * {@link #open} starts a new page's console errors and requests, so tests do not see each other's.
     */
    public static synchronized HeadlessChromium shared() throws IOException {
        if (shared == null) {
            Path dir = Path.of("target", "browser-profiles").toAbsolutePath();
            Files.createDirectories(dir);
            HeadlessChromium started = start(dir, true);
            Runtime.getRuntime().addShutdownHook(new Thread(started::quit, "quit shared headless Chromium"));
            shared = started;
        }
        return shared;
    }

    /**
     * Starts a browser with a fresh profile under {@code workDir}, or skips the calling test (fails it under CI)
     * when Chromium or chromium-driver is not installed.
     */
    public static HeadlessChromium start(Path workDir) throws IOException {
        return start(workDir, false);
    }

    private static HeadlessChromium start(Path workDir, boolean isShared) throws IOException {
        String browser = first(BROWSER_ENV, BROWSERS);
        String driverPath = first(DRIVER_ENV, DRIVERS);
        if (browser == null || driverPath == null) {
            String what = "headless Chromium tests need Debian's chromium and chromium-driver (apt-get install "
                    + "chromium chromium-driver); found browser " + browser + ", driver " + driverPath;
            if (Boolean.parseBoolean(System.getenv(REQUIRED))) {
                Assertions.fail(what + " and " + REQUIRED + " is true");
            }
            Assumptions.abort(what + ": skipped (set " + REQUIRED + "=true to fail instead)");
        }
        Path profile = Files.createTempDirectory(workDir, "chromium-profile");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(browser);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--no-default-browser-check",
                "--disable-dev-shm-usage", "--disable-extensions", "--disable-sync", "--hide-scrollbars",
                "--window-size=1440,1000", "--force-device-scale-factor=1", "--user-data-dir=" + profile);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        logs.enable(LogType.PERFORMANCE, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        options.setCapability("goog:perfLoggingPrefs", Map.of("enableNetwork", true, "enablePage", false));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(driverPath))
                .usingAnyFreePort()
                .build();
        return new HeadlessChromium(new ChromeDriver(service, options), profile, isShared);
    }

    private static String first(String env, List<String> paths) {
        String named = System.getenv(env);
        if (named != null && !named.isBlank()) {
            return Files.isExecutable(Path.of(named)) ? named : null;
        }
        for (String p : paths) {
            if (Files.isExecutable(Path.of(p))) {
                return p;
            }
        }
        return null;
    }

    public WebDriver driver() {
        return driver;
    }

    /** Opens a page from disk and waits until its script says it is drawn (or it failed). */
    public void open(Path html) {
        collectLogs();
        consoleErrors.clear();
        requests.clear();
        driver.get(html.toUri().toString());
        new WebDriverWait(driver, Duration.ofSeconds(20)).until(d -> {
            Object ready = ((JavascriptExecutor) d).executeScript(
                    "return document.readyState === 'complete' && !!document.body"
                            + " && (document.body.getAttribute('data-ready') === 'true' || !!document.getElementById('fatal'));");
            return Boolean.TRUE.equals(ready);
        });
        collectLogs();
    }

    /** @return the result of a script run in the page (tests read the page's state with it) */
    public Object script(String js, Object... args) {
        return driver.executeScript(js, args);
    }

    /** @return every console error of the page opened last: level SEVERE (script errors, CSP violations) */
    public List<String> consoleErrors() {
        collectLogs();
        return List.copyOf(consoleErrors);
    }

    /**
     * @return the URL of every request made by the page opened last (its document, scripts, fonts, images,
     *     fetches), that is every request whose document is a {@code file:} page
     */
    public List<String> requests() {
        collectLogs();
        return List.copyOf(requests);
    }

    @SuppressWarnings("unchecked")
    private void collectLogs() {
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.SEVERE.intValue()) {
                consoleErrors.add(e.getMessage());
            }
        }
        Json json = new Json();
        for (LogEntry e : driver.manage().logs().get(LogType.PERFORMANCE)) {
            Map<String, Object> entry = json.toType(e.getMessage(), Map.class);
            Map<String, Object> message = (Map<String, Object>) entry.get("message");
            if (message == null) {
                continue;
            }
            String method = (String) message.get("method");
            Map<String, Object> params = (Map<String, Object>) message.get("params");
            // requests of pages opened from disk (the browser's own start page, chrome://, is not ours)
            if ("Network.requestWillBeSent".equals(method) && params != null
                    && String.valueOf(params.get("documentURL")).startsWith("file:")) {
                Map<String, Object> request = (Map<String, Object>) params.get("request");
                if (request != null) {
                    requests.add(String.valueOf(request.get("url")));
                }
            }
        }
    }

    /** Saves a screenshot of the whole page (beyond the window) as PNG. */
    @SuppressWarnings("unchecked")
    public void screenshot(Path png) throws IOException {
        Map<String, Object> metrics = driver.executeCdpCommand("Page.getLayoutMetrics", Map.of());
        Map<String, Object> size = (Map<String, Object>) metrics.get("cssContentSize");
        double width = ((Number) size.get("width")).doubleValue();
        double height = Math.min(16_000, ((Number) size.get("height")).doubleValue());
        Map<String, Object> shot = driver.executeCdpCommand("Page.captureScreenshot", Map.of(
                "format", "png", "captureBeyondViewport", true,
                "clip", Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
        Files.createDirectories(png.toAbsolutePath().getParent());
        Files.write(png, Base64.getDecoder().decode((String) shot.get("data")));
    }

    /** Quits a browser of its own; the {@link #shared()} one stays for the next test. */
    @Override
    public void close() {
        if (!isShared) {
            quit();
        }
    }

    private void quit() {
        try {
            driver.quit();
        } finally {
            deleteQuietly(profile);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // a profile left behind under target/ is harmless
        }
    }
}
