package io.memscope.cli;

import io.memscope.error.MemscopeException;
import io.memscope.jmx.AgentClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.Attribute;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/**
 * Reads one {@link TopFrame} after another from a JVM under the memscope agent: the agent's MXBean
 * ({@code io.memscope:type=Agent}: held, live and allocated heap per site, allocation rate, native memory, GCs) and
 * the JVM's own platform MXBeans (heap usage, bytes allocated by all threads). Keeps what rates and the GC window
 * need between two reads.
 */
final class TopSource {
    private static final String[] AGENT_ATTRIBUTES = {"Mode", "IntervalBytes", "UptimeMillis", "HeldBytes",
        "HeldAgeMillis", "AllocationRate", "NativeOutstandingBytes", "NativeOutstandingBlocks", "GcCount",
        "UnconfirmedBytes", "ProcessMemory", "ProcessMemoryParts", "MallocOutstandingBytes",
        "Attached"};

    private final MBeanServerConnection server;
    private final String pid;
    private final ObjectName agent;
    private final ObjectName memory;
    private final ObjectName threading;
    private boolean threadAllocation = true;
    private long lastAllocated = -1;
    private long lastNanos;
    private long lastGcCount = -1;
    private long gcWindowStart = System.nanoTime();

    TopSource(MBeanServerConnection server, String pid) throws Exception {
        this.server = server;
        this.pid = pid;
        this.agent = new ObjectName(AgentClient.OBJECT_NAME);
        this.memory = new ObjectName("java.lang:type=Memory");
        this.threading = new ObjectName("java.lang:type=Threading");
        if (!server.isRegistered(agent)) {
            throw MemscopeException.configuration("JVM " + pid + " runs no memscope agent (no MBean "
                    + AgentClient.OBJECT_NAME + "): start it with `memscope run`, -javaagent or `memscope attach` "
                    + "(and jmx=true)");
        }
        try {
            server.getAttribute(agent, "UnconfirmedBytes");
        } catch (javax.management.AttributeNotFoundException older) {
            throw MemscopeException.configuration("the memscope agent in JVM " + pid
                    + " is older than this CLI (no unconfirmed-heap figures): restart it with this version's agent");
        }
    }

    /** Walks the JVM's heap now and reads back each site's main path from a GC root ({@code w}). */
    TopPaths paths() throws Exception {
        return TopPaths.walk(server, agent);
    }

    /** The JVM ended (or is ending) while {@code top} read it. */
    static final class Ended extends Exception {
        private static final long serialVersionUID = 1L;

        Ended(String pid) {
            super("JVM " + pid + " ended", null, false, false);
        }
    }

    /**
     * @return the next frame, with {@code rows} sites ordered by {@code sort}
     * @throws Ended when the JVM ended or is ending (its agent unregisters the MXBean at exit, then the connection goes)
     * @throws MemscopeException (configuration) when the agent's capture has ended (detach, {@code duration}) while the
     *         JVM runs on
     */
    TopFrame next(TopSort sort, int rows) throws Exception {
        try {
            return read(sort, rows);
        } catch (javax.management.InstanceNotFoundException gone) {
            if (ended(pid, 5_000)) {
                throw new Ended(pid);
            }
            throw MemscopeException.configuration("the memscope agent in JVM " + pid + " stopped capturing (detached, "
                    + "or its duration ended)");
        } catch (MemscopeException e) {
            throw e;
        } catch (Exception e) {
            if (ended(pid, 10_000)) {
                throw new Ended(pid);
            }
            throw e;
        }
    }

    /** @return whether the process is gone, or goes within {@code millis} */
    static boolean ended(String pid, long millis) {
        try {
            java.util.Optional<ProcessHandle> p = ProcessHandle.of(Long.parseLong(pid));
            if (p.isEmpty() || !p.get().isAlive()) {
                return true;
            }
            p.get().onExit().get(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
            return true;
        } catch (NumberFormatException | java.util.concurrent.ExecutionException
                 | java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private TopFrame read(TopSort sort, int rows) throws Exception {
        Map<String, Object> a = new LinkedHashMap<>();
        for (Attribute at : server.getAttributes(agent, AGENT_ATTRIBUTES).asList()) {
            a.put(at.getName(), at.getValue());
        }
        CompositeData heap = (CompositeData) server.getAttribute(memory, "HeapMemoryUsage");
        long now = System.nanoTime();
        long allocationRate = num(a, "AllocationRate");
        boolean exact = false;
        if (threadAllocation) {
            try {
                long allocated = (Long) server.getAttribute(threading, "TotalThreadAllocatedBytes");
                if (allocated >= 0 && lastAllocated >= 0 && now > lastNanos) {
                    allocationRate = Math.round((allocated - lastAllocated) * 1e9 / (now - lastNanos));
                    exact = true;
                }
                lastAllocated = allocated;
                lastNanos = now;
            } catch (Exception unsupported) {
                threadAllocation = false; // JVM without the attribute, or measurement disabled: the agent's estimate
            }
        }
        long gcCount = num(a, "GcCount");
        if (gcCount < lastGcCount) {
            lastGcCount = -1; // a new capture (attached again): its GCs count from 0
        }
        long window = 0;
        int pauses = 0;
        int cycles = 0;
        long pauseMillis = 0;
        long pauseMax = 0;
        Map<String, Integer> collectors = new LinkedHashMap<>();
        if (lastGcCount >= 0 && gcCount >= 0) {
            window = Math.max(1, (now - gcWindowStart) / 1_000_000L);
            Object[] gcs = (Object[]) server.invoke(agent, "gcSince", new Object[] {lastGcCount},
                    new String[] {long.class.getName()});
            for (Object o : gcs) {
                CompositeData g = (CompositeData) o;
                long d = (Long) g.get("durationMillis");
                if ((Boolean) g.get("pause")) {
                    pauses++;
                    pauseMillis += d;
                    pauseMax = Math.max(pauseMax, d);
                } else {
                    cycles++;
                }
                collectors.merge((String) g.get("name"), 1, Integer::sum);
            }
            gcCount = lastGcCount + gcs.length;
        }
        lastGcCount = gcCount;
        gcWindowStart = now;
        List<String> names = new ArrayList<>(collectors.keySet());
        names.sort((x, y) -> collectors.get(y) - collectors.get(x));
        Object result = server.invoke(agent, sort.operation, new Object[] {rows},
                new String[] {int.class.getName()});
        List<TopFrame.Row> list = rows(result);
        if (sort == TopSort.HELD && list.size() < rows) {
            // The agent lists only sites holding something (held or unconfirmed): before the first whole-heap GC,
            // or in a program that holds little, that is a row or two while it allocates hundreds of MiB a second.
            list = withLive(list, rows(server.invoke(agent, TopSort.LIVE.operation, new Object[] {rows},
                    new String[] {int.class.getName()})), rows);
        }
        return new TopFrame(pid, (String) a.get("Mode"), num(a, "IntervalBytes"), num(a, "UptimeMillis"),
                System.currentTimeMillis(), (Long) heap.get("used"), (Long) heap.get("committed"),
                (Long) heap.get("max"), num(a, "HeldBytes"), num(a, "HeldAgeMillis"), allocationRate, exact,
                num(a, "NativeOutstandingBytes"), num(a, "NativeOutstandingBlocks"), window, pauses, pauseMillis,
                pauseMax, cycles, names, sort, list, Math.max(0, num(a, "UnconfirmedBytes")), processMemory(a),
                a.get("MallocOutstandingBytes") instanceof Number m ? m.longValue() : -1,
                Boolean.TRUE.equals(a.get("Attached")));
    }

    private static List<TopFrame.Row> rows(Object result) {
        List<TopFrame.Row> list = new ArrayList<>();
        if (result instanceof CompositeData[]) {
            for (CompositeData c : (CompositeData[]) result) {
                AgentClient.SiteUsage u = AgentClient.siteUsage(c);
                list.add(new TopFrame.Row(u.site(), u.type(), u.heldBytes(), u.liveBytes(), u.allocationRate(),
                        u.allocatedBytes(), u.unconfirmedBytes()));
            }
        }
        return list;
    }

    /**
     * @return the sites holding something, then the sites with the most live bytes not among them, up to {@code rows}
     *         in all; the added rows hold nothing (held and unconfirmed 0), which is how the screen tells them apart
     */
    static List<TopFrame.Row> withLive(List<TopFrame.Row> holding, List<TopFrame.Row> byLive, int rows) {
        List<TopFrame.Row> all = new ArrayList<>(holding);
        java.util.Set<String> listed = new java.util.HashSet<>();
        for (TopFrame.Row r : holding) {
            listed.add(r.site() + '\n' + r.type());
        }
        for (TopFrame.Row r : byLive) {
            if (all.size() >= rows) {
                break;
            }
            if (listed.add(r.site() + '\n' + r.type())) {
                all.add(new TopFrame.Row(r.site(), r.type(), 0, r.liveBytes(), r.allocationRate(), r.allocatedBytes(),
                        0));
            }
        }
        return all;
    }

    /** @return the agent's latest process memory sample by part name; empty from an older agent or when it is off */
    private static Map<String, Long> processMemory(Map<String, Object> a) {
        Map<String, Long> m = new LinkedHashMap<>();
        if (a.get("ProcessMemory") instanceof long[] v && a.get("ProcessMemoryParts") instanceof String[] names
                && v.length == names.length) {
            for (int i = 0; i < v.length; i++) {
                m.put(names[i], v[i]);
            }
        }
        return m;
    }

    private static long num(Map<String, Object> a, String name) {
        Object v = a.get(name);
        return v instanceof Number ? ((Number) v).longValue() : -1;
    }
}
