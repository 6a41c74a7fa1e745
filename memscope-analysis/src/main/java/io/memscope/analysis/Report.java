package io.memscope.analysis;

import io.memscope.recording.Anomaly;
import io.memscope.recording.GcRecord;
import java.util.List;
import java.util.Map;

/**
 * The result of analysing one capture: what {@code report.json} and the terminal summary show. Built by
 * {@link ReportBuilder}; written by {@link ReportJson} and {@link Summary}. Byte and count figures from sampled
 * data are unbiased estimates rounded to whole numbers; in exact mode allocated figures are exact.
 */
public record Report(Map<String, String> metadata, Source recording, Totals totals,
                     List<SiteEntry> topAllocationSites, List<SiteEntry> topLiveSites, List<SiteEntry> leakSuspects,
                     List<SiteEntry> temporaries, NativeMemory nativeMemory, Gc gc, long failureCount,
                     List<String> failures) {

    /**
     * The recording the report was built from, and how complete it is.
     *
     * @param file          the recording file as given
     * @param formatVersion {@code major.minor} of the file
     * @param closed        true if the file ends with its END block: the agent closed it (JVM exit, duration,
     *                      detach); false when the JVM died without closing it (killed, crashed, out of memory)
     *                      or is still writing it: the report then covers what the file holds, up to its last
     *                      complete block
     * @param clean         true if closed normally (the END block's CLEAN flag); false when not closed or closed after
     *                      an I/O failure
     * @param events        events read
     * @param eventsDropped events recorded but not in the file (the END block's count; 0 when not closed)
     * @param damage        why the file stops being readable there, for example {@code file ends without an END
     *                      block (...)}, or null
     * @param damageOffset  the byte offset of the damage, -1 without damage
     * @param skippedBlocks blocks of a newer minor version this reader does not know, skipped
     */
    public record Source(String file, String formatVersion, boolean closed, boolean clean, long events,
                         long eventsDropped, String damage, long damageOffset, int skippedBlocks) {
    }

    /**
     * @param allocatedBytes   heap bytes allocated at instrumented sites
     * @param allocatedObjects objects (and arrays) allocated at instrumented sites
     * @param peakLiveBytes    highest estimate of not-yet-collected bytes from instrumented sites during the run
     * @param liveBytesAtEnd   estimate of bytes still reachable at the end (after a full GC)
     * @param samples          sampled objects (the basis of every live estimate)
     * @param durationMs       capture duration in milliseconds
     * @param exact            true when allocated figures are exact counts (exact mode)
     */
    public record Totals(long allocatedBytes, long allocatedObjects, long peakLiveBytes, long liveBytesAtEnd,
                         long samples, long durationMs, boolean exact) {
    }

    /**
     * One site in a ranking. {@code bytes} and {@code count} are the figure the list ranks by: allocated for
     * {@code topAllocationSites} and {@code temporaries}, live at end for {@code topLiveSites} and
     * {@code leakSuspects}, outstanding for native leaks.
     *
     * @param site              the site as a frame, {@code pkg.Class.method(File.java:LINE)}
     * @param type              allocated type
     * @param bytes             the ranked byte figure (see above)
     * @param count             the ranked object / block count
     * @param allocatedBytes    all bytes allocated at the site
     * @param allocatedObjects  all objects allocated at the site
     * @param liveBytes         bytes still live at the end
     * @param liveObjects       objects still live at the end
     * @param growthBytes       growth of live bytes over the second half of the site's allocation window
     * @param medianLifetimeMs  median lifetime of collected samples in ms, -1 when none was collected
     * @param samples           sampled objects at the site
     * @param stack             one sampled call stack, innermost first (may be empty)
     */
    public record SiteEntry(String site, String type, long bytes, long count, long allocatedBytes,
                            long allocatedObjects, long liveBytes, long liveObjects, long growthBytes,
                            double medianLifetimeMs, long samples, List<String> stack) {
    }

    /**
     * @param allocatedBytes       native bytes allocated while tracking (reallocations count their new size)
     * @param allocations          native allocations (and reallocations)
     * @param freedBytes           native bytes freed
     * @param outstandingBytes     native bytes allocated while tracking and not freed at the end
     * @param outstandingBlocks    blocks behind {@code outstandingBytes}
     * @param peakOutstandingBytes highest outstanding bytes during the run
     * @param leaks                outstanding memory grouped by allocation site, largest first
     * @param anomalies            double frees and frees of unknown addresses
     */
    public record NativeMemory(long allocatedBytes, long allocations, long freedBytes, long outstandingBytes,
                               long outstandingBlocks, long peakOutstandingBytes, List<SiteEntry> leaks,
                               List<Anomaly> anomalies, Map<Long, List<String>> anomalyStacks) {
    }

    /**
     * @param count               collections of any kind
     * @param pauseCount          collections that paused the application
     * @param pauseTotalMs        sum of pauses, ms
     * @param pauseMaxMs          longest pause, ms
     * @param maxHeapAfterGcBytes highest heap use right after a collection
     * @param collections         every collection, oldest first
     */
    public record Gc(long count, long pauseCount, double pauseTotalMs, double pauseMaxMs, long maxHeapAfterGcBytes,
                     List<GcRecord> collections) {
    }
}
