package io.memscope.cli;

import java.util.List;

/**
 * One refresh of {@code memscope top}: what the JVM and its agent reported at {@code takenAtMillis}. Bytes and
 * objects per site are the agent's estimates from its samples; heap used, committed and max, GC figures and (when
 * {@code allocationRateExact}) the allocation rate are the JVM's own.
 *
 * @param heapUsed            heap bytes in use now (live objects and garbage not yet collected)
 * @param heldBytes           estimated heap bytes reachable at the latest collection that examined the whole heap
 *                            (see AgentMXBean#getHeldBytes)
 * @param heldAgeMillis       how long ago that collection's snapshot was; -1 before the first
 * @param unconfirmedBytes    estimated heap bytes that survived collections but no whole-heap collection judged
 *                            (AgentMXBean#getUnconfirmedBytes): may be garbage
 * @param allocationRate      bytes per second allocated: over the last refresh by all threads of the JVM when
 *                            {@code allocationRateExact}, else the agent's estimate over its last full second
 * @param gcWindowMillis      length of the window the GC figures cover (since the previous refresh); 0 on the first
 * @param gcPauses            pauses that started in the window
 * @param gcPauseMillis       their total duration (1 ms precision)
 * @param gcPauseMaxMillis    the longest of them
 * @param gcCycles            concurrent cycles (not pauses) in the window
 * @param gcCollectors        names of the collectors that ran in the window, most frequent first
 * @param processMemory       the agent's latest sample of the process's memory by part name (docs/formats/recording.md
 *                            4.17: rss, rssAnon, heapCommitted, ...; -1 unknown); empty when it is not sampled
 * @param mallocBytes         estimated bytes malloc'd and not freed, from the agent's malloc samples; -1 when malloc
 *                            is not sampled (or the agent is older than this CLI)
 * @param attached            the agent was attached to the running JVM: native and malloc outstanding count only what
 *                            was allocated since (false when the agent is older than this CLI)
 */
record TopFrame(String pid, String mode, long intervalBytes, long uptimeMillis, long takenAtMillis,
                long heapUsed, long heapCommitted, long heapMax, long heldBytes, long heldAgeMillis,
                long allocationRate, boolean allocationRateExact, long nativeBytes, long nativeBlocks,
                long gcWindowMillis, int gcPauses, long gcPauseMillis, long gcPauseMaxMillis, int gcCycles,
                List<String> gcCollectors, TopSort sort, List<Row> rows, long unconfirmedBytes,
                java.util.Map<String, Long> processMemory, long mallocBytes, boolean attached) {

    /** One site, estimated from samples. {@code allocationRate} is bytes per second over the agent's last full second. */
    record Row(String site, String type, long heldBytes, long liveBytes, long allocationRate, long allocatedBytes,
               long unconfirmedBytes) {
    }
}
