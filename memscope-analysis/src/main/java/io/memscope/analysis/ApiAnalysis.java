package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.Anomaly;
import io.memscope.recording.EventView;
import io.memscope.launch.FunctionPatterns;
import io.memscope.recording.FunctionStats;
import io.memscope.launch.MetadataKeys;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingVisitor;
import io.memscope.recording.ScopePath;
import io.memscope.recording.Site;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds the {@link ApiReport} of a recording in one streaming pass: scopes from their entries and exits, the
 * function profile, named objects, pools; and the heap samples attributed to scopes and functions.
 *
 * <h2>Samples in scopes: by thread and time</h2>
 * A sample belongs to the innermost scope open on its thread at its timestamp (both {@code System.nanoTime()} of
 * the recorded JVM): the agent does not look at scopes when it samples, the analysis reconstructs each thread's
 * scope stack from the SCOPE_EDGES and places each sample in it. A thread's edges and samples each come in their
 * order of occurrence, but samples can precede in the file the edges that were recorded before them (each flush
 * writes the period's samples before its edges), so a sample waits until its thread's next edge, or until the file
 * has reached {@value #WINDOW_NANOS} ns past it (no older edge comes after that: flushes happen every second). Only
 * samples that can count somewhere are kept: those of threads with scope edges (known from the recording's first
 * read, {@link RecordedRun#hasScopeEdges}) and those whose stack has a reported profiled function.
 *
 * <p>Memory: per thread its open scopes and waiting samples; per kept sample not yet placed or not yet collected a
 * slot of {@link PendingSamples} (no object); per (stack, site) and per (scope path, stack, site) a few figures.
 * Never per event: a recording without scopes and function statistics keeps no sample at all.
 *
 * <h2>Samples in functions: by stack</h2>
 * A sample allocated inside a profiled call has the function's frame in its stack, the call site right below: its
 * weight counts for that (function, call site), once per function however deep the recursion (the outermost
 * occurrence's call site). Frames are matched by the profile's patterns (metadata {@code option.functions});
 * overloads share a frame. A stack cut at {@code stackDepth} frames may miss an outer function.
 *
 * <h2>Held</h2>
 * As everywhere in the report ({@link GcTimeline}, {@link ReportBuilder}): a sample is held at a collection when a
 * collection that examined the whole heap at or before it judged it (it was allocated before that collection's
 * snapshot) and it was not freed by then; "at the end" is the last collection of the capture (its end check), "at the
 * peak" the report's peak, where the sampled objects held the most: the report's replay learns it as it measures,
 * after this pass has settled its samples, so the settled samples' held bytes wait per collection
 * ({@link HeldAtPeak}) until the report names it ({@link #usePeak}); analysed alone, the whole-heap collection after
 * which the JVM reported the most heap in use ({@link GcTimeline#peak}). Without a whole-heap collection nothing is
 * held (0), and there is no peak.
 *
 * <p>The named objects and pools, which need none of this, are {@link ApiObjectsAndPools}' job; each thread's open
 * scopes and waiting samples are a {@link ThreadScopeStack}.
 */
public final class ApiAnalysis implements RecordingVisitor {
    /** How far the file must run past a sample before no edge older than it can come. */
    static final long WINDOW_NANOS = 10_000_000_000L;

    private final RecordedRun run;
    private final double mean;
    private final long start;
    private final long end;
    private final GcTimeline gcs;
    private final int endGc;
    /** The peak: the report's once known ({@link #usePeak}), else the JVM's ({@link GcTimeline#peak}). */
    private int peakGc;
    /** Held at the peak, kept per collection until the peak is known. */
    private final HeldAtPeak heldAtPeak;
    private final FunctionPatterns functionPatterns;

    private final Map<Integer, ScopePath> paths = new HashMap<>();
    private final Map<Integer, long[]> pathFigures = new HashMap<>();
    /** The figures of the usual small path ids, also in {@link #pathFigures}: one looked up per scope exit, unboxed. */
    private final long[][] smallPathFigures = new long[1024][];
    private final Map<Long, ThreadScopeStack> threads = new HashMap<>();
    private final PendingSamples pending = new PendingSamples();
    /** Held at the end and at the peak per (function, call site). */
    private final Map<List<String>, long[]> functionHeld = new HashMap<>();
    private final Map<List<String>, FunctionStats> functionStats = new LinkedHashMap<>();
    private final Map<String, Long> scopeAnomalies = new TreeMap<>();
    /** The named objects and the pools, from their records and anomalies. */
    private final ApiObjectsAndPools objects;
    /** Stack keys and (scope path, stack key) cells of the kept samples. */
    private final SampleCells cells = new SampleCells(this::functionFigures, this::figures);
    private static final long[][] NO_FUNCTIONS = new long[0][];
    private long maxTime = Long.MIN_VALUE;
    private long lastSweep = Long.MIN_VALUE;
    private long samplesInScopes;
    /** The function profile's held figures are reported: patterns to match and statistics to report them with. */
    private final boolean functionsHeld;
    private long lastThread = Long.MIN_VALUE;
    private boolean lastThreadScoped;
    private ThreadScopeStack lastThreadStack;

    // path figures
    private static final int ENTRIES = 0;
    private static final int TASKS = 1;
    private static final int TOTAL_NS = 2;
    private static final int MAX_NS = 3;
    private static final int SELF_NS = 4;
    private static final int ALLOCATED = 5;
    private static final int SELF_ALLOCATED = 6;
    private static final int NO_ALLOCATION = 7;
    private static final int SAMPLED = 8;
    private static final int HELD_END = 9;
    private static final int HELD_PEAK = 10;
    private static final int FIGURES = 11;

    private ApiAnalysis(RecordedRun run) {
        this.run = run;
        this.mean = Math.max(1, run.metadataLong(MetadataKeys.INTERVAL_BYTES, 512 * 1024));
        this.start = run.metadataLong(MetadataKeys.START_NANOS, run.firstEventNanos());
        this.end = run.metadataLong(MetadataKeys.END_NANOS, run.lastEventNanos());
        this.gcs = GcTimeline.of(run, end);
        this.endGc = gcs.lastAtOrBefore(end);
        this.peakGc = gcs.peak(0, endGc);
        this.heldAtPeak = new HeldAtPeak(gcs);
        this.functionPatterns = FunctionPatterns.ofRecorded(run.metadata().get(MetadataKeys.OPTION_FUNCTIONS));
        this.functionsHeld = !functionPatterns.isEmpty() && run.hasFunctionStats();
        this.objects = new ApiObjectsAndPools(run);
    }

    /** @return whether an anomaly is one of the API's (pools, scopes), not native memory's */
    static boolean isApiAnomaly(Anomaly a) {
        return a.type().api();
    }

    /** @return the API sections of a recording's report (one more streaming pass over its file) */
    public static ApiReport analyze(RecordedRun run) {
        ApiAnalysis a = of(run);
        if (a.needsPass()) {
            RecordingReader.stream(run.file(), a);
        }
        return a.report();
    }

    /**
     * @return the API sections' analysis of a recording, to be fed the whole file in order (as
     *         {@link RecordingReader#stream} delivers it) when {@link #needsPass()}, then asked for its
     *         {@link #report()}
     */
    static ApiAnalysis of(RecordedRun run) {
        return new ApiAnalysis(run);
    }

    /** @return whether the recording has anything for the API sections: without, the pass would find nothing */
    boolean needsPass() {
        return run.hasApiRecords() || run.anomalies().stream().anyMatch(ApiAnalysis::isApiAnomaly);
    }

    /** @return the API sections, once the file was streamed to this analysis (if {@link #needsPass()}) */
    ApiReport report() {
        return build();
    }

    // ------------------------------------------------------------------------------------------------ visitor

    @Override
    public void scopePath(ScopePath path) {
        paths.put(path.id(), path);
    }

    @Override
    public void scopeEdge(long t, long threadId, int threadNameId, boolean exit, int pathId, long taskId,
                          long allocatedBytes) {
        advance(t);
        ThreadScopeStack ts = thread(threadId);
        ts.attributeBefore(t);
        if (!exit) {
            ts.push(pathId, t, taskId != 0);
            return;
        }
        int at = ts.depth - 1;
        while (at >= 0 && ts.path[at] != pathId) {
            at--;
        }
        if (at < 0) {
            return; // an exit whose entry the file does not have (the capture started inside the scope)
        }
        while (ts.depth - 1 > at) {
            ts.depth--; // an entry without its exit: closed by this one (not counted)
        }
        ts.depth = at;
        long nanos = Math.max(0, t - ts.start[at]);
        long[] f = figures(pathId);
        f[ENTRIES]++;
        if (ts.task[at]) {
            f[TASKS]++;
        }
        f[TOTAL_NS] += nanos;
        f[MAX_NS] = Math.max(f[MAX_NS], nanos);
        f[SELF_NS] += Math.max(0, nanos - ts.childNanos[at]);
        if (allocatedBytes < 0) {
            f[NO_ALLOCATION]++;
        } else {
            f[ALLOCATED] += allocatedBytes;
            f[SELF_ALLOCATED] += Math.max(0, allocatedBytes - ts.childBytes[at]);
        }
        if (at > 0) {
            ts.childNanos[at - 1] += nanos;
            if (allocatedBytes > 0) {
                ts.childBytes[at - 1] += allocatedBytes;
            }
        }
    }

    @Override
    public void accept(EventView e) {
        long t = e.timestampNanos();
        MemoryEventType type = e.type();
        long address = e.address();
        int siteId = e.siteId();
        advance(t);
        if (type == MemoryEventType.DEALLOCATE) {
            if (pending.isEmpty()) {
                return; // no sample waits for its fate: nothing to look up
            }
            Site s = run.site(siteId);
            if (s != null && s.isNative()) {
                return;
            }
            int slot = pending.find(address);
            if (slot >= 0) {
                pending.collected(slot, t);
                if (pending.placement(slot) != PendingSamples.WAITING) {
                    settle(slot);
                    pending.remove(slot);
                }
            }
            return;
        }
        if (type != MemoryEventType.ALLOCATE) {
            return;
        }
        long threadId = e.threadId();
        long size = e.size();
        boolean scoped = scopeThread(threadId);
        if (!scoped && !functionsHeld) {
            return; // outside every scope, and no function figure to count for: not kept
        }
        int key = cells.stackKey(e.stackId(), siteId);
        if (!scoped && cells.functions(key).length == 0) {
            return;
        }
        Site s = run.site(siteId);
        if (s != null && s.isNative()) {
            return;
        }
        double p = -Math.expm1(-Math.max(size, 1) / mean);
        int slot = pending.put(address, t, Math.round(size / (p <= 0 ? 1 : p)), key);
        if (scoped) {
            thread(threadId).await(address, t);
        } else {
            place(slot, 0); // a thread without scope edges never has a scope open
        }
    }

    @Override
    public void apiEvent(EventView e) {
        objects.apiEvent(e);
    }

    @Override
    public void anomaly(Anomaly a) {
        switch (a.type()) {
            case SCOPE_OUT_OF_ORDER, SCOPE_STALE_CLOSE, SCOPE_FOREIGN_CLOSE ->
                    scopeAnomalies.merge(a.kind(), 1L, Long::sum);
            case POOL_LEAK, POOL_DOUBLE_RETURN, POOL_UNKNOWN_RETURN -> objects.poolAnomaly(a);
            default -> {
                // native memory's, or a kind this reader does not know: not the API's
            }
        }
    }

    @Override
    public void functionStats(FunctionStats f) {
        functionStats.put(Arrays.asList(f.function(), f.descriptor(), f.callSite()), f);
    }

    // ------------------------------------------------------------------------------------------------ samples

    private void advance(long t) {
        if (t > maxTime) {
            maxTime = t;
        }
        if (maxTime - lastSweep > 1_000_000_000L) {
            lastSweep = maxTime;
            long horizon = maxTime - WINDOW_NANOS;
            for (ThreadScopeStack ts : threads.values()) {
                ts.attributeBefore(horizon);
            }
        }
    }

    /** @return whether the thread has scope edges in the recording (its samples wait to be placed in a scope) */
    private boolean scopeThread(long threadId) {
        if (threadId != lastThread) {
            lastThread = threadId;
            lastThreadScoped = run.hasScopeEdges(threadId);
        }
        return lastThreadScoped;
    }

    /** @return the thread's scope stack (created at its first edge or sample) */
    private ThreadScopeStack thread(long threadId) {
        if (lastThreadStack == null || lastThreadStack.id != threadId) {
            lastThreadStack = threads.computeIfAbsent(threadId,
                    id -> new ThreadScopeStack(id, pending, this::place));
        }
        return lastThreadStack;
    }

    /** Places a sample in a scope (0: outside every scope): its allocation counts there; held once its fate is known. */
    private void place(int slot, int pathId) {
        if (pathId == 0) {
            pending.place(slot, PendingSamples.OUTSIDE);
        } else {
            int c = cells.cell(pathId, pending.stackKey(slot));
            pending.place(slot, c);
            long bytes = pending.bytes(slot);
            samplesInScopes++;
            cells.pathFigures(c)[SAMPLED] += bytes;
            cells.add(c, SampleCells.SAMPLED, bytes);
        }
        if (pending.collected(slot) != Long.MIN_VALUE) {
            settle(slot); // collected already (its DEALLOCATE came first)
            pending.remove(slot);
        }
    }

    /**
     * Adds a sample whose scope and collection (or its absence) are known to the held figures: held at a collection
     * when a whole-heap collection at or before it judged it and it was not freed by then
     * ({@link GcTimeline#collectedBy}, {@link GcTimeline#confirmedBefore}).
     */
    private void settle(int slot) {
        long collected = pending.collected(slot);
        int freedBy = collected == Long.MIN_VALUE ? Integer.MAX_VALUE : gcs.collectedBy(collected);
        long allocated = pending.allocated(slot);
        boolean heldEnd = heldAt(allocated, endGc, freedBy);
        int heldFrom = heldAtPeak.firstConfirming(allocated);
        int heldUntil = freedBy; // held at the collections before the one that freed it
        if (!heldEnd && heldFrom >= Math.min(heldUntil, gcs.size())) {
            return;
        }
        long bytes = pending.bytes(slot);
        int c = pending.placement(slot);
        if (c >= 0) {
            if (heldEnd) {
                cells.pathFigures(c)[HELD_END] += bytes;
                cells.add(c, SampleCells.HELD_END, bytes);
            }
            heldAtPeak.add(HeldAtPeak.CELL, c, heldFrom, heldUntil, bytes);
        }
        int key = pending.stackKey(slot);
        if (heldEnd) {
            for (long[] h : cells.functions(key)) {
                h[0] += bytes;
            }
        }
        if (cells.functions(key).length > 0) {
            heldAtPeak.add(HeldAtPeak.FUNCTIONS, key, heldFrom, heldUntil, bytes);
        }
    }

    /** Held at {@code gc}: judged by a whole-heap collection at or before it (allocated before its snapshot), not freed. */
    private boolean heldAt(long allocated, int gc, int freedBy) {
        return gc >= 0 && allocated < heldAtPeak.confirmedBefore(gc) && freedBy > gc;
    }

    /**
     * The report's peak (its replay learns it after this pass: {@link HeldReplay}), for the held-at-the-peak figures;
     * call before {@link #report()}. Without it they are at the JVM's peak ({@link GcTimeline#peak}).
     */
    void usePeak(int gc) {
        this.peakGc = gc;
    }

    /** Adds the settled samples' bytes held at the peak to the scopes' and functions' figures. */
    private void settlePeak() {
        heldAtPeak.at(peakGc, (kind, target, bytes) -> {
            if (kind == HeldAtPeak.CELL) {
                cells.pathFigures(target)[HELD_PEAK] += bytes;
                cells.add(target, SampleCells.HELD_PEAK, bytes);
            } else {
                for (long[] h : cells.functions(target)) {
                    h[1] += bytes;
                }
            }
        });
    }

    /**
     * @return the held figures of each (function, call site) of a profiled function in the stack: once each, the
     *         outermost's call site; none when no function row is reported (no patterns or no statistics)
     */
    private long[][] functionFigures(long stackId) {
        if (!functionsHeld || stackId == 0) {
            return NO_FUNCTIONS;
        }
        List<String[]> keys = functionPatterns.functionsOf(run.stack(stackId));
        long[][] out = new long[keys.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = functionHeld.computeIfAbsent(Arrays.asList(keys.get(i)), k -> new long[2]);
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------ results

    private ApiReport build() {
        for (ThreadScopeStack ts : threads.values()) {
            ts.attributeBefore(Long.MAX_VALUE);
        }
        for (int slot : pending.occupied()) {
            if (pending.collected(slot) == Long.MIN_VALUE) {
                settle(slot); // never collected: held at the end (and at the peak if allocated before it)
            }
        }
        settlePeak();

        List<ApiReport.ScopeRow> scopes = new ArrayList<>();
        for (Map.Entry<Integer, long[]> e : pathFigures.entrySet()) {
            long[] f = e.getValue();
            if (f[ENTRIES] == 0 && f[SAMPLED] == 0) {
                continue;
            }
            int id = e.getKey();
            ScopePath p = paths.get(id);
            String path = pathOf(id);
            String parent = p == null || p.parentId() == 0 ? "" : pathOf(p.parentId());
            scopes.add(new ApiReport.ScopeRow(path, p == null ? path : p.name(), parent, depthOf(id), f[ENTRIES],
                    f[TASKS], ms(f[TOTAL_NS]), ms(f[MAX_NS]), ms(f[SELF_NS]), f[ALLOCATED], f[SELF_ALLOCATED],
                    f[NO_ALLOCATION], f[SAMPLED], f[HELD_END], f[HELD_PEAK]));
        }
        scopes.sort(Comparator.comparingDouble(ApiReport.ScopeRow::totalMs).reversed()
                .thenComparing(ApiReport.ScopeRow::path));

        Map<List<String>, long[]> byCallSite = new LinkedHashMap<>();
        for (FunctionStats f : functionStats.values()) {
            long[] v = byCallSite.computeIfAbsent(Arrays.asList(f.function(), f.callSite()),
                    k -> new long[6]);
            v[0] += f.calls();
            v[1] += f.recursiveCalls();
            v[2] += f.totalNanos();
            v[3] = Math.max(v[3], f.maxNanos());
            v[4] += f.allocatedBytes();
        }
        List<ApiReport.FunctionRow> functions = new ArrayList<>();
        for (Map.Entry<List<String>, long[]> e : byCallSite.entrySet()) {
            long[] v = e.getValue();
            long[] held = functionHeld.getOrDefault(e.getKey(), new long[2]);
            functions.add(new ApiReport.FunctionRow(e.getKey().get(0), e.getKey().get(1), v[0], v[1], ms(v[2]),
                    ms(v[3]), v[4], held[0], held[1]));
        }
        functions.sort(Comparator.comparingDouble(ApiReport.FunctionRow::totalMs).reversed()
                .thenComparing(ApiReport.FunctionRow::function));

        List<ApiReport.TrackedObjectRow> objectRows = objects.objectRows(start, end);
        List<ApiReport.PoolLeakRow> leaks = new ArrayList<>();
        List<ApiReport.PoolRow> poolRows = objects.poolRows(start, leaks);
        List<ApiReport.ScopeStackRow> byStack = new ArrayList<>();
        Map<Integer, String> pathNames = new HashMap<>();
        for (int c = 0; c < cells.cells(); c++) { // in order of first sample: ties below keep it
            int key = cells.key(c);
            Site site = run.site(cells.siteId(key));
            String siteFrame = site == null ? "?" : site.frame();
            List<String> frames = stack(cells.stackId(key));
            byStack.add(new ApiReport.ScopeStackRow(pathNames.computeIfAbsent(cells.path(c), this::pathOf),
                    frames.isEmpty() ? List.of(siteFrame) : frames, siteFrame,
                    site == null || site.typeName() == null ? "?" : site.typeName(),
                    cells.figure(c, SampleCells.SAMPLED), cells.figure(c, SampleCells.HELD_END),
                    cells.figure(c, SampleCells.HELD_PEAK)));
        }
        byStack.sort(Comparator.comparingLong(ApiReport.ScopeStackRow::sampledBytes).reversed()
                .thenComparing(ApiReport.ScopeStackRow::path));
        return new ApiReport(List.copyOf(scopes), List.copyOf(functions), List.copyOf(objectRows),
                List.copyOf(poolRows), List.copyOf(leaks), Map.copyOf(scopeAnomalies), samplesInScopes,
                List.copyOf(byStack));
    }

    private long[] figures(int pathId) {
        if (pathId >= 0 && pathId < smallPathFigures.length) {
            long[] f = smallPathFigures[pathId];
            if (f == null) {
                f = pathFigures.computeIfAbsent(pathId, k -> new long[FIGURES]);
                smallPathFigures[pathId] = f;
            }
            return f;
        }
        return pathFigures.computeIfAbsent(pathId, k -> new long[FIGURES]);
    }

    private String pathOf(int id) {
        StringBuilder b = new StringBuilder();
        for (int i = id, guard = 0; i != 0 && guard < 4096; guard++) {
            ScopePath p = paths.get(i);
            String name = p == null ? "scope#" + Integer.toUnsignedString(i) : p.name();
            b.insert(0, b.length() == 0 ? name : name + "/");
            i = p == null ? 0 : p.parentId();
        }
        return b.toString();
    }

    private int depthOf(int id) {
        int d = 0;
        for (int i = id; i != 0 && d < 4096; d++) {
            ScopePath p = paths.get(i);
            i = p == null ? 0 : p.parentId();
        }
        return d;
    }

    private List<String> stack(long id) {
        return stackOf(run, id);
    }

    /** @return the frames of stack {@code id}, empty when it has none */
    static List<String> stackOf(RecordedRun run, long id) {
        List<String> s = id == 0 ? null : run.stack(id);
        return s == null ? List.of() : s;
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }
}
