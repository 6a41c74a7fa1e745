package io.memscope.analysis;

import java.util.List;

/**
 * The figures of one distinct call stack ending at one allocation site: what flame graphs and profile exports are
 * made of. A stack is identified by its frames and its site (the same frames can allocate several types; the JVM's
 * sampler names a site after its frame and the object's class). Events without a stack (capture with
 * {@code stackDepth=0}) form one stack per site whose only frame is the site. Figures cover the report's window and
 * mean what the same figures of {@link SiteProfile} mean; over all stacks of a site they add up to the site's
 * figures (allocated figures exactly, in exact mode too: each stack gets the site's exact total in proportion to its
 * samples, rounded by largest remainders).
 *
 * @param frames                  frames innermost first, {@code pkg.Class.method(File.java:LINE)}
 * @param site                    the allocation site (a frame), the stack's innermost application frame
 * @param type                    the allocated type ({@code native:...} for native memory)
 * @param nativeMemory            true for native memory
 * @param allocatedBytes          allocated in the window (heap: estimated, or exact totals spread by samples; native:
 *                                exact)
 * @param allocatedObjects        objects (native: blocks) allocated in the window
 * @param heldBytes               heap: held (confirmed reachable) at the last collection of the window; native:
 *                                outstanding at its end
 * @param heldObjects             heap: objects held then; native: blocks outstanding
 * @param heldAtPeakBytes         heap: held at the run's peak collection; native: outstanding at the native peak
 * @param heldAtPeakObjects       objects (blocks) behind {@code heldAtPeakBytes}
 * @param leakSuspect             the stack's site is a leak suspect (heap) or has outstanding memory at the end
 *                                (native)
 * @param allocatedBytesByBucket  allocated bytes per {@link Timeline} bucket, only the buckets with allocations;
 *                                the values add up to {@code allocatedBytes}
 * @param unconfirmedBytes        heap: present at the last collection of the window but judged by no whole-heap
 *                                collection (see {@link SiteProfile}); native: 0
 * @param heldAtPeakUnconfirmedBytes  heap: unconfirmed at the run's peak collection; native: 0
 */
public record StackProfile(List<String> frames, String site, String type, boolean nativeMemory, long allocatedBytes,
                           long allocatedObjects, long heldBytes, long heldObjects, long heldAtPeakBytes,
                           long heldAtPeakObjects, boolean leakSuspect, SparseSeries allocatedBytesByBucket,
                           long unconfirmedBytes, long heldAtPeakUnconfirmedBytes) {
}
