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
}
