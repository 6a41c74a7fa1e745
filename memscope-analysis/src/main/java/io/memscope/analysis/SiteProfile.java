package io.memscope.analysis;

import java.util.List;

/**
 * Everything a report knows about one allocation site, over the report's time window. Heap sites and native sites
 * share this record; the figures mean:
 *
 * <table>
 *   <caption>figures by kind of site</caption>
 *   <tr><th>figure</th><th>heap site</th><th>native site ({@code type} {@code native:...})</th></tr>
 *   <tr><td>{@code allocatedBytes}, {@code allocatedObjects}</td><td>allocated in the window: exact in exact mode,
 *       else estimated from samples (each weighs {@code 1/p} objects, {@code size/p} bytes)</td>
 *       <td>bytes and blocks allocated in the window (a reallocation counts its new size), exact</td></tr>
 *   <tr><td>{@code liveBytes}, {@code liveObjects}</td><td>held at the last collection of the window: sampled
 *       objects allocated before it and not collected by it (estimate)</td>
 *       <td>outstanding (allocated, not freed) at the end of the window, exact</td></tr>
 *   <tr><td>{@code peakBytes}</td><td>the site's own highest held bytes at any collection of the window</td>
 *       <td>the site's own highest outstanding bytes in the window</td></tr>
 *   <tr><td>{@code heldAtPeakBytes}, {@code heldAtPeakObjects}</td><td>held at the run's peak collection
 *       ({@link Peak}): this site's share of it</td><td>outstanding at the native peak ({@link Report.NativeMemory#peak()})
 *       </td></tr>
 * </table>
 *
 * @param site               the site as a frame, {@code pkg.Class.method(File.java:LINE)}
 * @param type               allocated type in Java syntax ({@code byte[]}, {@code java.lang.String}); native sites
 *                           {@code native:direct-buffer} or {@code native:unsafe}
 * @param nativeMemory       true for a native site
 * @param allocatedBytes     see the table
 * @param allocatedObjects   see the table
 * @param samples            sampled objects allocated at the site in the window (heap); 0 for native sites
 * @param liveBytes          see the table
 * @param liveObjects        see the table
 * @param liveSamples        heap: the sampled objects behind {@code liveBytes} (held at the last collection of the
 *                           window); native: 0
 * @param peakBytes          see the table
 * @param heldAtPeakBytes    see the table
 * @param heldAtPeakObjects  see the table
 * @param heldAtPeakSamples  heap: the sampled objects behind {@code heldAtPeakBytes}; native: 0
 * @param growthBytes        heap: held bytes at the end minus held bytes at the last collection before the midpoint of
 *                           the site's allocation window (first to last sampled allocation in the window; 0 held if
 *                           no collection came before it), never negative; native: outstanding bytes at the end
 *                           minus outstanding at the midpoint of its allocation window, never negative
 * @param medianAgeAtCollectionMs median age at collection of the site's samples collected in the window: allocation to
 *                           the collection that freed the sample. An object becomes garbage at some moment before
 *                           that collection, which Java does not say: this is an upper bound of its lifetime, and
 *                           for objects that die young it is about the time to the next collection (the collection
 *                           interval), not how long the program used them. -1 if none; native: -1
 * @param freedByFirstCollectionShare of the site's samples collected in the window, the share freed by the first
 *                           collection after their allocation (they survived none: dead within one collection
 *                           interval, whatever the age says); -1 if none; native: -1
 * @param leakSuspect        a heap or native leak suspect: held (outstanding) at the end and growing (see
 *                           {@link ReportBuilder})
 * @param temporary          a heap temporary (see {@link ReportBuilder})
 * @param stack              one sampled call stack, innermost frame first (may be empty)
 */
public record SiteProfile(String site, String type, boolean nativeMemory, long allocatedBytes, long allocatedObjects,
                          long samples, long liveBytes, long liveObjects, long liveSamples, long peakBytes,
                          long heldAtPeakBytes, long heldAtPeakObjects, long heldAtPeakSamples, long growthBytes,
                          double medianAgeAtCollectionMs, double freedByFirstCollectionShare, boolean leakSuspect,
                          boolean temporary, List<String> stack) {
}
