package io.memscope.analysis;

import java.util.Arrays;

/**
 * Held and unconfirmed memory per key (a site or a stack) at every collection of a {@link GcTimeline}, from sampled
 * objects, without per-collection arrays.
 *
 * <p><b>Four buckets per key.</b> The samples still present, by what the collections so far proved of them:
 * <pre>
 *   C  confirmed     allocated before the snapshot of the latest whole-heap collection, not freed since: held
 *   S  snapshotted   allocated before the snapshot of a whole-heap collection whose verdict is still to come
 *   U  unconfirmed   allocated before the latest collection, judged by no whole-heap collection
 *   Y  young         allocated after the latest collection (or snapshot): not judged by anything yet
 * </pre>
 * The replay crosses the timeline's boundaries in time order: at a whole-heap collection's snapshot (a <i>mark</i>),
 * U and Y move into S; at a collection's position (a <i>point</i>), Y moves into U; when a whole-heap collection is
 * measured (its frees counted), S moves into C ({@link #confirm}). A sample's bucket follows from its epoch (the
 * boundaries crossed before its allocation): {@link #bucketOf}. Held at collection {@code k} is C, unconfirmed is
 * S + U (Y was allocated after it). At most one snapshot is pending: which marks the replay crosses and which
 * collection confirms each is {@link GcTimeline}'s schedule ({@link GcTimeline#markTaken},
 * {@link GcTimeline#confirms}).
 *
 * <p>Events arrive in time order; when the replay passes the boundary after collection {@code k}, {@link #measure}
 * takes the figures of {@code k}. Only keys whose figures changed since the last measure are visited (a dirty list),
 * and keys with samples outside C are visited at marks and confirmations (an unsettled list): a key not visited has
 * the same figures as at the previous collection. Figures taken at particular collections (the end, the peak, two
 * reference collections per key for the leak rule) rely on that: a key's value at collection {@code k} is its value
 * at the last visit at or before {@code k}: the end's is copied for every key when that collection is measured (after
 * its visits), the references' at each visit. The peak is not known in advance (it is the whole-heap collection where
 * the held total is highest, learnt as the replay goes): {@link #takePeak} copies, when its caller finds a new
 * highest, the figures of the keys visited since the previous copy (the others have not changed since). Each key's own highest held figure ({@link #peakBytes}) is taken over the
 * collections of a window; the first collection of the window visits every key.
 *
 * <p>Weights are doubles (Horvitz-Thompson sums of {@code 1/p}); callers round. Variances are the Horvitz-Thompson
 * estimates of the estimates' variance, {@code sum of s^2 (1 - p) / p^2} over the samples.
 */
final class HeldLedger {
    static final int C = 0;
    static final int S = 1;
    static final int U = 2;
    static final int Y = 3;
    /** A bucket's bytes, count, samples and variance in {@link #cells}. */
    private static final int B = 0;
    private static final int N = 1;
    private static final int SAMPLES = 2;
    private static final int V = 3;
    /** Doubles per bucket and per key in {@link #cells}. */
    private static final int BUCKET = 4;
    private static final int CELLS = 4 * BUCKET;
    /** Reference collections per key ({@link #mark}). */
    static final int MARKS = 2;

    /**
     * Per key and bucket: bytes, count (objects), samples and variance (bytes), side by side, so that an event's
     * update of its key's bucket touches 32 contiguous bytes (one cache line, or two) rather than a line per array
     * (the replay's keys are tens of thousands, met in any order), and a move between adjacent buckets 64:
     * <pre>
     *   key * 16:       C bytes, C count, C samples, C variance,
     *   key * 16 + 4:   S bytes, S count, S samples, S variance,
     *   key * 16 + 8:   U ...
     *   key * 16 + 12:  Y ...
     * </pre>
     * Samples are whole numbers held exactly in a double (up to 2^53).
     */
    private double[] cells = new double[16 * CELLS];
    private final double[] totBytes = new double[4];
    private final double[] totCount = new double[4];
    private final double[] totVariance = new double[4];

    private double[] peakBytes = new double[16];
    private double[] peakUnconfirmed = new double[16];
    private double[] endBytes = new double[16];
    private double[] endCount = new double[16];
    private long[] endSamples = new long[16];
    private double[] endUnconfirmed = new double[16];
    private double[] endVariance = new double[16];
    /**
     * Per key: the samples allocated before the pending snapshot (in S, or in C: confirmed by an earlier snapshot)
     * freed after the first collection at or after it, up to and including its collection's verdict (F). The first
     * collection frees what was garbage at the snapshot; later young collections free what became garbage after it:
     * reachable at the snapshot. When collections came between the snapshot and the verdict (G1's marking, a
     * generational ZGC major cycle: their snapshot is a bound that may precede the marking's real start, and other
     * major cycles end in between), what they and the verdict itself freed of what was allocated before the snapshot
     * is counted too: an upper bound of what was reachable at the snapshot. So the leak rule's measure of that
     * collection, C + F, is at least what was reachable then (exact for a stop-the-world full collection and for a
     * ZGC or Shenandoah cycle, where F is 0), which errs towards not calling a site a suspect; the report's held
     * figure is C, what is still there.
     */
    private double[] lateBytes = new double[16];
    private double[] lateVariance = new double[16];
    private long[] lateSamples = new long[16];
    private int[] lateList = new int[16];
    private int lateCount;
    /** Points crossed since the last snapshot. */
    private int pointsSinceMark;
    /**
     * Per key: the variance of the samples that left the leak rule's measure, cumulated: freed while confirmed, and F
     * after its collection (a step's removals: see ReportBuilder).
     */
    private double[] freedVariance = new double[16];
    private double[] endFreedVariance = new double[16];
    private double[] endMeasureBytes = new double[16];
    private double[] endMeasureVariance = new double[16];
    private long[] endMeasureSamples = new long[16];
    private double[] peakGcBytes = new double[16];
    private double[] peakGcCount = new double[16];
    private double[] peakGcUnconfirmed = new double[16];
    private long[] peakGcSamples = new long[16];
    /**
     * Per key, its reference collections side by side ({@code key * MARKS + slot}, -1: none), so that a visit reads
     * both in one cache line; per key and reference: the held bytes, samples and variance there.
     */
    private int[] marks = new int[16 * MARKS];
    private double[][] markBytes = new double[MARKS][16];
    private long[][] markSamples = new long[MARKS][16];
    private double[][] markVariance = new double[MARKS][16];
    private double[][] markFreedVariance = new double[MARKS][16];

    /**
     * Per key, the lists it is on, one byte so that an event's key touches one cache line of them: {@link #DIRTY}
     * (figures changed since the last measure), {@link #YOUNG} (samples in Y), {@link #UNSETTLED} (samples outside
     * C), {@link #LATE} (samples freed late).
     */
    private byte[] flags = new byte[16];
    private static final byte DIRTY = 1;
    private static final byte YOUNG = 2;
    private static final byte UNSETTLED = 4;
    private static final byte LATE = 8;
    /** Changed since the figures at the peak were last copied ({@link #takePeak}). */
    private static final byte SINCE_PEAK = 16;
    private int[] sincePeakList = new int[16];
    private int sincePeakCount;
    private int[] dirtyList = new int[16];
    private int dirtyCount;
    private int[] youngList = new int[16];
    private int youngCount;
    private int[] unsettledList = new int[16];
    private int unsettledCount;
    private int keys;

    /** Boundaries: samples of epoch e are in C when e <= confirmedThrough, S when e <= pendingMark, U when e <= youngFrom. */
    private int confirmedThrough = -1;
    private int pendingMark = -1;
    private int youngFrom = -1;

    /** Whether own peaks and the leak rule's measures are kept ({@link #figuresOfStacksOnly}: not). */
    private boolean full = true;
    private final int endIndex;
    /** The last collection measured, -1 before the first. */
    private int lastMeasured = -1;
    private final int windowFirst;

    /**
     * @param windowFirst first collection of the window (its own peaks are taken from there on)
     * @param endIndex    the collection whose figures are "at the end" (the last of the window), -1 for none
     */
    HeldLedger(int windowFirst, int endIndex) {
        this.windowFirst = windowFirst;
        this.endIndex = endIndex;
        Arrays.fill(marks, -1);
    }

    /**
     * Keeps only the figures a report reads of stacks: held, count and unconfirmed at the end and at the peak. The
     * totals ({@link #heldBytes()}, {@link #presentBytes()} and the like: the sites' ledger's), a key's own peak ({@link #peakBytes}) and the leak rule's measures (references, late frees, the
     * variance freed: {@link #endMeasureBytes}, {@link #markBytes} and the like) are then not kept and read 0 or
     * the bare held figures; a visit at a collection ({@link #measure}) only clears the key's flag. Call before the
     * first key: a stack has no leak references, and its ledger's tens of thousands of keys are met in any order, so
     * that every per-key array not touched is a cache miss saved per event or per visit.
     */
    void figuresOfStacksOnly() {
        if (keys != 0) {
            throw new IllegalStateException("keys exist already");
        }
        full = false;
    }

    /** Makes keys {@code 0..key} exist. */
    void ensure(int key) {
        if (key < keys) {
            return;
        }
        if (key >= peakBytes.length) {
            int n = Math.max(key + 1, peakBytes.length * 2);
            cells = Arrays.copyOf(cells, n * CELLS);
            peakBytes = Arrays.copyOf(peakBytes, n);
            peakUnconfirmed = Arrays.copyOf(peakUnconfirmed, n);
            endBytes = Arrays.copyOf(endBytes, n);
            endCount = Arrays.copyOf(endCount, n);
            endSamples = Arrays.copyOf(endSamples, n);
            endUnconfirmed = Arrays.copyOf(endUnconfirmed, n);
            endVariance = Arrays.copyOf(endVariance, n);
            freedVariance = Arrays.copyOf(freedVariance, n);
            endFreedVariance = Arrays.copyOf(endFreedVariance, n);
            endMeasureBytes = Arrays.copyOf(endMeasureBytes, n);
            endMeasureVariance = Arrays.copyOf(endMeasureVariance, n);
            endMeasureSamples = Arrays.copyOf(endMeasureSamples, n);
            lateBytes = Arrays.copyOf(lateBytes, n);
            lateVariance = Arrays.copyOf(lateVariance, n);
            lateSamples = Arrays.copyOf(lateSamples, n);
            lateList = Arrays.copyOf(lateList, n);
            peakGcBytes = Arrays.copyOf(peakGcBytes, n);
            peakGcCount = Arrays.copyOf(peakGcCount, n);
            peakGcUnconfirmed = Arrays.copyOf(peakGcUnconfirmed, n);
            peakGcSamples = Arrays.copyOf(peakGcSamples, n);
            int old = marks.length;
            marks = Arrays.copyOf(marks, n * MARKS);
            Arrays.fill(marks, old, n * MARKS, -1);
            for (int m = 0; m < MARKS; m++) {
                markBytes[m] = Arrays.copyOf(markBytes[m], n);
                markSamples[m] = Arrays.copyOf(markSamples[m], n);
                markVariance[m] = Arrays.copyOf(markVariance[m], n);
                markFreedVariance[m] = Arrays.copyOf(markFreedVariance[m], n);
            }
            flags = Arrays.copyOf(flags, n);
            dirtyList = Arrays.copyOf(dirtyList, n);
            youngList = Arrays.copyOf(youngList, n);
            unsettledList = Arrays.copyOf(unsettledList, n);
            sincePeakList = Arrays.copyOf(sincePeakList, n);
        }
        keys = key + 1;
    }

    /** Sets the collection at which reference {@code slot} of {@code key} is taken (-1: none). */
    void mark(int key, int slot, int gcIndex) {
        ensure(key);
        marks[key * MARKS + slot] = gcIndex;
    }

    private void touch(int key) {
        if ((flags[key] & DIRTY) == 0) {
            flags[key] |= DIRTY;
            dirtyList[dirtyCount++] = key;
        }
    }

    private void unsettle(int key) {
        if ((flags[key] & UNSETTLED) == 0) {
            flags[key] |= UNSETTLED;
            unsettledList[unsettledCount++] = key;
        }
    }

    /** @return the bucket of a sample allocated at {@code epoch} (boundaries crossed before its allocation) */
    int bucketOf(int epoch) {
        if (epoch <= confirmedThrough) {
            return C;
        }
        if (epoch <= pendingMark) {
            return S;
        }
        return epoch <= youngFrom ? U : Y;
    }

    /** A sample allocated now (after every boundary crossed so far). */
    void allocated(int key, double b, double n, double v) {
        ensure(key);
        add(Y, key, b, n, 1, v);
        if ((flags[key] & YOUNG) == 0) {
            flags[key] |= YOUNG;
            youngList[youngCount++] = key;
        }
        unsettle(key);
        touch(key);
    }

    /** A sample observed collected, allocated at {@code epoch}. */
    void collected(int key, double b, double n, double v, int epoch) {
        ensure(key);
        int bucket = bucketOf(epoch);
        add(bucket, key, -b, -n, -1, -v);
        if (!full) {
            // no leak measures
        } else if ((bucket == S || bucket == C && pendingMark >= 0) && pointsSinceMark >= 2) {
            lateBytes[key] += b;
            lateVariance[key] += v;
            lateSamples[key]++;
            if ((flags[key] & LATE) == 0) {
                flags[key] |= LATE;
                lateList[lateCount++] = key;
            }
        } else if (bucket == C) {
            freedVariance[key] += v;
        }
        touch(key);
    }

    /**
     * Reads a word of each half of the cells of each of {@code n} keys (the buckets C and S, U and Y) that operations
     * are about to update, so that their cells are in the cache when the operations come: a loop of loads and nothing
     * else, without a branch, issues many at once, where the operations, each waiting for its cells, would take their
     * misses one by one. (A key not made to exist yet reads the last key's cells.)
     *
     * @return a sum of what was read, meaningless: the caller keeps it so that the reads happen
     */
    double warm(int[] keys, int n) {
        double[] c = cells;
        int last = c.length / CELLS - 1;
        double sum = 0;
        for (int i = 0; i < n; i++) {
            int at = Math.min(keys[i], last) * CELLS;
            sum += c[at + SAMPLES] + c[at + U * BUCKET + SAMPLES];
        }
        return sum;
    }

    private void add(int bucket, int key, double b, double n, long s, double v) {
        double[] c = cells;
        int at = key * CELLS + bucket * BUCKET;
        c[at + B] += b;
        c[at + N] += n;
        c[at + SAMPLES] += s;
        c[at + V] += v;
        if (full) {
            totBytes[bucket] += b;
            totCount[bucket] += n;
            totVariance[bucket] += v;
        }
        if (c[at + SAMPLES] == 0) { // exactly nothing: no rounding residue
            if (full) {
                totBytes[bucket] -= c[at + B];
                totCount[bucket] -= c[at + N];
                totVariance[bucket] -= c[at + V];
            }
            c[at + B] = 0;
            c[at + N] = 0;
            c[at + V] = 0;
        }
    }

    private void move(int from, int to, int key) {
        double[] c = cells;
        int f = key * CELLS + from * BUCKET;
        double s = c[f + SAMPLES];
        if (s == 0) {
            return;
        }
        double b = c[f + B];
        double n = c[f + N];
        double v = c[f + V];
        c[f + B] = 0;
        c[f + N] = 0;
        c[f + SAMPLES] = 0;
        c[f + V] = 0;
        int t = key * CELLS + to * BUCKET;
        c[t + B] += b;
        c[t + N] += n;
        c[t + SAMPLES] += s;
        c[t + V] += v;
        if (full) {
            totBytes[from] -= b;
            totCount[from] -= n;
            totVariance[from] -= v;
            totBytes[to] += b;
            totCount[to] += n;
            totVariance[to] += v;
        }
        touch(key);
    }

    /**
     * The replay crosses the snapshot of a whole-heap collection (boundary {@code boundary}): what was allocated before
     * it waits for that collection's verdict.
     */
    void crossMark(int boundary) {
        clearLate();
        pointsSinceMark = 0;
        int kept = 0;
        for (int i = 0; i < unsettledCount; i++) {
            int key = unsettledList[i];
            move(U, S, key);
            move(Y, S, key);
            flags[key] &= ~YOUNG;
            if (settled(key)) {
                flags[key] &= ~UNSETTLED;
            } else {
                unsettledList[kept++] = key;
            }
        }
        unsettledCount = kept;
        youngCount = 0;
        pendingMark = boundary;
        youngFrom = boundary;
        totalsMoved(U, S);
        totalsMoved(Y, S);
    }

    /** Totals already followed the per-key moves; rounding residues of an emptied bucket are dropped. */
    private void totalsMoved(int from, int to) {
        if (Math.abs(totBytes[from]) < 1e-6) {
            totBytes[from] = 0;
            totCount[from] = 0;
            totVariance[from] = 0;
        }
    }

    /** The samples freed late (F) leave the leak rule's measure: they were its, until the collection just measured. */
    private void clearLate() {
        for (int i = 0; i < lateCount; i++) {
            int key = lateList[i];
            freedVariance[key] += lateVariance[key];
            lateBytes[key] = 0;
            lateVariance[key] = 0;
            lateSamples[key] = 0;
            flags[key] &= ~LATE;
            touch(key);
        }
        lateCount = 0;
    }

    /** The replay crosses a collection's position (boundary {@code boundary}): what was allocated before it is older. */
    void crossPoint(int boundary) {
        pointsSinceMark++;
        for (int i = 0; i < youngCount; i++) {
            int key = youngList[i];
            flags[key] &= ~YOUNG;
            move(Y, U, key);
        }
        youngCount = 0;
        youngFrom = boundary;
    }

    /** @return whether {@code boundary} is the snapshot still waiting for its collection's verdict */
    boolean pending(int boundary) {
        return pendingMark == boundary && boundary >= 0;
    }

    /** @return the boundary of the pending snapshot, or -1 */
    int pendingMark() {
        return pendingMark;
    }

    /** The pending snapshot's collection was measured: what it judged and did not free was reachable. */
    void confirm() {
        int kept = 0;
        for (int i = 0; i < unsettledCount; i++) {
            int key = unsettledList[i];
            move(S, C, key);
            if (settled(key)) {
                flags[key] &= ~UNSETTLED;
            } else {
                unsettledList[kept++] = key;
            }
        }
        unsettledCount = kept;
        confirmedThrough = pendingMark;
        pendingMark = -1;
        totalsMoved(S, C);
    }

    private boolean settled(int key) {
        int at = key * CELLS + SAMPLES;
        return cells[at + S * BUCKET] == 0 && cells[at + U * BUCKET] == 0 && cells[at + Y * BUCKET] == 0;
    }

    /**
     * Takes the figures of collection {@code k}: call when the replay reaches the boundary after it (or the end).
     * Afterwards, until the next boundary, {@link #heldBytes()} and {@link #heldBytes(int)} are what collection
     * {@code k} held.
     */
    void measure(int k) {
        if (k == windowFirst) {
            for (int key = 0; key < keys; key++) {
                touch(key);
            }
        }
        // a collection measured past the end without measuring it (not the replay's way): its figures are taken as
        // they stand, the keys not visited since included
        if (lastMeasured < endIndex && endIndex < k) {
            takeEnd();
        }
        for (int i = 0; i < dirtyCount; i++) {
            int key = dirtyList[i];
            flags[key] &= ~DIRTY;
            if ((flags[key] & SINCE_PEAK) == 0) {
                flags[key] |= SINCE_PEAK;
                sincePeakList[sincePeakCount++] = key;
            }
            if (full) {
                take(key, k);
            }
        }
        dirtyCount = 0;
        lastMeasured = k;
        // every key now has its figures of its last visit: what it had at k
        if (k == endIndex) {
            takeEnd();
        }
    }

    /** The figures at the end: every key's as it stands (each key's at its last visit, all visits at or before it). */
    private void takeEnd() {
        for (int key = 0; key < keys; key++) {
            endBytes[key] = cells[key * CELLS + C * BUCKET + B];
            endCount[key] = cells[key * CELLS + C * BUCKET + N];
            endSamples[key] = (long) cells[key * CELLS + C * BUCKET + SAMPLES];
            endUnconfirmed[key] = cells[key * CELLS + S * BUCKET + B] + cells[key * CELLS + U * BUCKET + B];
            endVariance[key] = cells[key * CELLS + C * BUCKET + V];
            endFreedVariance[key] = freedVariance[key];
            endMeasureBytes[key] = cells[key * CELLS + C * BUCKET + B] + lateBytes[key];
            endMeasureVariance[key] = cells[key * CELLS + C * BUCKET + V] + lateVariance[key];
            endMeasureSamples[key] = (long) cells[key * CELLS + C * BUCKET + SAMPLES] + lateSamples[key];
        }
    }

    /**
     * The collection just measured is the peak (so far): its figures become the figures at the peak. Only the keys
     * visited since the previous copy are copied (the others' figures are those copied then), so that a replay copying
     * at each of many whole-heap collections does not visit every key each time.
     */
    void takePeak() {
        for (int i = 0; i < sincePeakCount; i++) {
            int key = sincePeakList[i];
            flags[key] &= ~SINCE_PEAK;
            peakGcBytes[key] = cells[key * CELLS + C * BUCKET + B];
            peakGcCount[key] = cells[key * CELLS + C * BUCKET + N];
            peakGcUnconfirmed[key] = cells[key * CELLS + S * BUCKET + B] + cells[key * CELLS + U * BUCKET + B];
            peakGcSamples[key] = (long) cells[key * CELLS + C * BUCKET + SAMPLES];
        }
        sincePeakCount = 0;
    }

    private void take(int key, int k) {
        double b = cells[key * CELLS + C * BUCKET + B];
        if (k >= windowFirst && b > peakBytes[key]) {
            peakBytes[key] = b;
            peakUnconfirmed[key] = cells[key * CELLS + S * BUCKET + B] + cells[key * CELLS + U * BUCKET + B];
        }
        for (int m = 0; m < MARKS; m++) {
            if (k <= marks[key * MARKS + m]) {
                markBytes[m][key] = b + lateBytes[key];
                markSamples[m][key] = (long) cells[key * CELLS + C * BUCKET + SAMPLES] + lateSamples[key];
                markVariance[m][key] = cells[key * CELLS + C * BUCKET + V] + lateVariance[key];
                markFreedVariance[m][key] = freedVariance[key];
            }
        }
    }

    /** @return held (confirmed) bytes in total at the collection just measured */
    double heldBytes() {
        return totBytes[C];
    }

    double heldCount() {
        return totCount[C];
    }

    /** @return unconfirmed bytes in total at the collection just measured (allocated before it, judged by nothing) */
    double unconfirmedBytes() {
        return totBytes[S] + totBytes[U];
    }

    /** @return every sampled byte still present that was allocated before the collection just measured */
    double presentBytes() {
        return totBytes[C] + totBytes[S] + totBytes[U];
    }

    /** @return the variance of {@link #heldBytes()} */
    double heldVariance() {
        return Math.max(0, totVariance[C]);
    }

    /** @return the variance of {@link #presentBytes()} */
    double presentVariance() {
        return Math.max(0, totVariance[C] + totVariance[S] + totVariance[U]);
    }

    /** @return held bytes of {@code key} at the collection just measured (any key, between measure and advance) */
    double heldBytes(int key) {
        return key < keys ? cells[key * CELLS + C * BUCKET + B] : 0;
    }

    int keys() {
        return keys;
    }

    double peakBytes(int key) {
        return key < keys ? peakBytes[key] : 0;
    }

    double peakUnconfirmedBytes(int key) {
        return key < keys ? peakUnconfirmed[key] : 0;
    }

    double endBytes(int key) {
        return key < keys ? endBytes[key] : 0;
    }

    double endCount(int key) {
        return key < keys ? endCount[key] : 0;
    }

    long endSamples(int key) {
        return key < keys ? endSamples[key] : 0;
    }

    double endVariance(int key) {
        return key < keys ? endVariance[key] : 0;
    }

    /**
     * The leak rule's measure of {@code key} at the end: held, plus what its collection's snapshot found reachable and
     * young collections freed before its verdict (see {@link #lateBytes}); its variance and samples.
     */
    double endMeasureBytes(int key) {
        return key < keys ? endMeasureBytes[key] : 0;
    }

    double endMeasureVariance(int key) {
        return key < keys ? endMeasureVariance[key] : 0;
    }

    long endMeasureSamples(int key) {
        return key < keys ? endMeasureSamples[key] : 0;
    }

    /** @return the variance of the samples of {@code key} that left the leak rule's measure, up to the end */
    double endFreedVariance(int key) {
        return key < keys ? endFreedVariance[key] : 0;
    }

    /** @return the same, up to reference collection {@code slot} */
    double markFreedVariance(int key, int slot) {
        return key < keys ? markFreedVariance[slot][key] : 0;
    }

    double endUnconfirmedBytes(int key) {
        return key < keys ? endUnconfirmed[key] : 0;
    }

    double atPeakBytes(int key) {
        return key < keys ? peakGcBytes[key] : 0;
    }

    /** @return the sampled objects behind {@link #atPeakBytes} */
    long atPeakSamples(int key) {
        return key < keys ? peakGcSamples[key] : 0;
    }

    double atPeakCount(int key) {
        return key < keys ? peakGcCount[key] : 0;
    }

    double atPeakUnconfirmedBytes(int key) {
        return key < keys ? peakGcUnconfirmed[key] : 0;
    }

    /** @return the leak rule's measure of {@code key} at its reference collection {@code slot} (held + late frees) */
    double markBytes(int key, int slot) {
        return key < keys ? markBytes[slot][key] : 0;
    }

    long markSamples(int key, int slot) {
        return key < keys ? markSamples[slot][key] : 0;
    }

    double markVariance(int key, int slot) {
        return key < keys ? markVariance[slot][key] : 0;
    }
}
