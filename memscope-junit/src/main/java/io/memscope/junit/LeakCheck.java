package io.memscope.junit;

import io.memscope.jmx.AgentClient;
import io.memscope.jmx.AgentClient.HeldGroup;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link NoLeaks} and {@link MaxNativeMemory}: what the test left behind, asked from the agent after the test's
 * {@code @AfterEach} methods and a full GC, for the test's window and threads (see {@link Window#ownThreadOnly()}).
 */
final class LeakCheck {
    /** Sites shown in a message. */
    static final int SHOWN_SITES = 5;
    /** Frames shown per site. */
    static final int SHOWN_FRAMES = 8;

    private LeakCheck() {
    }

    private static long[] threads(Window w) {
        return new long[] {w.testThread};
    }

    private static long threadsFrom(Window w) {
        return w.ownThreadOnly() ? Long.MAX_VALUE : w.threadsFrom;
    }

    /**
     * @param afterFullGc whether the full GC ran: then only held bytes count (objects a collection of the whole heap
     *                    judged reachable); before it, held and unconfirmed together are an upper bound of what it
     *                    will leave (a GC only frees), so a test within its limit then needs no full GC
     * @return the failure message, or null
     */
    static String noLeaks(Window w, long toNanos, NoLeaks ann, long maxRetained, AgentClient agent,
                          boolean afterFullGc) {
        HeldFilter filter = new HeldFilter(ann.include());
        List<HeldGroup> groups = agent.heldSince(w.startNanos, toNanos, threads(w), threadsFrom(w), AgentClient.MAX_ROWS);
        if (afterFullGc) {
            groups = awaitVerdict(groups, w, toNanos, filter, maxRetained, agent);
        }
        List<HeldGroup> blamed = new ArrayList<>();
        Map<HeldFilter.Excuse, long[]> excused = new EnumMap<>(HeldFilter.Excuse.class);
        long held = 0;
        long samples = 0;
        long unconfirmed = 0;
        long unconfirmedSamples = 0;
        for (HeldGroup g : groups) {
            HeldFilter.Excuse e = filter.excuse(g);
            if (e == null) {
                if (g.bytes() > 0 || g.samples() > 0) {
                    blamed.add(g);
                }
                held += g.bytes();
                samples += g.samples();
                unconfirmed += g.unconfirmedBytes();
                unconfirmedSamples += g.unconfirmedSamples();
            } else {
                long[] a = excused.computeIfAbsent(e, k -> new long[2]);
                a[0] += g.samples() + g.unconfirmedSamples();
                a[1] += g.bytes() + g.unconfirmedBytes();
            }
        }
        if (!afterFullGc) {
            return held + unconfirmed <= maxRetained ? null : "over the limit before a full GC";
        }
        if (held <= maxRetained) {
            if (unconfirmed > maxRetained) {
                // the full GC ran but the agent saw no collection of the whole heap judge these objects: no evidence
                return "@NoLeaks: cannot judge: " + Sizes.format(unconfirmed) + " allocated by the test (" + unconfirmedSamples
                        + " sampled objects) is still in the heap after @AfterEach and a full GC, but the memscope "
                        + "agent saw no collection of the whole heap judge it (an agent of another version, or a "
                        + "collector whose System.gc() it does not recognize); held memory is only what such a "
                        + "collection found reachable.";
            }
            return null;
        }
        StringBuilder m = new StringBuilder("@NoLeaks: ").append(Sizes.format(held))
                .append(" allocated by the test is still held after it (estimated from ").append(samples)
                .append(" sampled objects still reachable after @AfterEach and a full GC), ")
                .append(Sizes.format(held - maxRetained)).append(" over the limit of ").append(Sizes.format(maxRetained));
        if (unconfirmed > 0) {
            m.append(" (and ").append(Sizes.format(unconfirmed)).append(" more that no collection of the whole heap "
                    + "judged: not counted)");
        }
        m.append(". Held by:");
        appendSites(m, blamed, "objects");
        if (!excused.isEmpty()) {
            m.append("\nNot counted:");
            excused.forEach((k, v) -> m.append(' ').append(v[0]).append(" samples (").append(Sizes.format(v[1]))
                    .append(") ").append(describe(k)).append(';'));
            m.setLength(m.length() - 1);
            m.append('.');
        }
        if (w.ownThreadOnly()) {
            m.append("\nOnly the test's own thread is judged while tests run in parallel.");
        }
        return m.toString();
    }

    /** How long a check after the full GC waits for the agent to apply the collection's verdict. */
    static final long VERDICT_WAIT_NANOS = 5_000_000_000L;

    /**
     * After the full GC: while more than the limit is still unconfirmed (no collection of the whole heap judged it
     * yet), waits for the agent to apply the collection's verdict, at most {@link #VERDICT_WAIT_NANOS}. The JVM tells
     * what a collection examined in a notification sent after it ends, from its own thread: on a busy machine the
     * agent may learn of the full GC a while after {@link System#gc()} returned.
     *
     * @return the groups as they are once judged, or as they are at the deadline
     */
    private static List<HeldGroup> awaitVerdict(List<HeldGroup> groups, Window w, long toNanos, HeldFilter filter,
                                                long maxRetained, AgentClient agent) {
        long deadline = System.nanoTime() + VERDICT_WAIT_NANOS;
        List<HeldGroup> g = groups;
        while (unconfirmed(g, filter) > maxRetained && System.nanoTime() - deadline < 0) {
            AllocationCheck.catchUp(agent);
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            g = agent.heldSince(w.startNanos, toNanos, threads(w), threadsFrom(w), AgentClient.MAX_ROWS);
        }
        return g;
    }

    /** @return the unconfirmed bytes of the groups the filter does not excuse */
    private static long unconfirmed(List<HeldGroup> groups, HeldFilter filter) {
        long sum = 0;
        for (HeldGroup g : groups) {
            if (filter.excuse(g) == null) {
                sum += g.unconfirmedBytes();
            }
        }
        return sum;
    }

    /** @return whether the test's native blocks still allocated now exceed the limit */
    static boolean nativeOver(Window w, long toNanos, long limit, AgentClient agent) {
        return sum(agent.nativeOutstandingSince(w.startNanos, toNanos, threads(w), threadsFrom(w), AgentClient.MAX_ROWS))
                > limit;
    }

    /** @return the failure message, or null; call after a full GC */
    static String maxNative(Window w, long toNanos, long limit, AgentClient agent) {
        long[] threads = threads(w);
        long from = threadsFrom(w);
        // the Cleaners the GC made due run on the Reference Handler thread: wait until within the limit or stable
        FullGc.settle(() -> sum(agent.nativeOutstandingSince(w.startNanos, toNanos, threads, from, AgentClient.MAX_ROWS)),
                limit);
        List<HeldGroup> groups = agent.nativeOutstandingSince(w.startNanos, toNanos, threads, from, AgentClient.MAX_ROWS);
        long outstanding = sum(groups);
        if (outstanding <= limit) {
            return null;
        }
        long blocks = groups.stream().mapToLong(HeldGroup::objects).sum();
        StringBuilder m = new StringBuilder("@MaxNativeMemory: ").append(Sizes.format(outstanding))
                .append(" of native memory allocated by the test (").append(blocks)
                .append(" direct buffers or Unsafe blocks; exact) is still allocated after @AfterEach, a full GC and "
                        + "the Cleaners it made due, ")
                .append(Sizes.format(outstanding - limit)).append(" over the limit of ").append(Sizes.format(limit))
                .append(". Allocated at:");
        appendSites(m, groups, "blocks");
        return m.toString();
    }

    private static long sum(List<HeldGroup> groups) {
        return groups.stream().mapToLong(HeldGroup::bytes).sum();
    }

    private static String describe(HeldFilter.Excuse e) {
        switch (e) {
            case WARM_UP:
                return "held by the JVM's one-time work on first use (class initialization or loading, lambda "
                        + "linkage, reflection)";
            case LOCALE_DATA:
                return "held by the JDK's locale data, loaded per locale on first use (its classes' literals, "
                        + "per-locale providers)";
            case FRAMEWORK:
                return "allocated by the test framework";
            default:
                return "at sites outside @NoLeaks(include)";
        }
    }

    /** Groups by site (summing its stacks) and prints the largest sites with their largest stack. */
    private static void appendSites(StringBuilder m, List<HeldGroup> groups, String unit) {
        Map<String, long[]> bySite = new LinkedHashMap<>();
        Map<String, HeldGroup> biggest = new LinkedHashMap<>();
        for (HeldGroup g : groups) {
            long[] a = bySite.computeIfAbsent(g.site(), k -> new long[2]);
            a[0] += g.bytes();
            a[1] += g.objects();
            biggest.merge(g.site(), g, (x, y) -> x.bytes() >= y.bytes() ? x : y);
        }
        List<Map.Entry<String, long[]>> sites = new ArrayList<>(bySite.entrySet());
        sites.sort((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]));
        for (Map.Entry<String, long[]> s : sites.subList(0, Math.min(SHOWN_SITES, sites.size()))) {
            HeldGroup g = biggest.get(s.getKey());
            m.append(String.format("%n  %12s  %8d %s  %-16s %s", Sizes.format(s.getValue()[0]), s.getValue()[1], unit,
                    g.type(), s.getKey()));
            int shown = 0;
            for (String frame : g.stack()) {
                if (shown == SHOWN_FRAMES || frame.startsWith("org.junit.") || frame.startsWith("java.lang.reflect.Method.")
                        || frame.startsWith("jdk.internal.reflect.") || frame.startsWith("java.lang.invoke.")
                        || frame.startsWith("io.memscope.junit.")) {
                    break;
                }
                m.append("\n        at ").append(frame);
                shown++;
            }
        }
        if (sites.size() > SHOWN_SITES) {
            m.append(String.format("%n  ... and %d more sites", sites.size() - SHOWN_SITES));
        }
    }
}
