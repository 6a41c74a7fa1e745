package io.memscope.agent.jmx;

/**
 * The running agent as seen over JMX, registered as {@code io.memscope:type=Agent} while a capture runs (option
 * {@code jmx=true}, the default). Read by {@code memscope live <pid>}.
 *
 * <p>Bytes and objects per site are estimates from the samples (Horvitz-Thompson weights, unbiased); "live" means
 * sampled objects not yet seen collected (a collected object drops out after the GC cleared its weak reference,
 * usually within 100 ms of that GC).
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
    SiteRow[] topSitesByLiveBytes(int n);

    /** @return the {@code n} sites with the most allocated bytes, largest first */
    SiteRow[] topSitesByAllocatedBytes(int n);

    // Added for `memscope top`: held heap, allocation rate, native memory and GCs.

    /**
     * @return estimated heap bytes held: sampled objects allocated before the start of the last processed GC and not
     *         collected by it (reachable at that GC, as far as it looked: a young collection leaves old-generation
     *         garbage held until a collection that examines the old generation); 0 before the first GC
     */
    long getHeldBytes();

    /** @return milliseconds since the start of the GC that {@link #getHeldBytes()} refers to, -1 before the first */
    long getHeldAgeMillis();

    /** @return estimated heap bytes allocated per second over all sites during the agent's last full second */
    long getAllocationRate();

    /** @return native bytes (direct buffers, Unsafe, FFM arenas) allocated and not yet freed; 0 with native=false */
    long getNativeOutstandingBytes();

    /** @return native blocks allocated and not yet freed */
    long getNativeOutstandingBlocks();

    /** @return garbage collections seen since the capture started (pauses and concurrent cycles), -1 with gc=false */
    long getGcCount();

    /**
     * @param from collections to skip (a {@link #getGcCount()} read earlier)
     * @return the collections after the first {@code from}, oldest first, at most 1000
     */
    GcRow[] gcSince(long from);

    /** @return the {@code n} sites with the most held bytes, largest first (sites with nothing held omitted) */
    SiteRow[] topSitesByHeldBytes(int n);

    /**
     * @return the {@code n} sites with the highest allocation rate during the agent's last full second, largest
     *         first (sites that allocated nothing then omitted)
     */
    SiteRow[] topSitesByAllocationRate(int n);
}
