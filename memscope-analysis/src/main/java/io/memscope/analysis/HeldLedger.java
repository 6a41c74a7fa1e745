package io.memscope.analysis;

import java.util.Arrays;

/**
 * Held memory per key (a site or a stack) at every collection of a {@link GcTimeline}, from sampled objects,
 * without per-collection arrays: per key, the weights of the live samples allocated before the current collection
 * started ({@code old}) and after it ({@code young}).
 *
 * <p>Events arrive in time order; when the replay passes the start of collection {@code k + 1}, {@link #measure}
 * takes the figures of collection {@code k} and {@link #advance} starts the next one. Deallocations between the starts of collections {@code k} and {@code k+1} are attributed to
 * {@code k} (the {@link GcTimeline} rule), so when the replay reaches the start of {@code k+1}, {@code old} is what
 * collection {@code k} held: objects allocated before it started and not collected by it. Then {@code young} joins
 * {@code old} for the next collection.
 *
 * <p>Only keys changed since the last boundary are visited (a dirty list): a key not visited has the same held
 * figure as at the previous collection. Figures taken at particular collections ({@link #atEnd}, {@link #atPeak},
 * a per-key mark) rely on that: a key's value at collection {@code k} is its value at the last visit at or before
 * {@code k}. Each key's own highest figure ({@link #peakBytes}) is taken over the collections of a window; the first
 * collection of the window visits every key.
 *
 * <p>Weights are doubles (Horvitz-Thompson sums of {@code 1/p}); callers round.
 */
final class HeldLedger {
    private double[] oldBytes = new double[16];
    private double[] oldCount = new double[16];
    private double[] youngBytes = new double[16];
    private double[] youngCount = new double[16];
    private double[] peakBytes = new double[16];
    private double[] endBytes = new double[16];
    private double[] endCount = new double[16];
    private double[] peakGcBytes = new double[16];
    private double[] peakGcCount = new double[16];
    private double[] markBytes = new double[16];
    private int[] mark = new int[16];
    private boolean[] dirty = new boolean[16];
    private int[] dirtyList = new int[16];
    private int dirtyCount;
    private int keys;
    private double oldTotalBytes;
    private double oldTotalCount;

    private final int endIndex;
    private final int peakIndex;
    private final int windowFirst;

    /**
     * @param windowFirst first collection of the window (its own peaks are taken from there on)
     * @param endIndex    the collection whose figures are "at the end" (the last of the window), -1 for none
     * @param peakIndex   the run's peak collection, -1 for none
     */
    HeldLedger(int windowFirst, int endIndex, int peakIndex) {
        this.windowFirst = windowFirst;
        this.endIndex = endIndex;
        this.peakIndex = peakIndex;
        Arrays.fill(mark, -1);
    }

    /** Makes keys {@code 0..key} exist. */
    void ensure(int key) {
        if (key < keys) {
            return;
        }
        if (key >= oldBytes.length) {
            int n = Math.max(key + 1, oldBytes.length * 2);
            oldBytes = Arrays.copyOf(oldBytes, n);
            oldCount = Arrays.copyOf(oldCount, n);
            youngBytes = Arrays.copyOf(youngBytes, n);
            youngCount = Arrays.copyOf(youngCount, n);
            peakBytes = Arrays.copyOf(peakBytes, n);
            endBytes = Arrays.copyOf(endBytes, n);
            endCount = Arrays.copyOf(endCount, n);
            peakGcBytes = Arrays.copyOf(peakGcBytes, n);
            peakGcCount = Arrays.copyOf(peakGcCount, n);
            markBytes = Arrays.copyOf(markBytes, n);
            int old = mark.length;
            mark = Arrays.copyOf(mark, n);
            Arrays.fill(mark, old, n, -1);
            dirty = Arrays.copyOf(dirty, n);
            dirtyList = Arrays.copyOf(dirtyList, n);
        }
        keys = key + 1;
    }

    /** Sets the collection at which {@link #markBytes} of {@code key} is taken (-1: none). */
    void mark(int key, int gcIndex) {
        ensure(key);
        mark[key] = gcIndex;
    }

    private void touch(int key) {
        if (!dirty[key]) {
            dirty[key] = true;
            dirtyList[dirtyCount++] = key;
        }
    }

    /** A sample allocated after the current collection started. */
    void allocated(int key, double bytes, double count) {
        ensure(key);
        youngBytes[key] += bytes;
        youngCount[key] += count;
        touch(key);
    }

    /**
     * A sample observed collected.
     *
     * @param old whether it was allocated before the current collection started
     */
    void collected(int key, double bytes, double count, boolean old) {
        ensure(key);
        if (old) {
            oldBytes[key] -= bytes;
            oldCount[key] -= count;
            oldTotalBytes -= bytes;
            oldTotalCount -= count;
        } else {
            youngBytes[key] -= bytes;
            youngCount[key] -= count;
        }
        touch(key);
    }

    /**
     * Takes the figures of collection {@code k}: call when the replay reaches the start of collection {@code k + 1}
     * (or the end), before {@link #advance()}. Afterwards, until {@link #advance()}, {@link #heldBytes()} and
     * {@link #heldBytes(int)} are what collection {@code k} held.
     */
    void measure(int k) {
        if (k == windowFirst) {
            for (int key = 0; key < keys; key++) {
                touch(key);
            }
        }
        for (int i = 0; i < dirtyCount; i++) {
            take(dirtyList[i], k);
        }
    }

    /** The replay passed the start of a collection: what was allocated before it is now "old". */
    void advance() {
        int kept = 0;
        for (int i = 0; i < dirtyCount; i++) {
            int key = dirtyList[i];
            double yb = youngBytes[key];
            double yc = youngCount[key];
            if (yb != 0 || yc != 0) {
                oldBytes[key] += yb;
                oldCount[key] += yc;
                oldTotalBytes += yb;
                oldTotalCount += yc;
                youngBytes[key] = 0;
                youngCount[key] = 0;
                dirtyList[kept++] = key; // its held figure changes at the next collection: visit it then
            } else {
                dirty[key] = false;
            }
        }
        dirtyCount = kept;
    }

    private void take(int key, int k) {
        double b = oldBytes[key];
        if (k >= windowFirst && b > peakBytes[key]) {
            peakBytes[key] = b;
        }
        if (k <= endIndex) {
            endBytes[key] = b;
            endCount[key] = oldCount[key];
        }
        if (k <= peakIndex) {
            peakGcBytes[key] = b;
            peakGcCount[key] = oldCount[key];
        }
        if (k <= mark[key]) {
            markBytes[key] = b;
        }
    }

    /** @return the total held at the collection just measured (between {@link #measure} and {@link #advance}) */
    double heldBytes() {
        return oldTotalBytes;
    }

    double heldCount() {
        return oldTotalCount;
    }

    /** @return held bytes of {@code key} at the collection just measured (any key, between measure and advance) */
    double heldBytes(int key) {
        return key < keys ? oldBytes[key] : 0;
    }

    int keys() {
        return keys;
    }

    double peakBytes(int key) {
        return key < keys ? peakBytes[key] : 0;
    }

    double endBytes(int key) {
        return key < keys ? endBytes[key] : 0;
    }

    double endCount(int key) {
        return key < keys ? endCount[key] : 0;
    }

    double atPeakBytes(int key) {
        return key < keys ? peakGcBytes[key] : 0;
    }

    double atPeakCount(int key) {
        return key < keys ? peakGcCount[key] : 0;
    }

    double markBytes(int key) {
        return key < keys ? markBytes[key] : 0;
    }
}
