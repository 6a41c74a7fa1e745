package io.memscope.launch;

/**
 * How the end of a capture ({@code memscope run}'s JVM exit, {@code duration}, {@code detach}) confirms which sampled
 * objects are still reachable, so that held memory at the end means reachable memory rather than what young
 * collections could not rule out.
 *
 * <p>A check ends with what a collection that examined the whole heap leaves: the samples it found unreachable
 * collected (their DEALLOCATE events), the others confirmed (the JVM sampler's library, the agent's LiveSites), and a GC
 * record whose {@code examined} is {@code WHOLE_HEAP} with its snapshot, at which the analysis measures held memory at
 * the end. Another way to prove reachability (a walk of the heap from its roots) fits the same contract: it records
 * such a GC record for its walk and DEALLOCATEs what it did not reach.
 */
public enum EndCheck {
    /**
     * A whole-heap collection ({@code System.gc()}: a full collection with Serial, Parallel and G1, a major cycle with
     * ZGC, a cycle with Shenandoah), skipped when more heap than the agent's {@code endCheckMaxHeap} is in use (its
     * pause grows with the heap) or when the JVM ignores {@code System.gc()} ({@code -XX:+DisableExplicitGC}); the
     * recording's metadata says which ({@code endCheck}).
     */
    GC,
    /** None: the capture ends at once; what no whole-heap collection judged stays unconfirmed in the report. */
    OFF
}
