package io.memscope.accounting;

import static io.memscope.accounting.Stats.*;

/**
 * Reference implementation for tests: the performance schema's thread-level ("safe") stat exactly as MySQL performance
 * schema describes it, with the four capacities (PFS_memory_safe_stat::count_alloc / count_free) and truncate setting
 * them to 0. Kept to check that {@link Stats}' thread form (LOW and HIGH kept directly) gives the same results.
 */
final class PerformanceSchemaStats {
    private PerformanceSchemaStats() {
    }

    static long countAlloc(long[] s, int b, long count, long size, long[] delta) {
        s[b + ALLOC_COUNT] += count;
        s[b + FREE_COUNT_CAP] += count;
        s[b + ALLOC_SIZE] += size;
        s[b + FREE_SIZE_CAP] += size;
        long countCap = s[b + ALLOC_COUNT_CAP];
        long sizeCap = s[b + ALLOC_SIZE_CAP];
        if (countCap >= count && sizeCap >= size) {
            s[b + ALLOC_COUNT_CAP] = countCap - count;
            s[b + ALLOC_SIZE_CAP] = sizeCap - size;
            return 0;
        }
        if (countCap >= count) {
            s[b + ALLOC_COUNT_CAP] = countCap - count;
            delta[0] = 0;
        } else {
            s[b + ALLOC_COUNT_CAP] = 0;
            delta[0] = count - countCap;
        }
        if (sizeCap >= size) {
            s[b + ALLOC_SIZE_CAP] = sizeCap - size;
            delta[1] = 0;
        } else {
            s[b + ALLOC_SIZE_CAP] = 0;
            delta[1] = size - sizeCap;
        }
        return 1;
    }

    static long countFree(long[] s, int b, long count, long size, long[] delta) {
        s[b + FREE_COUNT] += count;
        s[b + ALLOC_COUNT_CAP] += count;
        s[b + FREE_SIZE] += size;
        s[b + ALLOC_SIZE_CAP] += size;
        long countCap = s[b + FREE_COUNT_CAP];
        long sizeCap = s[b + FREE_SIZE_CAP];
        if (countCap >= count && sizeCap >= size) {
            s[b + FREE_COUNT_CAP] = countCap - count;
            s[b + FREE_SIZE_CAP] = sizeCap - size;
            return 0;
        }
        if (countCap >= count) {
            s[b + FREE_COUNT_CAP] = countCap - count;
            delta[0] = 0;
        } else {
            s[b + FREE_COUNT_CAP] = 0;
            delta[0] = count - countCap;
        }
        if (sizeCap >= size) {
            s[b + FREE_SIZE_CAP] = sizeCap - size;
            delta[1] = 0;
        } else {
            s[b + FREE_SIZE_CAP] = 0;
            delta[1] = size - sizeCap;
        }
        return 1;
    }

    static void rebase(long[] s, int b) {
        long base = Math.min(s[b + ALLOC_COUNT], s[b + FREE_COUNT]);
        s[b + ALLOC_COUNT] -= base;
        s[b + FREE_COUNT] -= base;
        base = Math.min(s[b + ALLOC_SIZE], s[b + FREE_SIZE]);
        s[b + ALLOC_SIZE] -= base;
        s[b + FREE_SIZE] -= base;
        for (int i = ALLOC_COUNT_CAP; i <= FREE_SIZE_CAP; i++) {
            s[b + i] = 0;
        }
    }
}
