package io.memscope.analysis;

import java.util.Arrays;
import java.util.function.IntFunction;
import java.util.function.LongFunction;

/**
 * Dense indexes of what heap samples count for in the API sections, so that a sample carries two ints, not objects:
 *
 * <ul>
 * <li>stack keys: (stack id, site id), each with the held figures of the profiled functions in its stack (looked up
 *     once per stack key);</li>
 * <li>cells: (scope path, stack key) of samples placed in a scope, each with three figures (sampled bytes, held at
 *     the end, held at the peak) and its scope path's figures.</li>
 * </ul>
 *
 * Memory: per stack key and per cell, never per sample; cells are numbered in order of their first sample.
 */
final class SampleCells {
    /** Cell figure: sampled bytes. */
    static final int SAMPLED = 0;
    /** Cell figure: bytes held at the end. */
    static final int HELD_END = 1;
    /** Cell figure: bytes held at the peak. */
    static final int HELD_PEAK = 2;
    private static final int FIGURES = 3;

    private final LongFunction<long[][]> functionFigures;
    private final IntFunction<long[]> pathFigures;

    private final StackIndex keyIndex = new StackIndex();
    private long[] keyStack = new long[256];
    private int[] keySite = new int[256];
    private long[][][] keyFunctions = new long[256][][];
    private int keys;

    private final StackIndex cellIndex = new StackIndex();
    private int[] cellKey = new int[256];
    private int[] cellPath = new int[256];
    private long[][] cellPathFigures = new long[256][];
    private long[] cellFigures = new long[256 * FIGURES];
    private int cells;

    /**
     * @param functionFigures by stack id: the held figures ({end, peak}) of each profiled function in the stack
     * @param pathFigures     by scope path id: the path's figures, shared by its cells
     */
    SampleCells(LongFunction<long[][]> functionFigures, IntFunction<long[]> pathFigures) {
        this.functionFigures = functionFigures;
        this.pathFigures = pathFigures;
    }

    /** @return the key of (stack id, site id), created on first use */
    int stackKey(long stackId, int siteId) {
        int k = keyIndex.indexOf(stackId, siteId, keys);
        if (k == keys) {
            if (k == keyStack.length) {
                int n = k * 2;
                keyStack = Arrays.copyOf(keyStack, n);
                keySite = Arrays.copyOf(keySite, n);
                keyFunctions = Arrays.copyOf(keyFunctions, n);
            }
            keyStack[k] = stackId;
            keySite[k] = siteId;
            keyFunctions[k] = functionFigures.apply(stackId);
            keys++;
        }
        return k;
    }

    long stackId(int key) {
        return keyStack[key];
    }

    int siteId(int key) {
        return keySite[key];
    }

    /** @return the held figures ({end, peak}) of each profiled function in the key's stack; empty for none */
    long[][] functions(int key) {
        return keyFunctions[key];
    }

    /** @return the cell of (scope path, stack key), created with zero figures on first use */
    int cell(int pathId, int key) {
        int c = cellIndex.indexOf(key, pathId, cells);
        if (c == cells) {
            if (c == cellKey.length) {
                int n = c * 2;
                cellKey = Arrays.copyOf(cellKey, n);
                cellPath = Arrays.copyOf(cellPath, n);
                cellPathFigures = Arrays.copyOf(cellPathFigures, n);
                cellFigures = Arrays.copyOf(cellFigures, n * FIGURES);
            }
            cellKey[c] = key;
            cellPath[c] = pathId;
            cellPathFigures[c] = pathFigures.apply(pathId);
            cells++;
        }
        return c;
    }

    /** @return cells created so far, numbered 0 to this minus one */
    int cells() {
        return cells;
    }

    int key(int cell) {
        return cellKey[cell];
    }

    int path(int cell) {
        return cellPath[cell];
    }

    /** @return the figures of the cell's scope path (shared) */
    long[] pathFigures(int cell) {
        return cellPathFigures[cell];
    }

    /** Adds bytes to one of the cell's figures ({@link #SAMPLED}, {@link #HELD_END}, {@link #HELD_PEAK}). */
    void add(int cell, int figure, long bytes) {
        cellFigures[cell * FIGURES + figure] += bytes;
    }

    long figure(int cell, int figure) {
        return cellFigures[cell * FIGURES + figure];
    }
}
