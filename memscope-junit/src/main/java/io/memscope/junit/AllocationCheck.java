package io.memscope.junit;

import io.memscope.jmx.AgentClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link MaxAllocation}: bytes the test allocated, exact per thread:
 *
 * <pre>
 *   test thread      its allocated bytes at the end minus at the start (ThreadMXBean, TLAB-exact)
 * + started threads  only while no other test runs (serial execution): threads created during the window that
 *                    are still alive (their whole life is inside it), and on JDK 21+ the threads that ended
 *                    meanwhile (the JVM-wide total, which keeps ended threads, minus what every live thread
 *                    allocated in the window)
 * </pre>
 *
 * Threads alive before the test (the framework's, the agent's, pools created earlier) are not counted, even when
 * the test hands them work: a pool created in {@code @BeforeAll} allocates on its own threads.
 */
final class AllocationCheck {
    /** Bytes of the test thread, of the threads it started, and whether the latter could be counted. */
    record Result(long own, long started, boolean startedCounted, boolean endedCounted) {
        long total() {
            return own + started;
        }
    }

    private AllocationCheck() {
    }

    static Result measure(Window w) {
        long own = w.currentAtEnd - w.currentAtStart;
        if (w.ownThreadOnly()) {
            return new Result(own, 0, false, false);
        }
        // The total first, live threads after: what other threads allocate in between can only make the share of
        // ended threads smaller, never blame the test for it (the start reads them the other way round).
        long total = ThreadAllocations.total();
        long ownToTotal = ThreadAllocations.current() - w.currentAtTotal;
        Map<Long, Long> now = ThreadAllocations.all();
        long started = 0;
        long liveDelta = ownToTotal;
        for (Map.Entry<Long, Long> e : now.entrySet()) {
            long id = e.getKey();
            if (id == w.testThread) {
                continue;
            }
            Long before = w.threadsAtStart.get(id);
            if (id >= w.threadsFrom) {
                started += e.getValue();
            }
            liveDelta += e.getValue() - (before == null ? 0 : before);
        }
        boolean ended = total >= 0 && w.totalAtStart >= 0;
        if (ended) {
            // what threads that are gone now allocated in the window (mostly the test's started-and-joined ones)
            started += Math.max(0, (total - w.totalAtStart) - liveDelta);
        }
        return new Result(own, started, true, ended);
    }

    /** @return the failure message, or null when within the limit */
    static String verdict(Result r, long limit, Window w, AgentClient agent) {
        if (r.total() <= limit) {
            return null;
        }
        StringBuilder m = new StringBuilder("@MaxAllocation: the test allocated ").append(Sizes.format(r.total()))
                .append(", ").append(Sizes.format(r.total() - limit)).append(" over the limit of ")
                .append(Sizes.format(limit)).append(" (").append(percent(r.total() - limit, limit))
                .append(" over): its thread ").append(Sizes.format(r.own()));
        if (r.startedCounted()) {
            m.append(", threads it started ").append(Sizes.format(r.started()));
            if (!r.endedCounted()) {
                m.append(" (threads that already ended are not seen before JDK 21)");
            }
        } else {
            m.append("; threads it started are not counted while other tests run in parallel");
        }
        m.append('.');
        if (w.sitesAtStart != null && agent.isPresent()) {
            List<String[]> top = topSites(w.sitesAtStart, agent, 5);
            if (!top.isEmpty()) {
                m.append("\nTop allocation sites during the test (estimated by the memscope agent from samples, every "
                        + "thread of the JVM, the test framework's left out):");
                for (String[] s : top) {
                    m.append(String.format("%n  %12s  %-14s %s", s[0], s[1], s[2]));
                }
            }
        } else {
            m.append("\nRun the test JVM with the memscope agent to see the sites that allocated it: ")
                    .append(MemscopeExtension.HOW_TO_ADD_THE_AGENT).append('.');
        }
        return m.toString();
    }

    /**
     * @return the agent's per-site allocated bytes now (by site id), to diff at the end; after the agent has caught
     *         up with the samples taken so far (its JVM sampler records them on a background thread)
     */
    static long[] sites(AgentClient agent) {
        catchUp(agent);
        return agent.allocatedBytesBySite();
    }

    /** Waits until the agent has recorded the samples taken so far (an older agent cannot: its figures then lag). */
    static void catchUp(AgentClient agent) {
        try {
            agent.catchUp();
        } catch (AgentClient.AgentUnavailableException olderAgent) {
            // figures as they are
        }
    }

    /** @return {bytes, type, site} of the sites that allocated most since {@code before}, the framework's left out */
    private static List<String[]> topSites(long[] before, AgentClient agent, int n) {
        long[] now = sites(agent);
        List<long[]> grown = new ArrayList<>(); // {site id, bytes}
        for (int site = 1; site < now.length; site++) {
            long d = now[site] - (site < before.length ? before[site] : 0);
            if (d > 0) {
                grown.add(new long[] {site, d});
            }
        }
        grown.sort((a, b) -> Long.compare(b[1], a[1]));
        List<String[]> out = new ArrayList<>();
        // names of a few more than shown, as some may be the framework's
        List<long[]> candidates = grown.subList(0, Math.min(grown.size(), 4 * n));
        int[] ids = candidates.stream().mapToInt(g -> (int) g[0]).toArray();
        List<String[]> names = agent.siteNames(ids);
        for (int i = 0; i < candidates.size() && i < names.size() && out.size() < n; i++) {
            String[] name = names.get(i);
            if (!name[0].isEmpty() && !HeldFilter.framework(name[0])) {
                out.add(new String[] {Sizes.format(candidates.get(i)[1]), name[1], name[0]});
            }
        }
        return out;
    }

    static String percent(long over, long limit) {
        return limit <= 0 ? "all of it" : Math.round(100.0 * over / limit) + "%";
    }
}
