package io.memscope.analysis.html;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Assembles report.html from its parts: the page skeleton ({@code report.html} beside this class, with
 * {@code {{name}}} placeholders), the page's style ({@code report.css}), the page's script (the modules in
 * {@code page/}, see {@link Kind}), the inlined libraries ({@code lib/}, taken from the d3-hierarchy and uPlot WebJars
 * at build time) and the page data.
 *
 * <p><b>Script.</b> The page's script is its modules joined in a fixed order inside one function whose body is
 * {@code 'use strict'}: one scope that is the modules' shared namespace (a module's top-level functions and variables
 * are the later modules' too; nothing reaches the window). A report page joins every module; a diff page only those it
 * draws with, and no uPlot ({@link Kind}).
 *
 * <p><b>Data.</b> The page data is JSON inside {@code <script type="application/json" id="memscope-data">}. Inside
 * JSON, {@code <}, {@code >} and {@code &} can only occur in strings, so they are written as {@code \u003c},
 * {@code \u003e}, {@code \u0026}: no {@code </script>} or {@code <!--} can end or bend the element, whatever an
 * application names its classes or threads. U+2028 and U+2029 become {@code \u2028}/{@code \u2029} too (they end
 * a line in older script parsers). The browser never executes the element; the page's script reads it with
 * {@code JSON.parse(textContent)}.
 *
 * <p><b>Content-Security-Policy.</b> The page declares {@code default-src 'none'}: nothing is fetched (no fonts,
 * scripts, images, connections). Only the inline scripts whose SHA-256 hashes the policy lists may run, so even
 * markup that escaped the page's text-only rendering could not run a script. Styles may be inline (the libraries set
 * element styles).
 */
final class PageTemplate {
    private static final String BASE = "/io/memscope/analysis/html/";

    /** The two pages, each with the modules of {@code page/} it joins (in this order) and the libraries it inlines. */
    enum Kind {
        /**
         * One run: every module, uPlot for memory over time; "why memory is held" last (after "main" has drawn the
         * page, as its own function: a failure of one leaves the other drawn).
         */
        REPORT(List.of("format", "dom", "model", "flame", "table", "chart", "process-memory", "report-page", "report-tables", "api-tables",
                "main", "retention"), true),
        /** Two runs compared: no chart, no report sections, no retention paths. */
        DIFF(List.of("format", "dom", "model", "flame", "table", "diff-page", "main"), false);

        final List<String> modules;
        final boolean uplot;

        Kind(List<String> modules, boolean uplot) {
            this.modules = modules;
            this.uplot = uplot;
        }

        /** @return the page for a page-data document: its top-level {@code kind} ({@code "diff"} or anything else) */
        static Kind of(String pageDataJson) {
            return "diff".equals(topLevelString(pageDataJson, "kind")) ? DIFF : REPORT;
        }
    }

    /** What one kind of page inlines: its scripts in order, and the policy that lets exactly them run. */
    private record Scripts(String elements, String csp, String licences) {
    }

    /**
     * What every page shares, read and checked once per JVM: the skeleton, the styles, each kind's scripts, their
     * hashes for the content security policy, the licences (scripts to read, check and hash: a cold JVM spends a
     * moment on them, which {@code memscope run} spends while the command runs, see {@link #prepare}).
     */
    private static final class Parts {
        final String page;
        final String css;
        final Map<Kind, Scripts> scripts = new EnumMap<>(Kind.class);

        private Parts() {
            String hierarchy = resource("lib/d3-hierarchy/d3-hierarchy.min.js");
            String uplot = resource("lib/uplot/uPlot.iife.min.js");
            Properties versions = versions();
            String hierarchyLicence = "d3-hierarchy " + versions.getProperty("d3-hierarchy", "?") + " (ISC licence):\n"
                    + resource("lib/d3-hierarchy/LICENSE").strip();
            String uplotLicence = "uPlot " + versions.getProperty("uplot", "?") + " (MIT licence):\n"
                    + resource("lib/uplot/LICENSE").strip();
            for (Kind kind : Kind.values()) {
                List<String> list = new ArrayList<>();
                list.add(hierarchy);
                if (kind.uplot) {
                    list.add(uplot);
                }
                list.add(app(kind));
                StringBuilder elements = new StringBuilder();
                List<String> hashes = new ArrayList<>();
                for (String s : list) {
                    requireInlineSafe(s, "</script");
                    elements.append("<script>").append(s).append("</script>\n");
                    hashes.add("'sha256-" + sha256(s) + "'");
                }
                String csp = "default-src 'none'; script-src " + String.join(" ", hashes)
                        + "; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
                scripts.put(kind, new Scripts(elements.toString(), csp,
                        kind.uplot ? hierarchyLicence + "\n\n" + uplotLicence : hierarchyLicence));
            }
            css = resource("lib/uplot/uPlot.min.css") + "\n" + resource("report.css");
            requireInlineSafe(css, "</style");
            page = resource("report.html");
        }
    }

    /** Set once by {@link #parts}; a failure is not kept (the next page fails the same way, with the same error). */
    private static volatile Parts shared;

    private static Parts parts() {
        Parts p = shared;
        if (p == null) {
            synchronized (PageTemplate.class) {
                p = shared;
                if (p == null) {
                    p = new Parts();
                    shared = p;
                }
            }
        }
        return p;
    }

    /** Reads and checks what every page shares (once per JVM), so that a later {@link #render} does not wait for it. */
    static void prepare() {
        parts();
    }

    /** @return the complete page for one page-data JSON document (a report's or a diff's, by its {@code kind}) */
    String render(String pageDataJson) {
        Parts parts = parts();
        Scripts scripts = parts.scripts.get(Kind.of(pageDataJson));
        return fill(parts.page, new String[][] {
            {"csp", scripts.csp()},
            {"generator", "memscope report.html " + PageData.VERSION},
            {"css", parts.css},
            {"data", scriptJson(pageDataJson)},
            {"scripts", scripts.elements()},
            {"licences", htmlText(scripts.licences())},
        });
    }

    /** @return the page's own script for one kind: its modules, in order, inside one strict function */
    static String app(Kind kind) {
        StringBuilder sb = new StringBuilder(128 * 1024);
        sb.append("(function () {\n'use strict';\n");
        for (String module : kind.modules) {
            sb.append("// module ").append(module).append('\n').append(resource("page/" + module + ".js")).append('\n');
        }
        return sb.append("})();\n").toString();
    }

    /**
     * @return the value of a string member of a JSON document's top-level object, or null when it has none (nested
     *         objects, arrays and strings are skipped; only the top level is read)
     */
    static String topLevelString(String json, String name) {
        String key = "\"" + name + "\"";
        int depth = 0;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '"') {
                int end = stringEnd(json, i);
                if (depth == 1 && json.startsWith(key, i)) {
                    int at = end + 1;
                    while (at < json.length() && (Character.isWhitespace(json.charAt(at)) || json.charAt(at) == ':')) {
                        at++;
                    }
                    if (at < json.length() && json.charAt(at) == '"') {
                        return json.substring(at + 1, stringEnd(json, at));
                    }
                }
                i = end;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
        }
        return null;
    }

    /** @return the index of the quote that closes the string opening at {@code open} */
    private static int stringEnd(String json, int open) {
        int i = open + 1;
        while (i < json.length() && json.charAt(i) != '"') {
            i += json.charAt(i) == '\\' ? 2 : 1;
        }
        return i;
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

    private static Properties versions() {
        Properties versions = new Properties();
        try (InputStream in = PageTemplate.class.getResourceAsStream(BASE + "libraries.properties")) {
            if (in != null) {
                versions.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return versions;
    }

    /** Replaces each {@code {{name}}} once, in one pass, so that no inserted text is scanned for placeholders. */
    private static String fill(String template, String[][] values) {
        StringBuilder sb = new StringBuilder(template.length() + 256 * 1024);
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
