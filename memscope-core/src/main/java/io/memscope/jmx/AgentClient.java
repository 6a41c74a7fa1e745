package io.memscope.jmx;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/**
 * The memscope agent running in this JVM, read through its platform MXBean {@code io.memscope:type=Agent}. Libraries that
 * run next to the application (memscope-junit, memscope-micrometer) cannot link against the agent's classes: the
 * agent jar relocates them so that they never clash with the application's. They ask the MXBean by attribute and
 * operation name instead, as JConsole would.
 *
 * <p>Every method returns a neutral value (false, 0, an empty list) when no agent runs or it was started with
 * {@code jmx=false}; failures of the MBean server are reported as such, never thrown.
 */
public final class AgentClient {
    /**
     * The agent's MXBean, {@code io.memscope:type=Agent}; the agent registers it under this name. Joined at run time:
     * the agent's shading relocates string constants that start with {@code io.memscope}, and this one must stay.
     */
    public static final String OBJECT_NAME = String.join(".", "io", "memscope:type=Agent");

    /** Rows asked for at most per call (the agent caps them at 10 000). */
    public static final int MAX_ROWS = 10_000;

    private final MBeanServer server;
    private final ObjectName name;

    private AgentClient(MBeanServer server, ObjectName name) {
        this.server = server;
        this.name = name;
    }

    /** @return a client of this JVM's platform MBean server (present or not: see {@link #isPresent}) */
    public static AgentClient platform() {
        try {
            return new AgentClient(ManagementFactory.getPlatformMBeanServer(), new ObjectName(OBJECT_NAME));
        } catch (JMException e) {
            throw new IllegalStateException(e); // a constant, valid name
        }
    }

    /** @return whether an agent's MXBean is registered (the agent runs with {@code jmx=true}, the default) */
    public boolean isPresent() {
        return server.isRegistered(name);
    }

    /** @return whether a capture is running */
    public boolean isRunning() {
        return Boolean.TRUE.equals(attribute("Running"));
    }

    /** @return the agent's mean sampling interval in bytes, 0 without an agent */
    public long intervalBytes() {
        return longAttribute("IntervalBytes");
    }

    /** @return estimated heap bytes of sampled objects not yet seen collected (see docs/agent.md) */
    public long liveBytes() {
        return longAttribute("LiveBytes");
    }

    /** @return estimated heap bytes allocated since the capture started */
    public long allocatedBytes() {
        return longAttribute("AllocatedBytes");
    }

    /** @return native bytes (direct buffers, {@code Unsafe}) outstanding now; exact */
    public long nativeOutstandingBytes() {
        return longAttribute("NativeOutstandingBytes");
    }

    /**
     * @return the push's counters ({@code push.sent}, {@code push.dropped}, {@code push.failed},
     *         {@code push.scopeUnknown}, {@code push.lastError}, ...; docs/agent.md "Profiles pushed"), empty when the
     *         agent pushes nothing or is absent
     */
    public java.util.Map<String, String> pushCounters() {
        java.util.Map<String, String> m = new java.util.TreeMap<>();
        if (attribute("PushCounters") instanceof javax.management.openmbean.TabularData t) {
            for (Object row : t.values()) { // an MXBean's Map<String, String>: rows of (key, value)
                javax.management.openmbean.CompositeData c = (javax.management.openmbean.CompositeData) row;
                m.put(String.valueOf(c.get("key")), String.valueOf(c.get("value")));
            }
        }
        return m;
    }

    /**
     * @return estimated bytes malloc'd by native code and not freed, from the agent's malloc samples (option
     *         {@code malloc}); -1 when malloc is not sampled, the agent is absent or older than this library
     */
    public long mallocOutstandingBytes() {
        Object v = isPresent() ? optionalAttribute("MallocOutstandingBytes") : null;
        return v instanceof Number n ? n.longValue() : -1;
    }

    /** @return samples the agent could not record, see the agent's {@code DroppedSamples} */
    public long droppedSamples() {
        return longAttribute("DroppedSamples");
    }

    /** @return failures the agent counted instead of throwing */
    public long failures() {
        return longAttribute("Failures");
    }

    /** What {@link #topSites} orders by. */
    public enum SiteOrder {
        /** Bytes of sampled objects not yet seen collected (garbage counts until a GC frees it). */
        LIVE("topSitesByLiveBytes"),
        /** Bytes reachable at the latest collection that examined the whole heap (see {@link #heldBytes()}). */
        HELD("topSitesByHeldBytes"),
        /** Bytes allocated since the capture started. */
        ALLOCATED("topSitesByAllocatedBytes");

        final String operation;

        SiteOrder(String operation) {
            this.operation = operation;
        }
    }

    /**
     * @return the agent's estimated heap bytes held: reachable at the latest collection that examined the whole heap
     *         and not collected since (see docs/agent.md, "Live, held and unconfirmed"); 0 before the first such
     *         collection
     */
    public long heldBytes() {
        return longAttribute("HeldBytes");
    }

    /**
     * @return the agent's estimated heap bytes unconfirmed: sampled objects that survived collections that did not look
     *         at the old generation, which no whole-heap collection judged yet; they may be garbage and are never
     *         part of {@link #heldBytes()}
     */
    public long unconfirmedBytes() {
        return longAttribute("UnconfirmedBytes");
    }

    /**
     * @return milliseconds since the snapshot of the whole-heap collection {@link #heldBytes()} refers to; -1 before
     *         the first (or without an agent)
     */
    public long heldAgeMillis() {
        Object v = attribute("HeldAgeMillis");
        return v instanceof Number ? ((Number) v).longValue() : -1;
    }

    /**
     * @param n     sites at most
     * @param order what to order by (sites with nothing in that figure are left out)
     * @return the agent's top sites, largest first; bytes and objects are estimates
     */
    public List<SiteUsage> topSites(int n, SiteOrder order) {
        Object rows = invoke(order.operation, new Object[] {n}, new String[] {"int"});
        List<SiteUsage> out = new ArrayList<>();
        if (rows instanceof CompositeData[]) {
            for (CompositeData c : (CompositeData[]) rows) {
                out.add(siteUsage(c));
            }
        }
        return out;
    }

    /**
     * @param c one row of the agent's {@code topSitesBy...} operations
     * @return its figures (an item an older agent lacks reads as 0)
     */
    public static SiteUsage siteUsage(CompositeData c) {
        return new SiteUsage((String) c.get("site"), (String) c.get("type"), item(c, "liveBytes"),
                item(c, "liveObjects"), item(c, "liveSamples"), item(c, "heldBytes"), item(c, "heldObjects"),
                item(c, "unconfirmedBytes"), item(c, "allocatedBytes"), item(c, "allocatedObjects"),
                item(c, "samples"), item(c, "allocationRate"));
    }

    /**
     * @param c one row of the agent's {@code heldSince} or {@code nativeOutstandingSince}
     * @return the group (an item an older agent lacks reads as 0)
     */
    public static HeldGroup heldGroup(CompositeData c) {
        String[] stack = (String[]) c.get("stack");
        return new HeldGroup((String) c.get("site"), (String) c.get("type"), item(c, "bytes"), item(c, "objects"),
                item(c, "samples"), stack == null ? List.of() : List.copyOf(Arrays.asList(stack)),
                item(c, "unconfirmedBytes"), item(c, "unconfirmedSamples"));
    }

    private static long item(CompositeData c, String name) {
        return c.getCompositeType().containsKey(name) && c.get(name) instanceof Number v ? v.longValue() : 0;
    }

    /**
     * @return the agent's estimated allocated bytes per site id since its capture started (one array: cheap to take
     *         before and after a piece of work and diff); empty without an agent
     */
    public long[] allocatedBytesBySite() {
        Object v = invoke("allocatedBytesBySite", new Object[0], new String[0]);
        return v instanceof long[] ? (long[]) v : new long[0];
    }

    /** @return {site, type} of each site id ({@code pkg.Class.method(File.java:LINE)}; empty strings if unknown) */
    public List<String[]> siteNames(int[] siteIds) {
        Object v = invoke("siteNames", new Object[] {siteIds}, new String[] {"[I"});
        List<String[]> out = new ArrayList<>();
        if (v instanceof String[]) {
            for (String s : (String[]) v) {
                int tab = s.indexOf('\t');
                out.add(tab < 0 ? new String[] {s, ""} : new String[] {s.substring(0, tab), s.substring(tab + 1)});
            }
        }
        return out;
    }

    /**
     * Sampled heap objects allocated in a window and still there now, by site and stack, largest first: held (a
     * collection that examined the whole heap judged them reachable: call after a full GC) and, apart, unconfirmed
     * (no such collection judged them yet).
     *
     * @param fromNanos   {@link System#nanoTime()} when the window began
     * @param toNanos     when it ended
     * @param threadIds   allocating threads to include ({@code Thread.getId()})
     * @param threadsFrom also every thread whose id is at least this (ids grow in creation order: pass the id of a
     *                    thread created when the window began to include every thread created since); {@code 0} =
     *                    every thread, {@link Long#MAX_VALUE} = none
     * @param maxRows     rows at most
     */
    public List<HeldGroup> heldSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom, int maxRows) {
        return held("heldSince", fromNanos, toNanos, threadIds, threadsFrom, maxRows);
    }

    /**
     * Native blocks allocated in a window and not freed, by site and stack, largest first (exact); parameters as
     * {@link #heldSince}.
     */
    public List<HeldGroup> nativeOutstandingSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom,
                                                  int maxRows) {
        return held("nativeOutstandingSince", fromNanos, toNanos, threadIds, threadsFrom, maxRows);
    }

    /**
     * Waits (at most 2 s) until the heap samples taken before the call are in every figure: the agent's JVM sampler
     * records them on a background thread, shortly after the allocation. Call it before reading figures right after
     * the work they should include.
     *
     * @return whether they are (true without an agent: nothing to wait for)
     */
    public boolean catchUp() {
        Object v = invoke("catchUp", new Object[0], new String[0]);
        return !(v instanceof Boolean) || (Boolean) v;
    }

    /**
     * Runs a full collection that also clears the soft references nobody used since the call, as the JVM does when
     * memory runs short: objects only softly reachable (caches the JVM may drop) are then not held. Without an agent,
     * or when the agent cannot reach the JVM's soft-reference clock, it is a plain {@link System#gc()}.
     *
     * @return whether soft references could be cleared
     */
    public boolean fullGcClearingSoftReferences() {
        Object v = invoke("fullGcClearingSoftReferences", new Object[0], new String[0]);
        if (v == null) {
            System.gc();
        }
        return Boolean.TRUE.equals(v);
    }

    private List<HeldGroup> held(String op, long from, long to, long[] threads, long threadsFrom, int max) {
        Object rows = invoke(op, new Object[] {from, to, threads, threadsFrom, Math.min(max, MAX_ROWS)},
                new String[] {"long", "long", "[J", "long", "int"});
        List<HeldGroup> out = new ArrayList<>();
        if (rows instanceof CompositeData[]) {
            for (CompositeData c : (CompositeData[]) rows) {
                out.add(heldGroup(c));
            }
        }
        return out;
    }

    private long longAttribute(String attribute) {
        Object v = attribute(attribute);
        return v instanceof Number ? ((Number) v).longValue() : 0;
    }

    private Object attribute(String attribute) {
        if (!isPresent()) {
            return null;
        }
        try {
            return server.getAttribute(name, attribute);
        } catch (JMException e) {
            throw new AgentUnavailableException(OBJECT_NAME + " has no attribute " + attribute
                    + ": the agent is an older version than this library (" + e + ")");
        }
    }

    /** @return the attribute, or null when this agent does not have it (an older one) */
    private Object optionalAttribute(String attribute) {
        try {
            return server.getAttribute(name, attribute);
        } catch (JMException e) {
            return null;
        }
    }

    private Object invoke(String operation, Object[] args, String[] signature) {
        if (!isPresent()) {
            return null;
        }
        try {
            return server.invoke(name, operation, args, signature);
        } catch (JMException e) {
            throw new AgentUnavailableException(OBJECT_NAME + " cannot run " + operation
                    + ": the agent is an older version than this library (" + e + ")");
        }
    }

    /** The agent's MXBean is there but lacks what this library asks for (mixed memscope versions). */
    public static final class AgentUnavailableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AgentUnavailableException(String message) {
            super(message);
        }
    }

    /**
     * One site's figures as the agent reports them; bytes and objects are estimates from samples. The agent's MXBean
     * returns this record as it is: its components are the {@code CompositeData} items JMX tools see.
     *
     * @param site             {@code pkg.Class.method(File.java:LINE)}
     * @param type             the allocated type, e.g. {@code byte[]}
     * @param liveBytes        bytes of this site's sampled objects not yet seen collected
     * @param liveObjects      objects not yet seen collected
     * @param liveSamples      sampled objects of this site not yet seen collected
     * @param heldBytes        bytes of this site's sampled objects held: reachable at the latest collection that
     *                         examined the whole heap, not collected since
     * @param heldObjects      objects held
     * @param unconfirmedBytes bytes of this site's sampled objects that survived collections no whole-heap collection
     *                         judged yet (may be garbage; never in {@code heldBytes})
     * @param allocatedBytes   bytes allocated at this site since the capture started
     * @param allocatedObjects objects allocated there
     * @param samples          samples taken there
     * @param allocationRate   bytes per second this site allocated during the agent's last full second
     */
    public record SiteUsage(String site, String type, long liveBytes, long liveObjects, long liveSamples,
                            long heldBytes, long heldObjects, long unconfirmedBytes, long allocatedBytes,
                            long allocatedObjects, long samples, long allocationRate) {
    }

    /**
     * Memory a window left behind at one site with one stack. The agent's MXBean returns this record as it is: its
     * components are the {@code CompositeData} items JMX tools see ({@code stack} as a {@code String[]}).
     *
     * @param site    {@code pkg.Class.method(File.java:LINE)}: the first frame outside the JDK and memscope
     * @param type    the allocated type, or {@code native:direct-buffer} / {@code native:unsafe}
     * @param bytes   bytes held: estimated (heap: reachable at a collection that examined the whole heap) or exact
     *                (native)
     * @param objects objects held (estimated) or native blocks (exact)
     * @param samples sampled objects or blocks behind the figures
     * @param stack   the allocation's stack, top frame first
     * @param unconfirmedBytes   heap: estimated bytes still there that no whole-heap collection judged (never in
     *                {@code bytes}); native: 0
     * @param unconfirmedSamples heap: the sampled objects behind {@code unconfirmedBytes}
     */
    public record HeldGroup(String site, String type, long bytes, long objects, long samples, List<String> stack,
                            long unconfirmedBytes, long unconfirmedSamples) {
        /** A group without unconfirmed objects. */
        public HeldGroup(String site, String type, long bytes, long objects, long samples, List<String> stack) {
            this(site, type, bytes, objects, samples, stack, 0, 0);
        }
    }
}
