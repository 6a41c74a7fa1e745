package io.memscope.accounting;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The watermark algorithm of MySQL's performance schema memory instrumentation, on two storages:
 * a thread's plain {@code long[]} (one writer, the performance schema's "safe" stat) and a shared {@link
 * AtomicLongArray} (many writers, the performance schema's "shared" stat).
 *
 * <p>Each instrument owns {@value #WIDTH} consecutive longs at {@code base}. The first four are the same in both
 * storages; the last four differ:
 * <pre>
 *          thread storage ("thread form")           shared storage and rows ("capacity form", MySQL's)
 *  base+0  ALLOC_COUNT   number of allocations      ALLOC_COUNT      (COUNT_ALLOC)
 *  base+1  FREE_COUNT    number of frees            FREE_COUNT       (COUNT_FREE)
 *  base+2  ALLOC_SIZE    bytes allocated            ALLOC_SIZE       (SUM_NUMBER_OF_BYTES_ALLOC)
 *  base+3  FREE_SIZE     bytes freed                FREE_SIZE        (SUM_NUMBER_OF_BYTES_FREE)
 *  base+4  HIGH_COUNT    HIGH_COUNT_USED            ALLOC_COUNT_CAP  allocations possible before HIGH_COUNT_USED rises
 *  base+5  LOW_COUNT     LOW_COUNT_USED             FREE_COUNT_CAP   frees possible before LOW_COUNT_USED falls
 *  base+6  HIGH_SIZE     HIGH_NUMBER_OF_BYTES_USED  ALLOC_SIZE_CAP   bytes allocatable before HIGH_..._BYTES rises
 *  base+7  LOW_SIZE      LOW_NUMBER_OF_BYTES_USED   FREE_SIZE_CAP    bytes freeable before LOW_..._BYTES falls
 * </pre>
 * with CURRENT = ALLOC - FREE, and the performance schema's identities LOW = CURRENT - FREE_CAP, HIGH = CURRENT +
 * ALLOC_CAP for counts and bytes (all capacities non-negative, so LOW &le; CURRENT &le; HIGH).
 *
 * <p>Why two forms: a shared level receives watermark <em>deltas</em> from below and can only absorb them in a
 * capacity (HIGH of an aggregate is not the maximum of its CURRENT), so shared storage keeps the performance schema's
 * capacities. A thread stat is exact, and there the two forms are the same information: the performance schema's
 * count_alloc leaves HIGH unchanged while the alloc capacity covers the allocation and otherwise sets HIGH to the new
 * CURRENT, carrying the excess, which is {@code HIGH = max(HIGH, CURRENT)} with delta {@code max(0, CURRENT -
 * HIGH_before)}. Keeping HIGH and LOW themselves, an allocation writes two longs (ALLOC_COUNT, ALLOC_SIZE) instead of
 * the performance schema's six (the two counters and all four capacities), and a free likewise. {@link #toCapacities}
 * converts a thread stat for rows and for aggregation. The test {@code WatermarkEquivalenceTest} runs the performance
 * schema's capacity algorithm (kept there as the reference) against this one on random sequences.
 *
 * <p>Thread storage is written only by its thread, with opaque stores so that a reader on another thread never
 * sees a torn long; the reader's view is racy (a value may be one operation old) but each value is one that was
 * really stored; {@link #readThread} copies it and restores LOW &le; CURRENT &le; HIGH, which fields of two
 * consecutive operations may not satisfy.
 */
final class Stats {
    static final int WIDTH = 8;
    static final int ALLOC_COUNT = 0;
    static final int FREE_COUNT = 1;
    static final int ALLOC_SIZE = 2;
    static final int FREE_SIZE = 3;
    // capacity form (shared storage, rows)
    static final int ALLOC_COUNT_CAP = 4;
    static final int FREE_COUNT_CAP = 5;
    static final int ALLOC_SIZE_CAP = 6;
    static final int FREE_SIZE_CAP = 7;
    // thread form
    static final int HIGH_COUNT = 4;
    static final int LOW_COUNT = 5;
    static final int HIGH_SIZE = 6;
    static final int LOW_SIZE = 7;
    /**
     * Longs left unused before the first and after the last instrument of a thread storage array: 128 bytes (two
     * cache lines, for adjacent-line prefetch) between the longs a thread writes on every call and any other
     * object, which may be another thread's hot data once a copying collector has placed them side by side.
     */
    static final int PAD = 16;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private Stats() {
    }

    static void put(long[] s, int i, long v) {
        LONGS.setOpaque(s, i, v);
    }

    static long read(long[] s, int i) {
        return (long) LONGS.getOpaque(s, i);
    }

    /** @return the base of instrument {@code index} in a thread storage array */
    static int threadBase(int index) {
        return PAD + index * WIDTH;
    }

    /** @return the length of a thread storage array holding instruments 0 .. {@code instruments - 1} */
    static int threadLength(int instruments) {
        return PAD + instruments * WIDTH + PAD;
    }

    /** @return true if a thread storage array {@code s} holds the instrument at base {@code b} */
    static boolean holds(long[] s, int b) {
        return b + WIDTH + PAD <= s.length;
    }

    // ---------------------------------------------------------------- thread storage ("thread form"), one writer

    /**
     * The performance schema's count_alloc for {@code count} allocations of {@code size} bytes in all: HIGH = max(HIGH,
     * CURRENT). Returns 0 when the thread stayed under its own high watermarks (the common case: nothing is carried,
     * two longs are written), else 1 with the amounts by which the high watermarks rose in {@code delta[0]} (count)
     * and {@code delta[1]} (bytes), which the caller carries up.
     */
    static long countAlloc(long[] s, int b, long count, long size, long[] delta) {
        long allocs = s[b + ALLOC_COUNT] + count;
        long bytes = s[b + ALLOC_SIZE] + size;
        long curCount = allocs - s[b + FREE_COUNT];
        long curBytes = bytes - s[b + FREE_SIZE];
        long highCount = s[b + HIGH_COUNT];
        long highBytes = s[b + HIGH_SIZE];
        put(s, b + ALLOC_COUNT, allocs);
        put(s, b + ALLOC_SIZE, bytes);
        if (curCount <= highCount && curBytes <= highBytes) {   // performance schema's case 1
            return 0;
        }
        return raise(s, b, curCount, curBytes, highCount, highBytes, delta);
    }

    /** The performance schema's cases 2 to 4: one or both high watermarks rise to CURRENT. */
    private static long raise(long[] s, int b, long curCount, long curBytes, long highCount, long highBytes,
                              long[] delta) {
        long countDelta = 0;
        if (curCount > highCount) {
            put(s, b + HIGH_COUNT, curCount);
            countDelta = curCount - highCount;
        }
        long sizeDelta = 0;
        if (curBytes > highBytes) {
            put(s, b + HIGH_SIZE, curBytes);
            sizeDelta = curBytes - highBytes;
        }
        delta[0] = countDelta;
        delta[1] = sizeDelta;
        return 1;
    }

    /** The performance schema's count_free, the mirror of {@link #countAlloc}: LOW = min(LOW, CURRENT). */
    static long countFree(long[] s, int b, long count, long size, long[] delta) {
        long frees = s[b + FREE_COUNT] + count;
        long bytes = s[b + FREE_SIZE] + size;
        long curCount = s[b + ALLOC_COUNT] - frees;
        long curBytes = s[b + ALLOC_SIZE] - bytes;
        long lowCount = s[b + LOW_COUNT];
        long lowBytes = s[b + LOW_SIZE];
        put(s, b + FREE_COUNT, frees);
        put(s, b + FREE_SIZE, bytes);
        if (curCount >= lowCount && curBytes >= lowBytes) {
            return 0;
        }
        return lower(s, b, curCount, curBytes, lowCount, lowBytes, delta);
    }

    private static long lower(long[] s, int b, long curCount, long curBytes, long lowCount, long lowBytes,
                              long[] delta) {
        long countDelta = 0;
        if (curCount < lowCount) {
            put(s, b + LOW_COUNT, curCount);
            countDelta = lowCount - curCount;
        }
        long sizeDelta = 0;
        if (curBytes < lowBytes) {
            put(s, b + LOW_SIZE, curBytes);
            sizeDelta = lowBytes - curBytes;
        }
        delta[0] = countDelta;
        delta[1] = sizeDelta;
        return 1;
    }

    /** Truncate of one thread stat: counts and sums to a new baseline, LOW = HIGH = CURRENT. */
    static void rebase(long[] s, int b) {
        long base = Math.min(s[b + ALLOC_COUNT], s[b + FREE_COUNT]);
        long allocs = s[b + ALLOC_COUNT] - base;
        long frees = s[b + FREE_COUNT] - base;
        base = Math.min(s[b + ALLOC_SIZE], s[b + FREE_SIZE]);
        long allocBytes = s[b + ALLOC_SIZE] - base;
        long freeBytes = s[b + FREE_SIZE] - base;
        put(s, b + ALLOC_COUNT, allocs);
        put(s, b + FREE_COUNT, frees);
        put(s, b + ALLOC_SIZE, allocBytes);
        put(s, b + FREE_SIZE, freeBytes);
        put(s, b + HIGH_COUNT, allocs - frees);
        put(s, b + LOW_COUNT, allocs - frees);
        put(s, b + HIGH_SIZE, allocBytes - freeBytes);
        put(s, b + LOW_SIZE, allocBytes - freeBytes);
    }

    /**
     * Copies the thread stat at {@code from} (of a thread that may be running) into {@code into} at {@code to}, in
     * thread form, with LOW &le; CURRENT &le; HIGH restored (a racy copy can hold fields of two consecutive
     * operations; widening to CURRENT gives the watermarks the thread itself reaches when it completes the
     * operation).
     */
    static void readThread(long[] s, int from, long[] into, int to) {
        for (int i = 0; i < WIDTH; i++) {
            into[to + i] = read(s, from + i);
        }
        long curCount = into[to + ALLOC_COUNT] - into[to + FREE_COUNT];
        long curBytes = into[to + ALLOC_SIZE] - into[to + FREE_SIZE];
        into[to + HIGH_COUNT] = Math.max(into[to + HIGH_COUNT], curCount);
        into[to + LOW_COUNT] = Math.min(into[to + LOW_COUNT], curCount);
        into[to + HIGH_SIZE] = Math.max(into[to + HIGH_SIZE], curBytes);
        into[to + LOW_SIZE] = Math.min(into[to + LOW_SIZE], curBytes);
    }

    /**
     * Converts a thread stat (thread form, LOW &le; CURRENT &le; HIGH) at {@code from} into the performance schema's
     * capacity form at {@code to} ({@code into} may be {@code s} with {@code to == from}).
     */
    static void toCapacities(long[] s, int from, long[] into, int to) {
        long curCount = s[from + ALLOC_COUNT] - s[from + FREE_COUNT];
        long curBytes = s[from + ALLOC_SIZE] - s[from + FREE_SIZE];
        long highCount = s[from + HIGH_COUNT];
        long lowCount = s[from + LOW_COUNT];
        long highBytes = s[from + HIGH_SIZE];
        long lowBytes = s[from + LOW_SIZE];
        into[to + ALLOC_COUNT] = s[from + ALLOC_COUNT];
        into[to + FREE_COUNT] = s[from + FREE_COUNT];
        into[to + ALLOC_SIZE] = s[from + ALLOC_SIZE];
        into[to + FREE_SIZE] = s[from + FREE_SIZE];
        into[to + ALLOC_COUNT_CAP] = highCount - curCount;
        into[to + FREE_COUNT_CAP] = curCount - lowCount;
        into[to + ALLOC_SIZE_CAP] = highBytes - curBytes;
        into[to + FREE_SIZE_CAP] = curBytes - lowBytes;
    }

    // ---------------------------------------------------------------- shared storage, many writers

    /**
     * The performance schema's apply_alloc_delta / apply_free_delta for one component: absorbs up to {@code delta} from
     * the capacity at {@code i} and returns what remains to be carried to the parent. Reads only (no write) when the
     * capacity is 0, which is the common case on the global row.
     */
    static long absorb(AtomicLongArray a, int i, long delta) {
        if (delta <= 0) {
            return 0;
        }
        for (;;) {
            long cap = a.get(i);
            if (cap == 0) {
                return delta;
            }
            if (cap >= delta) {
                if (a.compareAndSet(i, cap, cap - delta)) {
                    return 0;
                }
            } else if (a.compareAndSet(i, cap, 0)) {
                return delta - cap;
            }
        }
    }

    /** Takes up to {@code want} from the capacity at {@code i}; returns how much was taken. */
    private static long consume(AtomicLongArray a, int i, long want) {
        for (;;) {
            long cap = a.get(i);
            long take = Math.min(cap, want);
            if (take == 0 || a.compareAndSet(i, cap, cap - take)) {
                return take;
            }
        }
    }

    /**
     * The performance schema's count_global_alloc (count_builtin_alloc) with exact capacity updates (a CAS loop instead
     * of the performance schema's optimistic fetch_sub and adjustment). Returns the deltas by which the high watermarks
     * rose in
     * {@code delta}, or 0 if none.
     */
    static long sharedAlloc(AtomicLongArray a, int b, long count, long size, long[] delta) {
        a.getAndAdd(b + ALLOC_COUNT, count);
        a.getAndAdd(b + FREE_COUNT_CAP, count);
        a.getAndAdd(b + ALLOC_SIZE, size);
        a.getAndAdd(b + FREE_SIZE_CAP, size);
        long countDelta = count - consume(a, b + ALLOC_COUNT_CAP, count);
        long sizeDelta = size - consume(a, b + ALLOC_SIZE_CAP, size);
        if (delta != null) {
            delta[0] = countDelta;
            delta[1] = sizeDelta;
        }
        return (countDelta | sizeDelta) == 0 ? 0 : 1;
    }

    /** The performance schema's count_global_free, the mirror of {@link #sharedAlloc}. */
    static long sharedFree(AtomicLongArray a, int b, long count, long size, long[] delta) {
        a.getAndAdd(b + FREE_COUNT, count);
        a.getAndAdd(b + ALLOC_COUNT_CAP, count);
        a.getAndAdd(b + FREE_SIZE, size);
        a.getAndAdd(b + ALLOC_SIZE_CAP, size);
        long countDelta = count - consume(a, b + FREE_COUNT_CAP, count);
        long sizeDelta = size - consume(a, b + FREE_SIZE_CAP, size);
        if (delta != null) {
            delta[0] = countDelta;
            delta[1] = sizeDelta;
        }
        return (countDelta | sizeDelta) == 0 ? 0 : 1;
    }

    /** Truncate of one shared stat (exact when no thread writes it meanwhile). */
    static void rebase(AtomicLongArray a, int b) {
        long base = Math.min(a.get(b + ALLOC_COUNT), a.get(b + FREE_COUNT));
        a.getAndAdd(b + ALLOC_COUNT, -base);
        a.getAndAdd(b + FREE_COUNT, -base);
        base = Math.min(a.get(b + ALLOC_SIZE), a.get(b + FREE_SIZE));
        a.getAndAdd(b + ALLOC_SIZE, -base);
        a.getAndAdd(b + FREE_SIZE, -base);
        for (int i = ALLOC_COUNT_CAP; i <= FREE_SIZE_CAP; i++) {
            a.set(b + i, 0);
        }
    }
}
