package io.memscope.agent.jmx;

/**
 * One allocation site's figures, as an MXBean value (a {@code CompositeData} with one item per getter, named
 * {@code site}, {@code type}, {@code liveBytes}, ... ). Bytes and objects are estimates (see {@link AgentMXBean}).
 */
public final class SiteRow {
    private final String site;
    private final String type;
    private final long liveBytes;
    private final long liveObjects;
    private final long liveSamples;
    private final long allocatedBytes;
    private final long allocatedObjects;
    private final long samples;
    private final long heldBytes;
    private final long heldObjects;
    private final long unconfirmedBytes;
    private final long allocationRate;

    SiteRow(String site, String type, long liveBytes, long liveObjects, long liveSamples, long allocatedBytes,
            long allocatedObjects, long samples, long heldBytes, long heldObjects, long unconfirmedBytes,
            long allocationRate) {
        this.site = site;
        this.type = type;
        this.liveBytes = liveBytes;
        this.liveObjects = liveObjects;
        this.liveSamples = liveSamples;
        this.allocatedBytes = allocatedBytes;
        this.allocatedObjects = allocatedObjects;
        this.samples = samples;
        this.heldBytes = heldBytes;
        this.heldObjects = heldObjects;
        this.unconfirmedBytes = unconfirmedBytes;
        this.allocationRate = allocationRate;
    }

    /** @return {@code pkg.Class.method(File.java:LINE)} */
    public String getSite() {
        return site;
    }

    /** @return the allocated type, e.g. {@code byte[]} */
    public String getType() {
        return type;
    }

    /** @return estimated bytes of this site's objects not yet collected */
    public long getLiveBytes() {
        return liveBytes;
    }

    /** @return estimated number of this site's objects not yet collected */
    public long getLiveObjects() {
        return liveObjects;
    }

    /** @return sampled objects of this site not yet collected */
    public long getLiveSamples() {
        return liveSamples;
    }

    /** @return estimated bytes allocated at this site since the capture started */
    public long getAllocatedBytes() {
        return allocatedBytes;
    }

    /** @return estimated objects allocated at this site since the capture started */
    public long getAllocatedObjects() {
        return allocatedObjects;
    }

    /** @return samples taken at this site */
    public long getSamples() {
        return samples;
    }

    /**
     * @return estimated bytes of this site's objects held: reachable at the latest collection that examined the whole
     *         heap and not collected since (see AgentMXBean)
     */
    public long getHeldBytes() {
        return heldBytes;
    }

    /** @return estimated number of this site's objects held */
    public long getHeldObjects() {
        return heldObjects;
    }

    /**
     * @return estimated bytes of this site's objects that survived a collection but that no collection that examined
     *         the whole heap judged yet: they may be garbage (never counted as held)
     */
    public long getUnconfirmedBytes() {
        return unconfirmedBytes;
    }

    /** @return estimated bytes per second this site allocated during the agent's last full second */
    public long getAllocationRate() {
        return allocationRate;
    }
}
