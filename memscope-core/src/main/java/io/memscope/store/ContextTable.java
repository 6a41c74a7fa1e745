package io.memscope.store;

import java.util.Arrays;

/**
 * The per-thread dictionary of event contexts: each distinct combination of (thread id, thread name, site,
 * stack, type name, variable name, large previous size) gets a dense index, and a stored event holds only that
 * index (29 bits in {@link Chunk#contexts}). Typical allocation streams repeat few combinations (a site has one
 * type and a handful of stacks), so this keeps an event at 32 bytes while keeping every field.
 *
 * <p>Written by the owning thread only, without locks. Entries are append-only: the owner fills entry
 * {@code n} in the current {@link Entries} arrays (replacing them by larger copies first when full) and then
 * publishes {@code size = n + 1} with a volatile write; readers read {@link #size()} first, then
 * {@link #entries()}, and may use every entry below the size they read.
 *
 * <p>Memory: 40 bytes per entry plus 8 bytes of hash index per entry at worst (load factor 1/2).
 */
final class ContextTable {
    /** Indexes must fit in the 29 low bits of a context word. */
    static final int MAX_ENTRIES = 1 << 29;
    static final int INDEX_MASK = MAX_ENTRIES - 1;
    static final int TYPE_SHIFT = 29;

    /** One immutable-size generation of the entry columns. */
    static final class Entries {
        final long[] threadIds;
        final int[] threadNames;
        final int[] sites;
        final long[] stacks;
        final int[] typeNames;
        final int[] variableNames;
        final long[] previousSizes;

        Entries(int capacity) {
            threadIds = new long[capacity];
            threadNames = new int[capacity];
            sites = new int[capacity];
            stacks = new long[capacity];
            typeNames = new int[capacity];
            variableNames = new int[capacity];
            previousSizes = new long[capacity];
        }

        Entries(Entries from, int capacity) {
            threadIds = Arrays.copyOf(from.threadIds, capacity);
            threadNames = Arrays.copyOf(from.threadNames, capacity);
            sites = Arrays.copyOf(from.sites, capacity);
            stacks = Arrays.copyOf(from.stacks, capacity);
            typeNames = Arrays.copyOf(from.typeNames, capacity);
            variableNames = Arrays.copyOf(from.variableNames, capacity);
            previousSizes = Arrays.copyOf(from.previousSizes, capacity);
        }

        int capacity() {
            return sites.length;
        }
    }

    private volatile Entries entries = new Entries(4);
    private volatile int size;

    // Owner-only: open-addressing hash of entry index + 1 (0 = empty slot).
    private int[] slots = new int[8];

    // Owner-only: the last entry found or added, compared before hashing.
    private int lastIndex = -1;
    private long lastThreadId;
    private int lastThreadName;
    private int lastSite;
    private long lastStack;
    private int lastTypeName;
    private int lastVariableName;
    private long lastPrevious;

    /**
     * Owner thread only. @return the index of this combination, adding it if new; -1 if the table is full
     * ({@value #MAX_ENTRIES} entries)
     */
    int indexOf(long threadId, int threadName, int site, long stack, int typeName, int variableName,
                long previous) {
        if (site == lastSite && stack == lastStack && typeName == lastTypeName && variableName == lastVariableName
                && threadId == lastThreadId && threadName == lastThreadName && previous == lastPrevious
                && lastIndex >= 0) {
            return lastIndex;
        }
        return miss(threadId, threadName, site, stack, typeName, variableName, previous);
    }

    /** Kept out of {@link #indexOf} so that the last-hit check stays small enough to inline. */
    private int miss(long threadId, int threadName, int site, long stack, int typeName, int variableName,
                     long previous) {
        int index = find(threadId, threadName, site, stack, typeName, variableName, previous);
        if (index >= 0) {
            lastIndex = index;
            lastThreadId = threadId;
            lastThreadName = threadName;
            lastSite = site;
            lastStack = stack;
            lastTypeName = typeName;
            lastVariableName = variableName;
            lastPrevious = previous;
        }
        return index;
    }

    private int find(long threadId, int threadName, int site, long stack, int typeName, int variableName,
                     long previous) {
        Entries e = entries;
        int[] s = slots;
        int mask = s.length - 1;
        int h = hash(threadId, threadName, site, stack, typeName, variableName, previous);
        for (int i = h & mask; ; i = (i + 1) & mask) {
            int slot = s[i];
            if (slot == 0) {
                return add(i, threadId, threadName, site, stack, typeName, variableName, previous);
            }
            int k = slot - 1;
            if (e.sites[k] == site && e.stacks[k] == stack && e.typeNames[k] == typeName
                    && e.variableNames[k] == variableName && e.threadIds[k] == threadId
                    && e.threadNames[k] == threadName && e.previousSizes[k] == previous) {
                return k;
            }
        }
    }

    private int add(int slotIndex, long threadId, int threadName, int site, long stack, int typeName,
                    int variableName, long previous) {
        int n = size;
        if (n >= MAX_ENTRIES) {
            return -1;
        }
        Entries e = entries;
        if (n == e.capacity()) {
            e = new Entries(e, Math.min(MAX_ENTRIES, n * 2));
            entries = e;
        }
        e.threadIds[n] = threadId;
        e.threadNames[n] = threadName;
        e.sites[n] = site;
        e.stacks[n] = stack;
        e.typeNames[n] = typeName;
        e.variableNames[n] = variableName;
        e.previousSizes[n] = previous;
        slots[slotIndex] = n + 1;
        size = n + 1; // publish
        if ((n + 1) * 2 > slots.length) {
            rehash(e, n + 1);
        }
        return n;
    }

    private void rehash(Entries e, int count) {
        int[] s = new int[slots.length * 2];
        int mask = s.length - 1;
        for (int k = 0; k < count; k++) {
            int h = hash(e.threadIds[k], e.threadNames[k], e.sites[k], e.stacks[k], e.typeNames[k],
                    e.variableNames[k], e.previousSizes[k]);
            int i = h & mask;
            while (s[i] != 0) {
                i = (i + 1) & mask;
            }
            s[i] = k + 1;
        }
        slots = s;
    }

    private static int hash(long threadId, int threadName, int site, long stack, int typeName, int variableName,
                            long previous) {
        // independent multiplies (they run in parallel), then one final mix
        long h = site * 0x9E3779B97F4A7C15L + stack * 0xC2B2AE3D27D4EB4FL + typeName * 0x165667B19E3779F9L
                + variableName * 0x27D4EB2F165667C5L + threadId * 0x94D049BB133111EBL
                + threadName * 0xBF58476D1CE4E5B9L + previous * 0xFF51AFD7ED558CCDL;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 32));
    }

    /** @return how many entries are published (read this before {@link #entries()}) */
    int size() {
        return size;
    }

    /** @return the current entry columns; valid for every index below a {@link #size()} read before */
    Entries entries() {
        return entries;
    }

    /** @return bytes held by the entry columns and the hash index (payloads, without headers) */
    long payloadBytes() {
        return (long) entries.capacity() * 40 + (long) slots.length * 4;
    }
}
