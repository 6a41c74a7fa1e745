package io.memscope.agent.jmx;

import io.memscope.jmx.AgentClient.HeldGroup;
import io.memscope.jmx.AgentClient.SiteUsage;

/**
 * The running agent as seen over JMX, registered as {@code io.memscope:type=Agent} while a capture runs (option
 * {@code jmx=true}, the default). Read by {@code memscope live <pid>}.
 *
 * <p>Bytes and objects per site are estimates from the samples (Horvitz-Thompson weights, unbiased); "live" means
 * sampled objects not yet seen collected (a collected object drops out after the GC cleared its weak reference,
 * usually within 100 ms of that GC).
 *
 * <p>Rows are core's records ({@link SiteUsage}, {@link HeldGroup}), mapped by the JVM's MXBean rules: one
 * {@code CompositeData} item per record component, a {@code List<String>} as a {@code String[]}. Readers in another
 * JVM (or without the agent's relocated classes) read them by item name through {@code AgentClient}.
 */
public interface AgentMXBean {
    /** @return {@code sample} or {@code exact} */
    String getMode();

    /** @return mean sampling interval in bytes */
    long getIntervalBytes();

    /** @return whether a capture is running */
    boolean isRunning();

    /** @return milliseconds since the capture started */
    long getUptimeMillis();

    /** @return estimated live heap bytes over all instrumented sites */
    long getLiveBytes();

    /** @return estimated heap bytes allocated at instrumented sites since the capture started */
    long getAllocatedBytes();

    /** @return events waiting in memory to be moved into the recording */
    long getStoreEvents();

    /** @return bytes the event store holds (its buffers' payload) */
    long getStoreRetainedBytes();

    /** @return events moved into the recording so far */
    long getRecordingEvents();

    /** @return the recording file being written, or an empty string */
    String getRecordingFile();

    /** @return the {@code n} sites with the most live bytes, largest first (sites with nothing live omitted) */
    SiteUsage[] topSitesByLiveBytes(int n);

    /** @return the {@code n} sites with the most allocated bytes, largest first */
    SiteUsage[] topSitesByAllocatedBytes(int n);

    // Added for `memscope top`: held heap, allocation rate, native memory and GCs.

    /**
     * @return estimated heap bytes held: sampled objects that a collection that examined the whole heap judged (they
     *         were allocated before its snapshot) and did not free, and that were not collected since: reachable at
     *         that collection. 0 before the first such collection (a full collection, the end of a G1 marking, a ZGC
     *         major or non-generational cycle, a Shenandoah cycle)
     */
    long getHeldBytes();

    /**
     * @return milliseconds since the snapshot of the whole-heap collection {@link #getHeldBytes()} refers to, -1 before
     *         the first
     */
    long getHeldAgeMillis();

    /**
     * @return estimated heap bytes unconfirmed: sampled objects that survived a collection that started after they were
     *         allocated but that no collection that examined the whole heap judged yet. A young collection does not
     *         look at the old generation, so they may be garbage; never part of {@link #getHeldBytes()}
     */
    long getUnconfirmedBytes();

    /** @return milliseconds since the start of the latest collection the figures refer to, -1 before the first */
    long getLastGcAgeMillis();

    /** @return estimated heap bytes allocated per second over all sites during the agent's last full second */
    long getAllocationRate();

    /**
     * @return whether the agent was attached to a running JVM: then its figures (native outstanding, allocated, held)
     *         cover only what happened since the attach
     */
    boolean isAttached();

    /** @return native bytes (direct buffers, Unsafe, FFM arenas) allocated and not yet freed; 0 with native=false */
    long getNativeOutstandingBytes();

    /**
     * @return estimated bytes malloc'd by native code and not freed since the capture began, from the malloc samples
     *         (option {@code malloc}; each sampled block weighs {@code size / p}); -1 when malloc is not sampled
     */
    long getMallocOutstandingBytes();

    /** @return native blocks allocated and not yet freed */
    long getNativeOutstandingBlocks();

    /**
     * @return the latest sample of the process's memory (option {@code processMemory}): values in the order of
     *         {@link #getProcessMemoryParts()}, bytes (but {@code threads}, a count), -1 where unknown; empty when the
     *         process's memory is not sampled
     */
    long[] getProcessMemory();

    /** @return the names of {@link #getProcessMemory()}'s values: rss, rssAnon, ..., trackedNative */
    String[] getProcessMemoryParts();

    /**
     * @return the push's counters (option {@code push}): {@code push.sent}, {@code push.dropped}, {@code push.failed},
     *         {@code push.scopeUnknown}, {@code push.lastError} when there was one, and the URL and name; empty when
     *         nothing is pushed
     */
    java.util.Map<String, String> getPushCounters();

    /** @return garbage collections seen since the capture started (pauses and concurrent cycles), -1 with gc=false */
    long getGcCount();

    /**
     * @param from collections to skip (a {@link #getGcCount()} read earlier)
     * @return the collections after the first {@code from}, oldest first, at most 1000
     */
    GcRow[] gcSince(long from);

    /**
     * @return the {@code n} sites with the most held bytes, largest first (sites with nothing held omitted); each row
     *         also has the site's unconfirmed bytes
     */
    SiteUsage[] topSitesByHeldBytes(int n);

    /**
     * @return the {@code n} sites with the highest allocation rate during the agent's last full second, largest
     *         first (sites that allocated nothing then omitted)
     */
    SiteUsage[] topSitesByAllocationRate(int n);

    // Asked by tests and metrics in the same JVM (memscope-junit, memscope-micrometer), which cannot link against the
    // agent's relocated classes: they call these by name through the platform MBean server.

    /**
     * Sampled heap objects allocated during a window and still there now, one row per site and stack, largest first:
     * held ({@code bytes}, {@code objects}, {@code samples}: a collection that examined the whole heap judged them
     * reachable) and, apart, unconfirmed ({@code unconfirmedBytes}, {@code unconfirmedSamples}: no such collection
     * judged them yet). Call it after a full GC (as the JUnit extension does) so that everything allocated in the
     * window has been judged. Bytes and objects are estimates from the samples.
     *
     * @param fromNanos {@link System#nanoTime()} of this JVM when the window began (inclusive)
     * @param toNanos   when it ended (exclusive): later allocations are not judged
     * @param threadIds   the allocating threads ({@code Thread.getId()}) to include
     * @param threadsFrom also every thread whose id is at least this (ids grow in creation order: the threads created
     *                    after the window began); {@code 0} = every thread, {@link Long#MAX_VALUE} = none
     * @param maxRows     rows at most (capped at 10 000)
     */
    HeldGroup[] heldSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom, int maxRows);

    /**
     * Native blocks (direct buffers, {@code Unsafe}) allocated during a window and not freed, one row per site and
     * stack, largest first; exact. Parameters as {@link #heldSince}. Empty when native tracking is off.
     */
    HeldGroup[] nativeOutstandingSince(long fromNanos, long toNanos, long[] threadIds, long threadsFrom, int maxRows);

    /**
     * Waits (at most 2 s) until the heap samples taken before the call are in every figure: the JVM's sampler hands
     * them to a background thread, which this wakes and waits for.
     *
     * @return whether they are
     */
    boolean catchUp();

    /**
     * Runs a full collection that also clears the soft references nobody used since the call (as the JVM does when
     * memory runs short), so that objects only softly reachable, caches the JVM may drop, are not held afterwards.
     *
     * @return whether soft references could be cleared (else it ran a plain {@code System.gc()})
     */
    boolean fullGcClearingSoftReferences();

    /**
     * @return heap samples the agent received but could not record (a failure on its sample path), plus events its
     *         store dropped; 0 when nothing was lost. Samples left out on purpose (memscope's own allocations,
     *         {@code include}/{@code exclude}) are not counted
     */
    long getDroppedSamples();

    /** @return failures inside the agent, counted instead of thrown into the application (the report lists them) */
    long getFailures();

    /**
     * @return the capture's bounded tables (stacks, sites, strings, the JVM sampler's resolved stacks, methods and
     *         threads): how many each holds, its limit, and what was evicted or refused to stay within it, by name
     *         ({@code stacks}, {@code stacksLimit}, {@code stacksEvicted}, ...; the recording's end metadata has the
     *         same figures as {@code bounds.NAME}, docs/agent.md lists them)
     */
    java.util.Map<String, Long> getBounds();

    /**
     * @return estimated heap bytes allocated per site since the capture started, indexed by site id (index 0: no
     *         site); one array, cheap enough to take before and after a test and diff (names: {@link #siteNames})
     */
    long[] allocatedBytesBySite();

    /** @return for each site id, {@code pkg.Class.method(File.java:LINE)} and its allocated type, tab-separated ("" if unknown) */
    String[] siteNames(int[] siteIds);

    /**
     * Walks the heap from the GC roots now, for the sampled objects still tracked, and writes the paths that keep them
     * alive into the recording (read with {@code memscope paths} or {@code memscope report}): one pause of at most
     * {@code timeBudgetMillis}, at most {@code memoryBudgetBytes} of memory in this JVM.
     *
     * @return a one-line account of the walk (what it reached, its pause), or why there was none
     */
    String walkHeap(long timeBudgetMillis, long memoryBudgetBytes);
}
