package io.memscope.accounting;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The watermark algorithm of MySQL's performance schema memory instrumentation (seed 001), on two storages:
 * a thread's plain {@code long[]} (one writer, the seed's "safe" stat) and a shared {@link AtomicLongArray}
 * (many writers, the seed's "shared" stat).
 *
 * <p>Each instrument owns {@value #WIDTH} consecutive longs at {@code base = slot * WIDTH}:
 * <pre>
 *  base+0  ALLOC_COUNT        number of allocations           (COUNT_ALLOC)
 *  base+1  FREE_COUNT         number of frees                 (COUNT_FREE)
 *  base+2  ALLOC_SIZE         bytes allocated                 (SUM_NUMBER_OF_BYTES_ALLOC)
 *  base+3  FREE_SIZE          bytes freed                     (SUM_NUMBER_OF_BYTES_FREE)
 *  base+4  ALLOC_COUNT_CAP    allocations possible before HIGH_COUNT_USED must rise
 *  base+5  FREE_COUNT_CAP     frees possible before LOW_COUNT_USED must fall
 *  base+6  ALLOC_SIZE_CAP     bytes allocatable before HIGH_NUMBER_OF_BYTES_USED must rise
 *  base+7  FREE_SIZE_CAP      bytes freeable before LOW_NUMBER_OF_BYTES_USED must fall
 * </pre>
 * so that CURRENT = ALLOC - FREE, LOW = CURRENT - FREE_CAP and HIGH = CURRENT + ALLOC_CAP, for counts and
 * bytes. All values are non-negative.
 *
 * <p>Thread storage is written only by its thread, with opaque stores so that a reader on another thread never
 * sees a torn long; the reader's view is racy (a value may be one operation old) but each value is one that was
 * really stored.
 */
final class Stats {
    static final int WIDTH = 8;
    static final int ALLOC_COUNT = 0;
    static final int FREE_COUNT = 1;
    static final int ALLOC_SIZE = 2;
    static final int FREE_SIZE = 3;
    static final int ALLOC_COUNT_CAP = 4;
    static final int FREE_COUNT_CAP = 5;
    static final int ALLOC_SIZE_CAP = 6;
    static final int FREE_SIZE_CAP = 7;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private Stats() {
    }

    static void put(long[] s, int i, long v) {
        LONGS.setOpaque(s, i, v);
    }

    static long read(long[] s, int i) {
        return (long) LONGS.getOpaque(s, i);
    }

    // ---------------------------------------------------------------- thread ("safe") storage, one writer

    /**
     * The seed's count_alloc for {@code count} allocations of {@code size} bytes in all. Returns the deltas by
     * which the high watermarks rose beyond this stat's capacity, packed by {@link #packDelta}, or 0 (the common
     * case: the thread stayed under its own high watermark and nothing is carried).
     */
    static long countAlloc(long[] s, int b, long count, long size, long[] delta) {
        put(s, b + ALLOC_COUNT, s[b + ALLOC_COUNT] + count);
        put(s, b + FREE_COUNT_CAP, s[b + FREE_COUNT_CAP] + count);
        put(s, b + ALLOC_SIZE, s[b + ALLOC_SIZE] + size);
        put(s, b + FREE_SIZE_CAP, s[b + FREE_SIZE_CAP] + size);
        long countCap = s[b + ALLOC_COUNT_CAP];
        long sizeCap = s[b + ALLOC_SIZE_CAP];
        if (countCap >= count && sizeCap >= size) {        // case 1: under both high watermarks
            put(s, b + ALLOC_COUNT_CAP, countCap - count);
            put(s, b + ALLOC_SIZE_CAP, sizeCap - size);
            return 0;
        }
        long countDelta;
        if (countCap >= count) {                           // case 2: only the byte watermark rises
            put(s, b + ALLOC_COUNT_CAP, countCap - count);
            countDelta = 0;
        } else {                                           // cases 3 and 4: the count watermark rises
            put(s, b + ALLOC_COUNT_CAP, 0);
            countDelta = count - countCap;
        }
        long sizeDelta;
        if (sizeCap >= size) {                             // case 4
            put(s, b + ALLOC_SIZE_CAP, sizeCap - size);
            sizeDelta = 0;
        } else {                                           // cases 2 and 3
            put(s, b + ALLOC_SIZE_CAP, 0);
            sizeDelta = size - sizeCap;
        }
        delta[0] = countDelta;
        delta[1] = sizeDelta;
        return 1;
    }

    /** The seed's count_free, the mirror of {@link #countAlloc}: low watermarks fall beyond the free capacity. */
    static long countFree(long[] s, int b, long count, long size, long[] delta) {
        put(s, b + FREE_COUNT, s[b + FREE_COUNT] + count);
        put(s, b + ALLOC_COUNT_CAP, s[b + ALLOC_COUNT_CAP] + count);
        put(s, b + FREE_SIZE, s[b + FREE_SIZE] + size);
        put(s, b + ALLOC_SIZE_CAP, s[b + ALLOC_SIZE_CAP] + size);
        long countCap = s[b + FREE_COUNT_CAP];
        long sizeCap = s[b + FREE_SIZE_CAP];
        if (countCap >= count && sizeCap >= size) {
            put(s, b + FREE_COUNT_CAP, countCap - count);
            put(s, b + FREE_SIZE_CAP, sizeCap - size);
            return 0;
        }
        long countDelta;
        if (countCap >= count) {
            put(s, b + FREE_COUNT_CAP, countCap - count);
            countDelta = 0;
        } else {
            put(s, b + FREE_COUNT_CAP, 0);
            countDelta = count - countCap;
        }
        long sizeDelta;
        if (sizeCap >= size) {
            put(s, b + FREE_SIZE_CAP, sizeCap - size);
            sizeDelta = 0;
        } else {
            put(s, b + FREE_SIZE_CAP, 0);
            sizeDelta = size - sizeCap;
        }
        delta[0] = countDelta;
        delta[1] = sizeDelta;
        return 1;
    }

    /** Truncate of one thread stat: counts and sums to a new baseline, capacities to 0 (LOW = HIGH = CURRENT). */
    static void rebase(long[] s, int b) {
        long base = Math.min(s[b + ALLOC_COUNT], s[b + FREE_COUNT]);
        put(s, b + ALLOC_COUNT, s[b + ALLOC_COUNT] - base);
        put(s, b + FREE_COUNT, s[b + FREE_COUNT] - base);
        base = Math.min(s[b + ALLOC_SIZE], s[b + FREE_SIZE]);
        put(s, b + ALLOC_SIZE, s[b + ALLOC_SIZE] - base);
        put(s, b + FREE_SIZE, s[b + FREE_SIZE] - base);
        for (int i = ALLOC_COUNT_CAP; i <= FREE_SIZE_CAP; i++) {
            put(s, b + i, 0);
        }
    }

    /** The same rebase applied to a copy (readers' view of a thread that has not yet rebased itself). */
    static void rebaseCopy(long[] v) {
        long base = Math.min(v[ALLOC_COUNT], v[FREE_COUNT]);
        v[ALLOC_COUNT] -= base;
        v[FREE_COUNT] -= base;
        base = Math.min(v[ALLOC_SIZE], v[FREE_SIZE]);
        v[ALLOC_SIZE] -= base;
        v[FREE_SIZE] -= base;
        for (int i = ALLOC_COUNT_CAP; i <= FREE_SIZE_CAP; i++) {
            v[i] = 0;
        }
    }

    // ---------------------------------------------------------------- shared storage, many writers

    /**
     * The seed's apply_alloc_delta / apply_free_delta for one component: absorbs up to {@code delta} from the
     * capacity at {@code i} and returns what remains to be carried to the parent. Reads only (no write) when the
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
     * The seed's count_global_alloc (count_builtin_alloc) with exact capacity updates (a CAS loop instead of the
     * seed's optimistic fetch_sub and adjustment). Returns the deltas by which the high watermarks rose in
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

    /** The seed's count_global_free, the mirror of {@link #sharedAlloc}. */
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
