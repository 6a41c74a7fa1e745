package io.memscope.analysis.html;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Measures report.html pages in headless Chromium: the time to first contentful paint and to the page's
 * {@code memscope-drawn} mark (everything drawn), from navigation start, median of several loads. A measuring
 * tool, not a test: timings are written to docs/benchmarks.md, never asserted.
 *
 * <pre>
 * java ... io.memscope.analysis.html.FirstPaint LOADS PAGE.html...      measure pages
 * java ... io.memscope.analysis.html.FirstPaint LOADS --synthetic N     a synthetic page of N stacks
 * </pre>
 */
public final class FirstPaint {
    private FirstPaint() {
    }

    public static void main(String[] args) throws Exception {
        int loads = Integer.parseInt(args[0]);
        List<Path> pages = new ArrayList<>();
        Path work = Files.createDirectories(Path.of("target", "first-paint").toAbsolutePath());
        if (args[1].equals("--synthetic")) {
            int n = Integer.parseInt(args[2]);
            Path p = work.resolve("synthetic-" + n + ".html");
            HtmlReport.writePage(PageFixture.scaled(n, 42).json(), p);
            pages.add(p);
        } else {
            for (int i = 1; i < args.length; i++) {
                pages.add(Path.of(args[i]).toAbsolutePath());
            }
        }
        try (HeadlessChromium browser = HeadlessChromium.start(work)) {
            for (Path page : pages) {
                double[] fcp = new double[loads];
                double[] drawn = new double[loads];
                for (int i = 0; i < loads; i++) {
                    browser.open(page);
                    @SuppressWarnings("unchecked")
                    Map<String, Object> t = (Map<String, Object>) browser.script(
                            "const p = performance.getEntriesByName('first-contentful-paint')[0];"
                                    + "const d = performance.getEntriesByName('memscope-drawn')[0];"
                                    + "return {fcp: p ? p.startTime : -1, drawn: d ? d.startTime : -1};");
                    fcp[i] = ((Number) t.get("fcp")).doubleValue();
                    drawn[i] = ((Number) t.get("drawn")).doubleValue();
                }
                java.util.Arrays.sort(fcp);
                java.util.Arrays.sort(drawn);
                System.out.printf(Locale.ROOT, "%s: %,d bytes, first contentful paint %.0f ms, drawn %.0f ms"
                                + " (median of %d; min %.0f / %.0f, max %.0f / %.0f)%n", page.getFileName(),
                        Files.size(page), fcp[loads / 2], drawn[loads / 2], loads, fcp[0], drawn[0],
                        fcp[loads - 1], drawn[loads - 1]);
                System.out.println("  last load, ms from navigation start: " + browser.script(
                        "return performance.getEntriesByType('mark').filter(m => m.name.startsWith('memscope-'))"
                                + ".map(m => m.name.substring(9) + ' ' + Math.round(m.startTime)).join(', ')"
                                + " + '; flame boxes drawn: ' + document.getElementById('flame').dataset.frames"));
                if (!browser.consoleErrors().isEmpty()) {
                    System.out.println("  console errors: " + browser.consoleErrors());
                }
            }
        }
    }
}
