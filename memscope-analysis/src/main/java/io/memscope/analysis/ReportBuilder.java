package io.memscope.analysis;

import io.memscope.recording.RecordingReader.ChunkSet;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.RecordingReader;
import java.nio.file.Path;

/**
 * Turns a {@link RecordedRun} into a {@link Report}, over a {@link TimeWindow}.
 *
 * <p><b>Jobs.</b> {@link ReportReplay} replays the events into ledgers, {@link ReportRules} holds the rules that
 * classify sites (leak suspects, temporaries, the heap check), {@link ReportAssembly} assembles the {@link Report}.
 *
 * <p><b>Passes.</b> The recording is read from the file twice, and no more. The first read ({@link RecordedRun#open})
 * keeps the tables (sites, stacks, collections, metadata...) and learns each site's allocation window and the
 * events' first and last timestamps. The second replays the events in time order (through a {@link TimeOrder}
 * window), and the whole file in file order to the API sections' analysis ({@link ApiAnalysis}), in the same read:
 * decoding, the time order and the API sections on the decoding thread, the allocation figures here on the calling
 * thread ({@link RecordedRun#replayInTimeOrder}), the held figures on a third ({@link HeldReplay}). The second read cannot be folded into the first: the replay needs, before
 * its first event, what only the whole file tells: every collection (the agent writes a collection's record after
 * events that follow it in time, and the peak and the window's last whole-heap collection are known only at the
 * end), the run's end (the timeline's buckets) and each site's allocation window (the leak rules' reference points
 * and the native rule's midpoint); the API sections need the threads with scope edges. A restricted window's
 * allocation windows are learnt in the first read when the run's start is known before the first event (the agent's
 * recordings: their header's clock pair is the capture's start); otherwise they take one more read. Memory: per site, per stack, per live sample and per outstanding
 * native block; never per event.
 *
 * <p><b>Weights.</b> Heap objects are sampled by bytes as a Poisson process with mean {@code m} (the recording's
 * {@value MetadataKeys#INTERVAL_BYTES}), so an object of {@code s} bytes is sampled with probability
 * {@code p = 1 - exp(-s/m)}. Each sample stands for {@code 1/p} objects and {@code s/p} bytes (Horvitz-Thompson):
 * sums over samples are unbiased estimates of allocated and held figures, per site, per stack and in total. Rounded
 * figures are made to add up: a site's stacks add up to the site, the sites to the totals, the timeline's buckets to
 * the totals (largest remainders).
 *
 * <p><b>Held memory.</b> "Live" and "held" mean reachable: a sampled object is held at a collection when a collection
 * that examined the whole heap (that one or an earlier one) judged it, because it was allocated before that
 * collection's snapshot, and did not free it, and no collection freed it since (rules and precision:
 * {@link GcTimeline}). A sampled object still present that no whole-heap collection judged is <i>unconfirmed</i>: it
 * survived only young collections, which do not look at the old generation, so it may be garbage; unconfirmed bytes
 * are shown beside every held figure, never added to it. Held and unconfirmed figures are computed at every
 * collection ({@link HeldLedger}): at the last collection of the window (the report's "live at end"), at the peak (the
 * window's whole-heap collection where the most was held, learnt as the replay goes: {@link Peak}), per site at its
 * own peak,
 * and at the last collection of each timeline bucket. Recordings before format 1.4 do not say what a collection
 * examined: their full collections and the cycles of ZGC and Shenandoah are recognized by name.
 *
 * <p><b>Exact mode.</b> The recording's exact per-site totals are the allocated figures (of the whole run: a
 * restricted window, or a recording without them, uses the samples instead); each site's total is spread over its
 * stacks and over time in proportion to its samples. A recording that was not closed (the JVM was killed) holds the
 * totals of the agent's last periodic snapshot: the allocated figures are exact as of that time
 * ({@link Report.Totals#exactCountsAsOfMs()}), and allocations after it are not in them.
 *
 * <p><b>Leak suspects</b> are judged on held (confirmed) bytes at whole-heap collections only, and need evidence. For
 * each heap site, three whole-heap collections of the window that confirmed a snapshot are compared, placed in time by
 * the snapshots they confirmed (held at one is what was reachable then; when whole-heap collections overlap, as
 * generational ZGC's major cycles do, one confirms in a few, and what the others hold is an older snapshot's
 * survivors: {@link GcTimeline}): the last one of the window ("end"), a first one (the last whose snapshot is at or
 * before a third of the way from the site's first allocation in the window to the end's, or, when none is there, the
 * first after that allocation) and a second one (the last at or before two thirds of the way, after the first, or,
 * when none is there, the one halfway between the first and the end); all with snapshots after the site's first
 * allocation, and distinct. The site is a suspect when
 * <ul>
 *   <li>it holds at least {@value #LEAK_MIN_SAMPLES} sampled objects at the end,</li>
 *   <li>its held bytes grew at both steps by more than twice the step's standard error (the Horvitz-Thompson variance
 *       of what the step added and of what it removed: the samples held at both ends of a step cancel out), and</li>
 *   <li>it grew from the first to the last by at least a quarter of what it holds at the end.</li>
 * </ul>
 * So a structure built once (it stops growing before the first reference point, or the window has no whole-heap
 * collection after it was built) and a bounded cache (its held bytes stay within their sampling error once full) are
 * not suspects. False positives: a site whose held memory really grows over both steps without being a leak (a cache
 * still filling up through two thirds of the window, a backlog that will drain later); under no growth, both steps
 * pass their test together with a probability of about 0.05% (two independent steps, each 2.3% in the normal
 * approximation). False negatives: a leak with fewer than {@value #LEAK_MIN_SAMPLES} samples held (a small leak, or a
 * short run: more sampling, {@code --interval}, or a longer run finds it), a leak inside a site that holds much more
 * that does not grow (growth below a quarter), a leak that stopped growing before the second reference collection,
 * and a window with fewer than three whole-heap collections after the site began allocating (a short run, or a
 * collector that rarely collects the old generation: the report then says how many it had).
 *
 * <p><b>Native leak suspects</b> follow the same rule on outstanding native bytes: outstanding at the end, grown by
 * at least a quarter of that over the second half of the site's allocation window (outstanding at its midpoint),
 * which covers at least 5% of the report's window. Buffers a pool takes once and reuses are outstanding, not leaks.
 *
 * <p><b>Temporaries</b> are heap sites that allocated at least 1 MiB and 1% of all allocated bytes while holding at
 * most 5% of it at the end, with at least half of their samples collected: memory that only churns.
 */
public final class ReportBuilder {
    /** Entries per ranking. */
    public static final int TOP = 10;
    /** About this many timeline buckets, whatever the run's length. */
    public static final int TIMELINE_BUCKETS = 200;
    /** Sites listed per timeline bucket. */
    public static final int BUCKET_SITES = 5;
    /** Sampled objects a leak suspect must hold at the end at least. */
    public static final int LEAK_MIN_SAMPLES = 4;
    /** Standard errors each step of a suspect's growth must exceed. */
    static final double LEAK_STEP_SIGMAS = 2.0;
    /** Standard errors by which the estimate must exceed the JVM's heap figure to be called inconsistent. */
    static final double HEAP_CHECK_SIGMAS = 3.0;

    private ReportBuilder() {
    }

    /** The report of a whole recording, reading the file twice (class comment: Passes). */
    public static Report build(Path recording) {
        return build(recording, TimeWindow.ALL);
    }

    /** The report of a recording over a window, reading the file twice (class comment: Passes). */
    public static Report build(Path recording, TimeWindow window) {
        return build(RecordedRun.open(recording, window), window);
    }

    /** The report of an opened recording (its events are read once more). */
    public static Report build(RecordedRun run) {
        return build(run, TimeWindow.ALL);
    }

    /**
     * The report of an opened recording over a window (its events are read once more; twice for a restricted
     * window when the recording was not opened for it, see {@link RecordedRun#open(Path, TimeWindow)}).
     */
    public static Report build(RecordedRun run, TimeWindow window) {
        return build(run, window, true);
    }

    /**
     * The same, with the replay's held half on a thread of its own ({@code parallel}) or on the replaying thread:
     * the same report either way ({@link ReportReplay}).
     */
    static Report build(RecordedRun run, TimeWindow window, boolean parallel) {
        ReportReplay replay = new ReportReplay(run, window);
        ApiAnalysis api = apiAnalysis(run);
        long late;
        if (parallel) {
            replay.parallel();
        }
        try {
            // put in time order, and the API sections' pass, on the decoding thread; the allocation half of the
            // replay here, its held half on a third thread: one read of the file, two cores
            late = run.replayInTimeOrder(replay, api != null && api.needsPass() ? api : null);
            replay.finish();
        } finally {
            replay.close();
        }
        if (api != null) {
            api.usePeak(replay.peakGc); // the API sections' held at the peak: the report's peak
        }
        return new ReportAssembly(replay, api == null ? ApiReport.EMPTY : api.report(), late).report();
    }

    /**
     * The probability that the sampler picked an object of {@code size} bytes: {@code 1 - exp(-size/mean)}; a sample
     * weighs {@code 1/p} objects and {@code size/p} bytes.
     */
    static double probability(long size, double mean) {
        double p = -Math.expm1(-Math.max(size, 1) / mean);
        return p <= 0 ? 1 : p;
    }

    /** @return what the report says about the recording it comes from: closed or not, damage */
    static Report.Source source(RecordedRun run) {
        var h = run.header();
        var end = run.totals();
        var damage = run.damage();
        // Damaged in the middle yet closed: the file still ends with its intact END block (the END is not read).
        RecordedRun.Origin origin = run.origin();
        boolean jfr = !origin.kind().equals("memscope");
        // a JFR recording is read only when every chunk is complete (JfrSource): closed
        boolean closed = jfr || end.isPresent() || damage.isPresent() && RecordingReader.isClosed(run.file());
        return new Report.Source(run.file().toString(), h.majorVersion() + "." + h.minorVersion(), closed,
                jfr || end.map(t -> t.clean()).orElse(false), run.eventCount(),
                end.map(t -> t.eventsDropped()).orElse(0L), damage.map(d -> d.what()).orElse(null),
                damage.map(d -> d.offset()).orElse(-1L), run.skippedBlocks(), origin.kind(), origin.producer(),
                origin.limitations(), chunks(run));
    }

    /** @return the chunks a chunked recording was read from, or null for a recording file */
    private static Report.Chunks chunks(RecordedRun run) {
        ChunkSet c = run.chunks();
        if (c == null) {
            return null;
        }
        long start = run.metadataLong(MetadataKeys.START_NANOS, run.header().nanoTime());
        boolean firstPresent = c.firstIndex() - c.skippedBefore() == 1;
        double coveredFrom = firstPresent ? 0 : Math.max(0, (c.startNanos() - start) / 1e6);
        return new Report.Chunks(c.count(), c.firstIndex(), c.lastIndex(), c.deleted(), coveredFrom,
                run.metadataLong("chunk.carryTruncated", 0), c.skippedBefore(), c.skippedAfter());
    }

    /** The API sections' analysis: only for recordings that may have them (format 1.2 and later), else null. */
    private static ApiAnalysis apiAnalysis(RecordedRun run) {
        var h = run.header();
        if (h.majorVersion() == 1 && h.minorVersion() < 2) {
            return null;
        }
        return ApiAnalysis.of(run);
    }
}
