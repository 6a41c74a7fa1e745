package io.memscope.agent.jmx;

/**
 * Memory a window of time left behind at one site with one stack, as an MXBean value (a {@code CompositeData} with
 * the items {@code site}, {@code type}, {@code bytes}, {@code objects}, {@code samples}, {@code unconfirmedBytes},
 * {@code unconfirmedSamples}, {@code stack}): sampled heap objects held (reachable at a collection that examined the
 * whole heap; estimates, see {@link AgentMXBean}) and, apart, those still there that no such collection judged; or
 * native blocks not freed (exact).
 */
public final class HeldRow {
    private final String site;
    private final String type;
    private final long bytes;
    private final long objects;
    private final long samples;
    private final long unconfirmedBytes;
    private final long unconfirmedSamples;
    private final String[] stack;

    HeldRow(String site, String type, long bytes, long objects, long samples, long unconfirmedBytes,
            long unconfirmedSamples, String[] stack) {
        this.site = site;
        this.type = type;
        this.bytes = bytes;
        this.objects = objects;
        this.samples = samples;
        this.unconfirmedBytes = unconfirmedBytes;
        this.unconfirmedSamples = unconfirmedSamples;
        this.stack = stack;
    }

    /** @return {@code pkg.Class.method(File.java:LINE)}: the first frame outside the JDK and memscope */
    public String getSite() {
        return site;
    }

    /** @return the allocated type ({@code byte[]}), or {@code native:direct-buffer} / {@code native:unsafe} */
    public String getType() {
        return type;
    }

    /**
     * @return bytes held: estimated for heap objects (reachable at a collection that examined the whole heap), exact
     *         for native blocks
     */
    public long getBytes() {
        return bytes;
    }

    /** @return objects held (estimated) or native blocks outstanding (exact) */
    public long getObjects() {
        return objects;
    }

    /** @return sampled objects (heap) or blocks (native) behind the figures */
    public long getSamples() {
        return samples;
    }

    /**
     * @return heap: estimated bytes of objects still there that no collection that examined the whole heap judged
     *         (they may be garbage; never in {@link #getBytes()}); 0 for native blocks
     */
    public long getUnconfirmedBytes() {
        return unconfirmedBytes;
    }

    /** @return heap: the sampled objects behind {@link #getUnconfirmedBytes()} */
    public long getUnconfirmedSamples() {
        return unconfirmedSamples;
    }

    /** @return the allocation's stack, top frame first (empty when stacks are off) */
    public String[] getStack() {
        return stack.clone();
    }
}
