package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Why memory is held, end to end: RetentionFixture holds memory four ways; {@code memscope run} with the default
 * options walks its heap at the end, and each leak's first path in report.json starts at the right GC root and goes
 * through the field that holds it; the bounded ThreadLocal buffers are no suspect, and their path is right too.
 * {@code memscope paths <pid>} finds the same paths in a running JVM. The JVMTI sampler (and so the walk) runs on
 * Linux x86_64; on JDK 17 and the build's JDK.
 */
class RetentionTest {
    private static final String SRC = "io/memscope/cli/RetentionFixture.java";
    private static final String FIXTURE = "io.memscope.cli.RetentionFixture";

    @TempDir
    Path tmp;

    @TempDir
    static Path shared;

    private static Path currentJdkRun;

    /** Runs the fixture for 3 s under {@code memscope run} with the default options; returns the output folder. */
    private static Path run(String java, Path out) {
        int code = Jvms.memscopeRun(out, List.of(), List.of(java, "-Xmx512m", "-cp",
                System.getProperty("java.class.path"), FIXTURE, "3000"));
        assertThat(code).as(java).isZero();
        return out;
    }

    /** The run on the build's JDK, made once: the report's paths and the page's tree are read from the same run. */
    private static synchronized Path currentJdkRun() {
        if (currentJdkRun == null) {
            currentJdkRun = run(Jvms.current(), shared.resolve("current"));
        }
        return currentJdkRun;
    }

    static boolean linuxX64() {
        return System.getProperty("os.name").toLowerCase().contains("linux")
                && System.getProperty("os.arch").matches("amd64|x86_64");
    }

    private static String site(String method, String marker) throws Exception {
        return method + "(RetentionFixture.java:" + Jvms.lineOf(SRC, marker) + ")";
    }

    @Test
    void eachLeakIsHeldFromItsRootThroughTheFieldThatHoldsIt() throws Exception {
        assumeTrue(linuxX64(), "the JVMTI sampler and its heap walk run on Linux x86_64");
        String listener = site(FIXTURE + ".listen", "// LISTENER_BUFFER");
        String document = site(FIXTURE + "$Document.<init>", "// DOCUMENT_CONTENT");
        String scratch = site(FIXTURE + ".scratch", "// SCRATCH_BUFFER");
        String plugin = "io.memscope.cli.RetentionPlugin.store(RetentionPlugin.java:"
                + Jvms.lineOf("io/memscope/cli/RetentionPlugin.java", "// PLUGIN_BUFFER") + ")";
        for (String java : Jvms.javas()) {
            Path out = java.equals(Jvms.current()) ? currentJdkRun()
                    : run(java, tmp.resolve("run-" + Jvms.javas().indexOf(java)));
            Object report = Jvms.report(out);
            Map<String, Object> retention = Json.obj(report, "retention");
            assertThat(retention.get("trigger")).isEqualTo("end");
            assertThat(retention.get("outcome")).as(java + ": " + retention).isEqualTo("complete");
            assertThat(Json.num(retention, "samplesReached")).isPositive();

            // The leaks grow all run long: leak suspects, whose paths are in both lists (a suspect is a held site too;
            // whether a site counts as one is the leak rule's business, not the walk's). The ThreadLocal buffers are
            // set once per thread at the start: bounded, never a suspect.
            List<String> suspects = Jvms.sites(report, "leakSuspects");
            assertThat(suspects).as(java).doesNotContain(scratch).containsAnyOf(listener, document, plugin);

            Map<String, Object> l = held(report, listener);
            assertThat(l.get("root")).as(java).isEqualTo("static " + FIXTURE + ".BUS");
            assertThat(path(l)).as(java).startsWith(FIXTURE + "$EventBus.listeners", "java.util.ArrayList.elementData",
                    "java.lang.Object[]");
            assertThat(last(l)).as(java).matches("io\\.memscope\\.cli\\.RetentionFixture\\$\\$Lambda.*\\.arg\\$1");

            Map<String, Object> d = held(report, document);
            assertThat(d.get("root")).as(java).isEqualTo("static " + FIXTURE + ".PAGES");
            assertThat(path(d)).as(java).contains(FIXTURE + "$Document$Page.this$0");
            assertThat(last(d)).as(java).isEqualTo(FIXTURE + "$Document.content");

            Map<String, Object> p = held(report, plugin);
            assertThat(p.get("root")).as(java).isEqualTo("static " + FIXTURE + ".PLUGIN_LOADER");
            assertThat(path(p)).as(java).contains(FIXTURE + "$PluginLoader.classes",
                    "static io.memscope.cli.RetentionPlugin.CACHE");
            assertThat(last(p)).as(java).isEqualTo("java.lang.Object[]");

            Map<String, Object> s = first(report, "topLiveSites", scratch);
            assertThat((String) s.get("root")).as(java).matches("thread pool-(\\d+|\\*)-thread-(\\d+|\\*)");
            assertThat(path(s)).as(java).first().isEqualTo("java.lang.Thread.threadLocals");
            assertThat(last(s)).as(java).isEqualTo("java.lang.ThreadLocal$ThreadLocalMap$Entry.value");

            String summary = Files.readString(Jvms.summaryFile(out));
            if (suspects.contains(listener)) {
                assertThat(summary).as(java).contains("held by static RetentionFixture.BUS -> RetentionFixture$EventBus"
                        + ".listeners -> ArrayList.elementData -> Object[] -> RetentionFixture$$Lambda");
            }
            if (suspects.contains(plugin)) {
                assertThat(summary).as(java).contains("held by static RetentionFixture.PLUGIN_LOADER -> "
                        + "RetentionFixture$PluginLoader.classes -> ArrayList.elementData -> Object[] -> static "
                        + "RetentionPlugin.CACHE -> ArrayList.elementData -> Object[]");
            }
        }
    }

    @Test
    void pathsOfARunningJvm() throws Exception {
        assumeTrue(linuxX64(), "the JVMTI sampler and its heap walk run on Linux x86_64");
        String listener = site(FIXTURE + ".listen", "// LISTENER_BUFFER");
        Path agent = Jars.agent();
        List<String> cmd = new ArrayList<>(List.of(Jvms.current(), "-Xmx512m",
                "-javaagent:" + agent + "=out=" + tmp.resolve("out") + ",quiet=true,paths=false", "-cp",
                System.getProperty("java.class.path"), FIXTURE, "1500", "wait"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             OutputStream stdin = p.getOutputStream()) {
            String line;
            while ((line = r.readLine()) != null && !line.equals("ready")) {
                // rounds ...
            }
            assertThat(line).isEqualTo("ready");
            CliRun run = CliRun.run("paths", Long.toString(p.pid()), "--json");
            assertThat(run.exit).as(run.err).isZero();
            Object json = Json.parse(run.out);
            Map<String, Object> walk = Json.obj(json, "retention");
            assertThat(walk.get("trigger")).isEqualTo("on demand");
            assertThat(walk.get("outcome")).isEqualTo("complete");
            Map<String, Object> site = null;
            for (Map<String, Object> s : Json.list(json, "sites")) {
                if (listener.equals(s.get("site"))) {
                    site = s;
                }
            }
            assertThat(site).as(run.out).isNotNull();
            Map<String, Object> main = Json.list(site, "retainedBy").get(0);
            assertThat(main.get("root")).isEqualTo("static " + FIXTURE + ".BUS");
            assertThat(last(main)).matches("io\\.memscope\\.cli\\.RetentionFixture\\$\\$Lambda.*\\.arg\\$1");

            CliRun text = CliRun.run("paths", Long.toString(p.pid()), "--top", "3");
            assertThat(text.exit).as(text.err).isZero();
            assertThat(text.out).contains("memscope paths: pid " + p.pid() + ": heap walk complete", listener,
                    "static " + FIXTURE + ".BUS", "-> " + FIXTURE + "$EventBus.listeners");

            // memscope top: w walks the heap, each row the walk reached gets its main path
            TopCommandTest.Tmux tmux = TopCommandTest.Tmux.start(tmp.resolve("tmux.sock"), 240, 40, List.of(
                    Jvms.current(), "-cp", System.getProperty("java.class.path"), Main.class.getName(), "top",
                    Long.toString(p.pid())));
            try {
                tmux.await(s -> s.contains("w why held") && s.contains("[running]"));
                tmux.keys("w");
                String screen = tmux.await(s -> s.contains("heap walk complete") && s.contains("held by "));
                assertThat(screen).contains("held by static " + FIXTURE + ".");
                tmux.keys("q");
                assertThat(tmux.awaitExit()).isZero();
            } finally {
                tmux.kill();
            }
            stdin.write('\n');
            stdin.flush();
        } finally {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 180, unit = TimeUnit.SECONDS)
    void thePageShowsThePathsAsATreeThatASearchNarrows() throws Exception {
        assumeTrue(linuxX64(), "the JVMTI sampler and its heap walk run on Linux x86_64");
        String listener = site(FIXTURE + ".listen", "// LISTENER_BUFFER");
        Path out = currentJdkRun();
        Path page;
        try (java.util.stream.Stream<Path> s = Files.list(out)) {
            page = s.map(d -> d.resolve("report.html")).filter(Files::isRegularFile).findFirst().orElseThrow();
        }
        Path shots = Path.of("target", "browser").toAbsolutePath();
        Files.createDirectories(shots);
        try (io.memscope.analysis.html.HeadlessChromium browser =
                     io.memscope.analysis.html.HeadlessChromium.shared()) {
            browser.open(page);
            assertThat(browser.script("return document.body.getAttribute('data-ready')")).isEqualTo("true");
            assertThat(browser.script("return document.getElementById('retention-section').hidden")).isEqualTo(false);
            // every site's paths, whether or not the page opened that site (it opens the leak suspects' only)
            String text = (String) browser.script("return document.getElementById('retention').textContent");
            assertThat(text).contains(listener, "static " + FIXTURE + ".BUS", FIXTURE + "$EventBus.listeners",
                    "static " + FIXTURE + ".PLUGIN_LOADER", "static io.memscope.cli.RetentionPlugin.CACHE",
                    FIXTURE + "$Document$Page.this$0");
            assertThat(text.toLowerCase(java.util.Locale.ROOT)).contains("leak suspect");
            assertThat((String) browser.script("return document.getElementById('retention-walk').textContent"))
                    .contains("at the end of the capture", "reached through");
            browser.script("document.querySelectorAll('#retention details')"
                    + ".forEach(function (d) { d.open = true; }); window.scrollTo(0, "
                    + "document.getElementById('retention-section').offsetTop)");
            browser.screenshot(shots.resolve("retention.png"));
            Files.write(shots.resolve("retention-section.png"), browser.driver().findElement(
                    org.openqa.selenium.By.id("retention-section")).getScreenshotAs(
                    org.openqa.selenium.OutputType.BYTES));
            // a search for the plugin's static field leaves the plugin's site only
            org.openqa.selenium.WebElement search = browser.driver().findElement(
                    org.openqa.selenium.By.id("retention-search"));
            search.sendKeys("RetentionPlugin.CACHE");
            @SuppressWarnings("unchecked")
            List<String> shown = (List<String>) browser.script("return Array.from(document.querySelectorAll("
                    + "'#retention details')).filter(d => !d.hidden).map(d => d.querySelector('summary .rsite')"
                    + ".textContent)");
            assertThat(shown).singleElement().asString().startsWith("io.memscope.cli.RetentionPlugin.store(");
            assertThat(browser.script("return document.querySelectorAll('#retention .rhit').length")).isNotEqualTo(0L);
            Files.write(shots.resolve("retention-search.png"), browser.driver().findElement(
                    org.openqa.selenium.By.id("retention-section")).getScreenshotAs(
                    org.openqa.selenium.OutputType.BYTES));
            assertThat(browser.consoleErrors()).isEmpty();
            assertThat(browser.requests()).allSatisfy(url -> assertThat(url).startsWith("file:"));
        }
    }

    /** The first retainedBy shape of a held site: a leak suspect's, else a top held site's. */
    static Map<String, Object> held(Object report, String site) {
        return Jvms.sites(report, "leakSuspects").contains(site) ? first(report, "leakSuspects", site)
                : first(report, "topLiveSites", site);
    }

    /** The first retainedBy shape of a site in a report list. */
    static Map<String, Object> first(Object report, String list, String site) {
        for (Map<String, Object> e : Json.list(report, list)) {
            if (site.equals(e.get("site"))) {
                List<Map<String, Object>> shapes = Json.list(e, "retainedBy");
                assertThat(shapes).as(site + " in " + list).isNotEmpty();
                return shapes.get(0);
            }
        }
        throw new AssertionError(site + " is not in " + list + ": " + Jvms.sites(report, list));
    }

    @SuppressWarnings("unchecked")
    static List<String> path(Map<String, Object> shape) {
        return (List<String>) shape.get("path");
    }

    static String last(Map<String, Object> shape) {
        List<String> p = path(shape);
        assertThat(p).as(shape.toString()).isNotEmpty();
        return p.get(p.size() - 1);
    }
}
