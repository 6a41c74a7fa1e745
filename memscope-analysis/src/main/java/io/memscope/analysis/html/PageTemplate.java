package io.memscope.analysis.html;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Assembles report.html from its parts: the page skeleton ({@code report.html} beside this class, with
 * {@code {{name}}} placeholders), the page's style and script ({@code report.css}, {@code report.js}), the
 * inlined libraries ({@code lib/}, taken from the d3 and uPlot WebJars at build time) and the page data.
 *
 * <p><b>Data.</b> The page data is JSON inside {@code <script type="application/json" id="memscope-data">}. Inside
 * JSON, {@code <}, {@code >} and {@code &} can only occur in strings, so they are written as {@code \u003c},
 * {@code \u003e}, {@code \u0026}: no {@code </script>} or {@code <!--} can end or bend the element, whatever an
 * application names its classes or threads. U+2028 and U+2029 become {@code \u2028}/{@code \u2029} too (they end
 * a line in older script parsers). The browser never executes the element; the page's script reads it with
 * {@code JSON.parse(textContent)}.
 *
 * <p><b>Content-Security-Policy.</b> The page declares {@code default-src 'none'}: nothing is fetched (no fonts,
 * scripts, images, connections). Only the three inline scripts whose SHA-256 hashes the policy lists may run, so
 * even markup that escaped the page's text-only rendering could not run a script. Styles may be inline (the
 * libraries set element styles).
 */
final class PageTemplate {
    private static final String BASE = "/io/memscope/analysis/html/";

    private final Properties versions = new Properties();

    PageTemplate() {
        try (InputStream in = PageTemplate.class.getResourceAsStream(BASE + "libraries.properties")) {
            if (in != null) {
                versions.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the complete page for one page-data JSON document */
    String render(String pageDataJson) {
        String d3 = resource("lib/d3/d3.min.js");
        String uplot = resource("lib/uplot/uPlot.iife.min.js");
        // the page's own script: report.js, then "why memory is held" (retention.js) in the same element
        String app = resource("report.js") + "\n" + resource("retention.js");
        List<String> scripts = List.of(d3, uplot, app);
        for (String s : scripts) {
            requireInlineSafe(s, "</script");
        }
        String css = resource("lib/uplot/uPlot.min.css") + "\n" + resource("report.css");
        requireInlineSafe(css, "</style");
        List<String> hashes = new ArrayList<>();
        for (String s : scripts) {
            hashes.add("'sha256-" + sha256(s) + "'");
        }
        String csp = "default-src 'none'; script-src " + String.join(" ", hashes)
                + "; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
        String page = resource("report.html");
        return fill(page, new String[][] {
            {"csp", csp},
            {"generator", "memscope report.html " + PageData.VERSION},
            {"css", css},
            {"data", scriptJson(pageDataJson)},
            {"d3", d3},
            {"uplot", uplot},
            {"app", app},
            {"licences", htmlText(licences())},
        });
    }

    /** JSON made safe to sit inside a script element (see the class comment). */
    static String scriptJson(String json) {
        StringBuilder sb = new StringBuilder(json.length() + 64);
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            switch (c) {
                case '<' -> sb.append("\\u003c");
                case '>' -> sb.append("\\u003e");
                case '&' -> sb.append("\\u0026");
                case '\u2028' -> sb.append("\\u2028");
                case '\u2029' -> sb.append("\\u2029");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    /** Text made safe as HTML element content. */
    static String htmlText(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private String licences() {
        return "d3 " + versions.getProperty("d3", "?") + " (ISC licence):\n" + resource("lib/d3/LICENSE").strip()
                + "\n\nuPlot " + versions.getProperty("uplot", "?") + " (MIT licence):\n"
                + resource("lib/uplot/LICENSE").strip();
    }

    /** Replaces each {@code {{name}}} once, in one pass, so that no inserted text is scanned for placeholders. */
    private static String fill(String template, String[][] values) {
        StringBuilder sb = new StringBuilder(template.length() + 512 * 1024);
        int at = 0;
        while (true) {
            int open = template.indexOf("{{", at);
            if (open < 0) {
                sb.append(template, at, template.length());
                return sb.toString();
            }
            int close = template.indexOf("}}", open);
            String name = template.substring(open + 2, close);
            String value = null;
            for (String[] v : values) {
                if (v[0].equals(name)) {
                    value = v[1];
                }
            }
            if (value == null) {
                throw new IllegalStateException("report.html template: unknown placeholder " + name);
            }
            sb.append(template, at, open).append(value);
            at = close + 2;
        }
    }

    private static void requireInlineSafe(String text, String end) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains(end) || lower.contains("<!--")) {
            throw new IllegalStateException("an inlined part of report.html contains " + end + " or <!--");
        }
    }

    private static String sha256(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = PageTemplate.class.getResourceAsStream(BASE + name)) {
            if (in == null) {
                throw new IllegalStateException("memscope-analysis is missing its resource " + BASE + name
                        + " (the build puts the inlined libraries there)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
