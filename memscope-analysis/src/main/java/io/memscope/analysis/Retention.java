package io.memscope.analysis;

import java.util.List;
import java.util.Map;

/**
 * Why held memory is held: the paths from GC roots that keep each site's sampled objects alive, from the
 * recording's walk of the heap ({@link io.memscope.recording.RetentionWalk}), aggregated per site into shapes
 * ({@link RetentionPaths}). Written into report.json as {@code retention} and as {@code retainedBy} on each held
 * site; shown by the summary and the page.
 *
 * @param walk   the walk the paths come from, or null when the recording has none in the report's window
 * @param bySite the shapes of each site, largest first, by {@link #key}; a site the walk did not reach has none
 */
public record Retention(Walk walk, Map<String, List<RetainedBy>> bySite) {
    /** No walk: no paths. */
    public static final Retention NONE = new Retention(null, Map.of());

    public Retention {
        bySite = Map.copyOf(bySite);
    }

    /** @return the key of a site in {@link #bySite}: its frame and type */
    public static String key(String site, String type) {
        return site + "\u0000" + type;
    }

    /** @return the shapes that keep a site's objects alive, largest first; empty when there are none */
    public List<RetainedBy> of(SiteProfile site) {
        return bySite.getOrDefault(key(site.site(), site.type()), List.of());
    }

    /**
     * One walk of the heap, as the report shows it.
     *
     * @param trigger        {@code end} (the end of the capture) or {@code on demand}
     * @param timeMs         when it ran, ms since the run's start
     * @param outcome        {@code complete}, {@code time budget}, {@code memory budget} or {@code failed}
     * @param pauseMs        how long the application was stopped for it
     * @param totalMs        how long it took in all (preparing and naming run beside the application)
     * @param objectsVisited objects the walk kept a node for
     * @param referencesSeen references the JVM reported to it
     * @param memoryBytes    its memory in the recorded JVM at its largest
     * @param samplesTracked sampled objects tracked when it started
     * @param samplesReached those it reached (their paths are in the shapes)
     * @param detail         what stopped it or why it could not run, null when complete
     */
    public record Walk(String trigger, double timeMs, String outcome, double pauseMs, double totalMs,
                       long objectsVisited, long referencesSeen, long memoryBytes, long samplesTracked,
                       long samplesReached, String detail) {
        /** @return whether it covered the whole heap: a sample it did not reach was unreachable */
        public boolean complete() {
            return outcome.equals("complete");
        }
    }

    /**
     * One shape of path that keeps some of a site's objects alive.
     *
     * @param root    the GC root: {@code static pkg.Class.FIELD}, {@code thread NAME},
     *                {@code thread NAME: pkg.Class.method(File.java:LINE)} (a stack frame), {@code JNI global},
     *                {@code class pkg.Class}, {@code VM internal}; thread names that differ only in their numbers are
     *                folded into one with {@code *} ({@code thread pool-1-thread-*})
     * @param path    from the root down: each object's class and the field or array slot leading to the next
     *                ({@code java.util.ArrayList.elementData}, {@code java.lang.Object[]},
     *                {@code static pkg.Plugin.CACHE}); repeated links folded into one element ending in {@code *}
     *                ({@code java.util.LinkedList$Node.next*}, {@code java.util.TreeMap$Entry.{left,right}*},
     *                {@code (A -> B -> C)*}); the last element names the field or array that holds the site's object
     * @param objects estimated objects of the site it keeps alive
     * @param bytes   estimated bytes of the site it keeps alive
     * @param samples sampled objects of the site on paths of this shape
     */
    public record RetainedBy(String root, List<String> path, long objects, long bytes, long samples) {
        public RetainedBy {
            path = List.copyOf(path);
        }
    }
}
