package io.memscope.analysis;

import java.util.List;
import java.util.Locale;

/**
 * The paths from GC roots in the terminal summary: under each leak suspect, the shape that keeps most of its bytes
 * alive, on one line, with class names without their packages ({@code held by static Leak.REGISTRY -> ...}); and a
 * line about the walk when it did not cover the heap.
 */
final class RetentionSummary {
    private RetentionSummary() {
    }

    /** The main path of a site, as one indented line, or nothing when it has none. */
    static void line(StringBuilder sb, Retention r, SiteProfile site) {
        List<Retention.RetainedBy> shapes = r.of(site);
        if (shapes.isEmpty()) {
            return;
        }
        Retention.RetainedBy main = shapes.get(0);
        long samples = 0;
        for (Retention.RetainedBy s : shapes) {
            samples += s.samples();
        }
        StringBuilder path = new StringBuilder(simple(main.root()));
        for (String step : main.path()) {
            path.append(" -> ").append(simple(step));
        }
        sb.append("      held by ").append(io.memscope.analysis.text.TerminalText.safe(path.toString()));
        sb.append(String.format(Locale.ROOT, " (%d of %d samples%s)%n", main.samples(), samples,
                shapes.size() > 1 ? ", " + (shapes.size() - 1) + " other path" + (shapes.size() > 2 ? "s" : "")
                        : ""));
    }

    /** A line when the walk did not cover the heap or could not run; nothing when it did. */
    static void note(StringBuilder sb, Retention r) {
        Retention.Walk w = r.walk();
        if (w == null || w.complete()) {
            return;
        }
        sb.append(String.format(Locale.ROOT, "  ! paths from GC roots: the heap walk %s: %d of %d tracked samples "
                + "reached%s%s%n", w.outcome().equals("failed") ? "failed" : "stopped at its " + w.outcome(),
                w.samplesReached(), w.samplesTracked(), w.detail() == null ? "" : " (" + w.detail() + ")", more(w)));
    }

    /** How to let the next walk reach more, after a walk its budget stopped; empty otherwise. */
    static String more(Retention.Walk w) {
        String option = switch (w.outcome()) {
            case "time budget" -> "pathsTime=MILLIS";
            case "memory budget" -> "pathsMemory=BYTES";
            default -> null;
        };
        if (option == null) {
            return "";
        }
        String paths = option.startsWith("pathsTime") ? "--time-budget=MS" : "--memory-budget=BYTES";
        return "; a larger budget reaches more: `memscope run` or `attach` with --agent-option " + option
                + ", `memscope paths` with " + paths;
    }

    /**
     * A step or root with its class names shortened: {@code static com.acme.Leak.REGISTRY} -> {@code static
     * Leak.REGISTRY}, {@code java.util.ArrayList.elementData} -> {@code ArrayList.elementData}; a root's description
     * after a thread name is kept as it is.
     */
    static String simple(String text) {
        if (text.startsWith("thread ")) {
            return text;
        }
        StringBuilder b = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            int start = i;
            while (i < text.length() && (Character.isJavaIdentifierPart(text.charAt(i)) || text.charAt(i) == '.')) {
                i++;
            }
            String word = text.substring(start, i);
            b.append(shortName(word));
            if (i < text.length()) {
                b.append(text.charAt(i++));
            }
        }
        return b.toString();
    }

    /** {@code java.util.ArrayList.elementData} -> {@code ArrayList.elementData}: drops leading lower-case segments. */
    private static String shortName(String dotted) {
        String[] parts = dotted.split("\\.", -1);
        int first = 0;
        while (first < parts.length - 1 && !parts[first].isEmpty() && Character.isLowerCase(parts[first].charAt(0))) {
            first++;
        }
        return String.join(".", java.util.Arrays.asList(parts).subList(first, parts.length));
    }
}
