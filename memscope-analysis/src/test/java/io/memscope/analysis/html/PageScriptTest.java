package io.memscope.analysis.html;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The page's script as {@link PageTemplate} joins it: every module once, in its kind's order, no module writing
 * markup, no top-level name declared by two modules (they share one scope), and, in headless Chromium, a flame
 * graph laid out exactly as d3 7.9.0 (the whole d3 the page inlined before it took d3-hierarchy alone) laid out the
 * same tree, colours mixed and positions scaled as d3's interpolateRgb and scaleLinear did.
 */
class PageScriptTest {
    private static final Path MODULES = Path.of("src/main/resources/io/memscope/analysis/html/page");

    /**
     * The fixed tree: one stack per row (frames outermost first, as the inverted view nests them) and its value,
     * in this order; "main/a/x" twice (values add up), "main/b" both a stack and a caller, a zero stack, ties (d, e:
     * ordered by name), a sliver (other/q).
     */
    private static final Object[][] STACKS = {
        {"main/a/x", 3.0}, {"main/a/y", 7.0}, {"main/b", 0.1}, {"main/b/z", 0.2}, {"main/c/x", 7.0}, {"other/q", 1e-9},
        {"main/e", 3.0}, {"main/d", 3.0}, {"main/a/x", 2.0}, {"main/c/w/v/u", 0.3}, {"alone", 0.7}, {"main/f", 1.0},
        {"main/f/g", 0.0},
    };

    /**
     * d3 7.9.0's layout of {@link #STACKS}, recorded with node before the page dropped the whole d3:
     * {@code d3.hierarchy(root, children).sum(self).sort(by value, then name)}, then {@code d3.partition()}; nodes in
     * pre-order: path, depth, value, x0, x1.
     */
    private static final Object[][] D3_LAYOUT = {
        {"all", 0, 27.300000001, 0.0, 1.0},
        {"all/main", 1, 26.6, 0.0, 0.9743589743232837},
        {"all/main/a", 2, 12.0, 0.0, 0.43956043954433843},
        {"all/main/a/y", 3, 7.0, 0.0, 0.2564102564008641},
        {"all/main/a/x", 3, 5.0, 0.2564102564008641, 0.4395604395443385},
        {"all/main/c", 2, 7.3, 0.43956043954433843, 0.7069597069338109},
        {"all/main/c/x", 3, 7.0, 0.43956043954433843, 0.6959706959452026},
        {"all/main/c/w", 3, 0.3, 0.6959706959452026, 0.706959706933811},
        {"all/main/c/w/v", 4, 0.3, 0.6959706959452026, 0.706959706933811},
        {"all/main/c/w/v/u", 5, 0.3, 0.6959706959452026, 0.706959706933811},
        {"all/main/d", 2, 3.0, 0.7069597069338109, 0.8168498168198955},
        {"all/main/e", 2, 3.0, 0.8168498168198955, 0.9267399267059802},
        {"all/main/f", 2, 1.0, 0.9267399267059802, 0.9633699633346751},
        {"all/main/f/g", 3, 0.0, 0.9267399267059802, 0.9267399267059802},
        {"all/main/b", 2, 0.30000000000000004, 0.9633699633346751, 0.9743589743232836},
        {"all/main/b/z", 3, 0.2, 0.9633699633346751, 0.970695970660414},
        {"all/alone", 1, 0.7, 0.9743589743232837, 0.9999999999633701},
        {"all/other", 1, 1e-09, 0.9999999999633701, 1.0000000000000002},
        {"all/other/q", 2, 1e-09, 0.9999999999633701, 1.0000000000000002},
    };

    @Test
    void eachKindJoinsItsModulesOnceInOrderInsideOneStrictFunction() {
        for (PageTemplate.Kind kind : PageTemplate.Kind.values()) {
            String app = PageTemplate.app(kind);
            assertThat(app).startsWith("(function () {\n'use strict';\n").endsWith("})();\n");
            int at = 0;
            for (String module : kind.modules) {
                String marker = "// module " + module + "\n";
                assertThat(count(app, marker)).as(kind + " " + module).isEqualTo(1);
                assertThat(app.indexOf(marker)).as(module + " in order").isGreaterThan(at);
                at = app.indexOf(marker);
            }
            assertThat(count(app, "// module ")).isEqualTo(kind.modules.size());
        }
        assertThat(PageTemplate.Kind.DIFF.modules).doesNotContain("chart", "report-page", "report-tables", "api-tables");
        assertThat(PageTemplate.Kind.REPORT.modules).doesNotContain("diff-page");
    }

    /** The page's kind is the data's top-level {@code kind}, not a nested one nor a string that looks like one. */
    @Test
    void theKindIsReadFromTheTopLevelOnly() {
        assertThat(PageTemplate.Kind.of(PageFixture.diffJson())).isEqualTo(PageTemplate.Kind.DIFF);
        assertThat(PageTemplate.Kind.of(PageFixture.shop().json())).isEqualTo(PageTemplate.Kind.REPORT);
        assertThat(PageTemplate.Kind.of("{\"anomalies\":[{\"kind\":\"diff\"}],\"kind\":\"report\"}"))
                .isEqualTo(PageTemplate.Kind.REPORT);
        assertThat(PageTemplate.Kind.of("{\"note\":\"\\\"kind\\\":\\\"x\",\"kind\" : \"diff\"}"))
                .isEqualTo(PageTemplate.Kind.DIFF);
        assertThat(PageTemplate.Kind.of("{\"meta\":{\"kind\":\"diff\"}}")).isEqualTo(PageTemplate.Kind.REPORT);
    }

    @Test
    void everyModuleFileIsJoinedByAKindAndNoneIsLong() throws IOException {
        Set<String> joined = new HashSet<>(PageTemplate.Kind.REPORT.modules);
        joined.addAll(PageTemplate.Kind.DIFF.modules);
        try (Stream<Path> files = Files.list(MODULES)) {
            List<Path> all = files.toList();
            assertThat(all).hasSize(joined.size());
            for (Path f : all) {
                assertThat(joined).contains(f.getFileName().toString().replace(".js", ""));
                assertThat(Files.readAllLines(f)).as(f.toString()).hasSizeLessThanOrEqualTo(400);
            }
        }
    }

    @Test
    void theDiffPageInlinesNeitherUplotNorTheReportSections() {
        String report = new PageTemplate().render(PageFixture.shop().json());
        String diff = new PageTemplate().render(PageFixture.diffJson());
        assertThat(count(report, "<script>")).isEqualTo(3); // d3-hierarchy, uPlot, the page's own
        assertThat(count(diff, "<script>")).isEqualTo(2); // d3-hierarchy, the page's own
        assertThat(diff).doesNotContain("function renderChart(", "function renderTables(", "uPlot=")
                .contains("function renderDiffTables(", "d3-hierarchy");
        assertThat(report).contains("function renderChart(", "function renderTables(")
                .doesNotContain("function renderDiffTables(");
        assertThat(report + diff).doesNotContain("d3.min.js", "d3 7.", "d3.scaleLinear", "d3.select", "d3.interpolateRgb");
    }

    /** The security property of docs/formats/report-html.md: names go into the page as text only. */
    @Test
    void noModuleWritesMarkupOrEvaluatesText() throws IOException {
        List<String> sources = new ArrayList<>();
        try (Stream<Path> files = Files.list(MODULES)) {
            for (Path f : files.toList()) {
                sources.add(Files.readString(f, StandardCharsets.UTF_8));
            }
        }
        for (String s : sources) {
            String code = s.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
            assertThat(code).doesNotContain("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                    "new Function", "setTimeout('", "createContextualFragment", "DOMParser", ".html(");
        }
    }

    /** The modules share one scope: a name declared twice would silently replace the first. */
    @Test
    void noTopLevelNameIsDeclaredTwice() throws IOException {
        Pattern declaration = Pattern.compile("^(?:function\\s+([\\w$]+)|var\\s+([\\w$]+))", Pattern.MULTILINE);
        for (PageTemplate.Kind kind : PageTemplate.Kind.values()) {
            Map<String, String> seen = new java.util.HashMap<>();
            for (String module : kind.modules) {
                Matcher m = declaration.matcher(Files.readString(MODULES.resolve(module + ".js")));
                while (m.find()) {
                    String name = m.group(1) != null ? m.group(1) : m.group(2);
                    String before = seen.put(name, module);
                    assertThat(before).as(name + " declared by " + before + " and " + module).isNull();
                }
            }
            assertThat(seen).containsKeys("fmtBytes", "el", "buildTree", "renderFlame", "makeTable");
        }
    }

    /**
     * The page's flame graph (inverted view: the stacks' frames nest outermost first) of {@link #STACKS}: every box
     * wide enough to draw sits where d3's layout put it, to the last bit ({@code translate(x0 * width)}, width
     * {@code (x1 - x0) * width}, as d3's scaleLinear over [0, 1] computed them).
     */
    @Test
    void flameLayoutEqualsD3(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path page = dir.resolve("tree.html");
        HtmlReport.writePage(treePage(), page);
        try (HeadlessChromium browser = HeadlessChromium.shared()) {
            ReportPageBrowserTest.openClean(browser, page);
            browser.script("document.querySelector('#views button[data-view=inverted]').click()");
            double width = Double.parseDouble((String) browser.script(
                    "return document.querySelector('#flame svg').getAttribute('width')"));
            @SuppressWarnings("unchecked")
            List<List<String>> drawn = (List<List<String>>) browser.script(
                    "return Array.from(document.querySelectorAll('#flame g.frame')).map(g => [g.getAttribute('data-name'),"
                    + " g.getAttribute('data-depth'), g.getAttribute('transform'), g.firstChild.getAttribute('width')])");
            List<String> expected = new ArrayList<>();
            List<String> actual = new ArrayList<>();
            String hidden = null;
            for (Object[] n : D3_LAYOUT) {
                String path = (String) n[0];
                if (hidden != null && path.startsWith(hidden + "/")) {
                    continue; // below a sliver: not drawn
                }
                double x0 = Math.max(0, (double) n[3] * width);
                double x1 = Math.min(width, (double) n[4] * width);
                if (x1 - x0 < 1.5) {
                    hidden = path;
                    continue;
                }
                String name = path.substring(path.lastIndexOf('/') + 1);
                expected.add(name + " depth " + n[1] + " x " + x0 + " width " + Math.max(0.4, x1 - x0));
            }
            for (List<String> g : drawn) {
                Matcher m = Pattern.compile("translate\\(([^,]+),").matcher(g.get(2));
                assertThat(m.find()).isTrue();
                actual.add(g.get(0) + " depth " + g.get(1) + " x " + Double.parseDouble(m.group(1))
                        + " width " + Double.parseDouble(g.get(3)));
            }
            assertThat(actual).hasSizeGreaterThan(12).containsExactlyElementsOf(expected);
            assertThat(browser.consoleErrors()).isEmpty();
        }
    }

    /** The colour mix and the scale of the module "format" against what d3 7.9.0 computed for the same input. */
    @Test
    void colourMixAndScaleEqualD3(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path page = dir.resolve("blank.html");
        Files.writeString(page, "<!DOCTYPE html><html><body data-ready=\"true\"></body></html>");
        try (HeadlessChromium browser = HeadlessChromium.shared()) {
            browser.open(page);
            Object out = browser.script(Files.readString(MODULES.resolve("format.js")) + "\nreturn ["
                    + "[0.15, 0.433333305, 0.5, 0.8045, 1].map(t => mixRgb('#f6d5cf', '#c62828', t)),"
                    + "[0.15, 0.433333305, 0.5, 0.8045, 1].map(t => mixRgb('#d3e3f7', '#1f5fbf', t)),"
                    + "[0.4395604395443385, 0.7069597069338109, 0.9999999999633701].map("
                    + "linearScale(0.2564102564008641, 0.9633699633346751, 1234)).map(String), linearScale(2, 2, 10)(7)]");
            // d3.interpolateRgb(from, to)(t) and d3.scaleLinear().domain(d).range([0, 1234])(x), recorded with d3 7.9.0
            assertThat(out).isEqualTo(List.of(
                    List.of("rgb(239, 187, 182)", "rgb(225, 138, 135)", "rgb(222, 127, 124)", "rgb(207, 74, 73)",
                            "rgb(198, 40, 40)"),
                    List.of("rgb(184, 207, 239)", "rgb(133, 170, 223)", "rgb(121, 161, 219)", "rgb(66, 121, 202)",
                            "rgb(31, 95, 191)"),
                    List.of("319.6891191709845", "786.4352331606217", "1297.9378238341972"), 5L));
        }
    }

    /** A report page whose stacks are {@link #STACKS} (allocated bytes; one frame name per path element). */
    private static String treePage() {
        List<String> frames = new ArrayList<>();
        StringBuilder stackFrames = new StringBuilder();
        StringBuilder values = new StringBuilder();
        StringBuilder ones = new StringBuilder();
        StringBuilder zeros = new StringBuilder();
        for (Object[] s : STACKS) {
            List<String> ids = new ArrayList<>();
            for (String f : ((String) s[0]).split("/")) {
                if (!frames.contains(f)) {
                    frames.add(f);
                }
                ids.add(String.valueOf(frames.indexOf(f)));
            }
            stackFrames.append(stackFrames.isEmpty() ? "" : ",").append('[').append(String.join(",", ids)).append(']');
            values.append(values.isEmpty() ? "" : ",").append(Double.toString((double) s[1]));
            ones.append(ones.isEmpty() ? "" : ",").append('1');
            zeros.append(zeros.isEmpty() ? "" : ",").append('0');
        }
        StringBuilder names = new StringBuilder();
        StringBuilder kinds = new StringBuilder();
        for (String f : frames) {
            names.append(names.isEmpty() ? "" : ",").append('"').append(f).append('"');
            kinds.append(kinds.isEmpty() ? "" : ",").append('0');
        }
        return String.format(Locale.ROOT, "{\"format\":\"%s\",\"version\":%d,\"kind\":\"report\","
                + "\"meta\":{\"command\":\"java Tree\",\"mode\":\"sample\",\"intervalBytes\":0,\"durationMs\":1000},"
                + "\"totals\":{\"allocatedBytes\":27,\"exact\":false},"
                + "\"stacks\":{\"frames\":[%s],\"type\":[%s],\"allocBytes\":[%s],\"allocObjects\":[%s]},"
                + "\"frames\":[%s],\"frameKinds\":[%s],\"types\":[\"T\"],\"sites\":[]}",
                PageData.FORMAT, PageData.VERSION, stackFrames, zeros, values, ones, names, kinds);
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
