package io.memscope.agent.capture;

import io.memscope.internal.store.StringTable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The bounds of a capture's tables that grow with what the application does (new classes, lambdas, call stacks,
 * threads, names), and their figures: how full each is and what was evicted or refused to stay within it. Read by
 * the recording's end metadata ({@code bounds.*} keys) and the MXBean ({@code Bounds}), so that a report built from
 * a capture that lost names or stacks says so.
 *
 * <table>
 *   <caption>Tables and what happens at their bound</caption>
 *   <tr><th>table</th><th>bound (option, default)</th><th>beyond it</th></tr>
 *   <tr><td>stack text ({@link StackFrames})</td><td>{@code maxStacks}, 65,536</td><td>written stacks evicted;
 *       new ones refused when every one held is unwritten (their samples have no stack)</td></tr>
 *   <tr><td>JVM sampler's resolved stacks and methods ({@link SampleResolver})</td><td>{@code maxStacks}, plus the
 *       first 36,864 stacks</td><td>emptied, resolved again from the frames the records bring</td></tr>
 *   <tr><td>JVM sampler's threads</td><td>none</td><td>threads found dead at two sweeps forgotten</td></tr>
 *   <tr><td>sites ({@link SiteTable}, the JVM's)</td><td>{@code maxSites}, 131,072</td><td>new sites get the site
 *       {@value SiteTable#BEYOND_BOUND}</td></tr>
 *   <tr><td>strings (the store's {@link StringTable})</td><td>{@code maxStrings}, 262,144</td><td>new names read
 *       {@value StringTable#BEYOND_BOUND}</td></tr>
 * </table>
 *
 * @param maxStacks  stacks whose text the agent keeps at most
 * @param maxSites   site ids the JVM's site table hands out at most
 * @param maxStrings strings the capture's string table holds at most
 */
public record TableBounds(int maxStacks, int maxSites, int maxStrings) {
    /** Strings a capture keeps at most unless told otherwise (option {@code maxStrings}). */
    public static final int DEFAULT_MAX_STRINGS = 262_144;

    /** The defaults: 65,536 stacks, 131,072 sites, 262,144 strings. */
    public static final TableBounds DEFAULTS = new TableBounds(StackFrames.DEFAULT_LIMIT, SiteTable.DEFAULT_LIMIT,
            DEFAULT_MAX_STRINGS);

    /** Applies these bounds to a capture not started yet, and to the JVM's site table. */
    void apply(CaptureSession s) {
        s.stacks.bounded().limit(maxStacks);
        SiteTable.limit(maxSites + 1);
        StringTable strings = s.sink.store().strings();
        // the site beyond the bound keeps its name when the strings are full too
        strings.intern(SiteTable.BEYOND_BOUND);
        strings.intern(SiteTable.BEYOND_TYPE);
        strings.limit(maxStrings + 1);
    }

    /**
     * The figures of a capture's bounded tables, by name (without the {@code bounds.} prefix of the metadata keys).
     *
     * @param sitesRefusedBefore {@link SiteTable#refused()} when the capture started (the table is the JVM's)
     */
    static Map<String, Long> figures(CaptureSession s, long sitesRefusedBefore) {
        Map<String, Long> m = new LinkedHashMap<>();
        StackFrames f = s.stacks.bounded();
        m.put("stacks", (long) f.size());
        m.put("stacksLimit", (long) f.limit());
        m.put("stacksHighest", (long) f.highest());
        m.put("stacksEvicted", f.evicted());
        m.put("stacksRefused", f.refused());
        m.put("stacksLost", f.lost());
        m.put("sites", (long) SiteTable.size() - 1);
        m.put("sitesLimit", (long) SiteTable.limit() - 1);
        m.put("sitesRefused", SiteTable.refused() - sitesRefusedBefore);
        StringTable strings = s.sink.store().strings();
        m.put("strings", (long) strings.size() - 1);
        m.put("stringsLimit", (long) strings.limit() - 1);
        // names beyond the bound: in the store's table (threads, types) and in the recording's (frames, sites)
        m.put("stringsRefused", strings.refused() + (s.recording == null ? 0 : s.recording.fileStringsRefused()));
        JvmtiHeapSampler j = s.jvmti;
        if (j != null) {
            SampleResolver r = j.resolver();
            m.put("resolvedStacks", (long) r.stacks());
            m.put("resolvedStacksEvicted", r.stacksEvicted());
            m.put("methods", (long) r.methods());
            m.put("methodsEvicted", r.methodsEvicted());
            m.put("threads", (long) r.threads());
            m.put("threadsForgotten", r.threadsForgotten());
        }
        return m;
    }

    /** @return the figures as recording metadata: {@code bounds.NAME} = value */
    static Map<String, String> metadata(Map<String, Long> figures) {
        Map<String, String> m = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : figures.entrySet()) {
            m.put("bounds." + e.getKey(), Long.toString(e.getValue()));
        }
        return m;
    }
}
