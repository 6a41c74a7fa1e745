package io.memscope.agent.capture;

/**
 * Where the JVMTI sampler's drain thread puts heap samples and their collections, with their own times and threads
 * (the drain thread records them on behalf of the allocating threads). String arguments are ids in the capture's
 * string table. Called by the drain thread only; implementations must not throw.
 */
interface HeapSampleSink {
    /**
     * An allocation the JVM sampled.
     *
     * @param timeNanos    when it was sampled ({@link System#nanoTime()}'s clock)
     * @param threadId     the allocating thread's id
     * @param threadNameId its name
     * @param sampleId     the sample's id (the "address" of its events); 0 when its collection is not tracked
     * @param siteId       its site
     * @param stackId      its stack, 0 if none
     * @param typeNameId   its exact type's name
     */
    void allocated(long timeNanos, long threadId, int threadNameId, long sampleId, long size, int siteId,
                   long stackId, int typeNameId);

    /**
     * A tracked sample was collected.
     *
     * @param timeNanos     the end of the collection that collected it (see {@link JvmtiHeapSampler} for when
     *                      that is exact)
     * @param lifetimeNanos from its allocation to {@code timeNanos}
     */
    void collected(long timeNanos, long sampleId, long size, long lifetimeNanos, int siteId);
}
