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
 *       objects a collection that examined the whole heap judged reachable and that were not collected since
 *       (estimate; see {@link ReportBuilder}, "Held memory")</td>
 *       <td>outstanding (allocated, not freed) at the end of the window, exact</td></tr>
 *   <tr><td>{@code unconfirmedBytes}</td><td>at the same collection: sampled objects still present that no
 *       whole-heap collection judged (they survived only young collections: may be garbage); never in
 *       {@code liveBytes}</td><td>0</td></tr>
 *   <tr><td>{@code peakBytes}</td><td>the site's own highest held bytes at any collection of the window
 *       ({@code peakUnconfirmedBytes}: unconfirmed at that collection)</td>
 *       <td>the site's own highest outstanding bytes in the window</td></tr>
 *   <tr><td>{@code heldAtPeakBytes}, {@code heldAtPeakObjects}</td><td>held at the run's peak collection
 *       ({@link Peak}): this site's share of it ({@code heldAtPeakUnconfirmedBytes}: unconfirmed then)</td>
 *       <td>outstanding at the native peak ({@link Report.NativeMemory#peak()})</td></tr>
 * </table>
 *
 * @param site               the site as a frame, {@code pkg.Class.method(File.java:LINE)}
 * @param type               allocated type in Java syntax ({@code byte[]}, {@code java.lang.String}); native sites
 *                           {@code native:direct-buffer}, {@code native:unsafe}, {@code native:arena} or
 *                           {@code native:malloc} (sampled: its figures are estimates, as a heap site's)
 * @param nativeMemory       true for a native site
 * @param allocatedBytes     see the table
 * @param allocatedObjects   see the table
 * @param samples            sampled objects allocated at the site in the window (heap, native:malloc); 0 for other
 *                           native sites
 * @param liveBytes          see the table
 * @param liveObjects        see the table
 * @param liveSamples        heap: the sampled objects behind {@code liveBytes} (held at the last collection of the
 *                           window); native:malloc: the sampled blocks outstanding at the end; other native: 0
 * @param peakBytes          see the table
 * @param heldAtPeakBytes    see the table
 * @param heldAtPeakObjects  see the table
 * @param heldAtPeakSamples  heap: the sampled objects behind {@code heldAtPeakBytes}; native:malloc: the sampled
 *                           blocks then; other native: 0
 * @param growthBytes        heap: held bytes at the end minus held bytes at the site's first reference collection
 *                           ({@link Growth}; 0 without one), never negative; native: outstanding bytes at the end
 *                           minus outstanding at the midpoint of its allocation window, never negative
 *                           (native:malloc: only blocks older than the window's youngest tenth count at the end)
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
 * @param unconfirmedBytes   see the table
 * @param peakUnconfirmedBytes        see the table
 * @param heldAtPeakUnconfirmedBytes  see the table
 * @param growth             heap: the site's held bytes at the collections the leak rule compares, or null when the
 *                           window had too few whole-heap collections after the site began allocating to judge it
 */
public record SiteProfile(String site, String type, boolean nativeMemory, long allocatedBytes, long allocatedObjects,
                          long samples, long liveBytes, long liveObjects, long liveSamples, long peakBytes,
                          long heldAtPeakBytes, long heldAtPeakObjects, long heldAtPeakSamples, long growthBytes,
                          double medianAgeAtCollectionMs, double freedByFirstCollectionShare, boolean leakSuspect,
                          boolean temporary, List<String> stack, long unconfirmedBytes, long peakUnconfirmedBytes,
                          long heldAtPeakUnconfirmedBytes, Growth growth) {

    /** @return the native frames at the inner end of {@link #stack()}, innermost first ({@link #nativeFrames(List)}) */
    public List<String> nativeFrames() {
        return nativeFrames(stack);
    }

    /**
     * A stack's native part: its innermost frames that are native functions ({@code libz.so.1!inflateInit2_},
     * {@code libfoo.so+0x1a2b}: a frame that does not end with {@code )}, recording.md), innermost first, up to the
     * first Java frame. Empty for a stack that starts in Java.
     */
    public static List<String> nativeFrames(List<String> stack) {
        int n = 0;
        while (n < stack.size() && !stack.get(n).endsWith(")")) {
            n++;
        }
        return List.copyOf(stack.subList(0, n));
    }

    /**
     * A heap site's held memory at the three whole-heap collections the leak rule compares ({@link ReportBuilder},
     * "Leak suspects": about a third and two thirds of the way from the site's first allocation in the window to the
     * last whole-heap collection of the window, and that last one).
     *
     * @param firstMs           ms since the run's start of the first reference collection's snapshot (what it judged
     *                          was reachable then)
     * @param firstBytes        held bytes there (estimate)
     * @param secondMs          the second one
     * @param secondBytes       held bytes there
     * @param endMs             the last whole-heap collection of the window
     * @param endBytes          held bytes there
     * @param endSamples        sampled objects behind {@code endBytes}
     * @param significant       whether each of the two steps grew by more than twice its standard error
     */
    public record Growth(double firstMs, long firstBytes, double secondMs, long secondBytes, double endMs,
                         long endBytes, long endSamples, boolean significant) {
    }
}
