package io.memscope.internal.store;

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
 * <p>Memory: 40 bytes per entry in the columns, 48 bytes per slot of the hash index (between 2 and 4 slots per
 * entry once past the initial 8 slots): 136 - 232 bytes per distinct context.
 */
final class ContextTable {
    /** Indexes must fit in the 29 low bits of a context word. */
    static final int MAX_ENTRIES = 1 << 29;
    static final int INDEX_MASK = MAX_ENTRIES - 1;
    /** Entries one thread's table holds at most: its hash index (6 longs a slot, at most half full) is one array. */
    static final int MAX_CONTEXTS = 1 << 27;
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

    /**
     * Owner-only: the open-addressing hash index (linear probing, at most half full), holding each entry's key
     * next to its index so that a lookup that finds its entry reads one or two cache lines of one array instead
     * of the seven entry columns. Slot {@code j} occupies {@code keys[j * STRIDE .. j * STRIDE + 5]}:
     * <pre>
     *   +0  site (low 32 bits) | typeName (high 32 bits)
     *   +1  stack
     *   +2  variableName (low 32 bits) | threadName (high 32 bits)
     *   +3  threadId
     *   +4  previous
     *   +5  entry index + 1 (0 = empty slot)
     * </pre>
     */
    private long[] keys = new long[8 * STRIDE];
    private int mask = 7;
    static final int STRIDE = 6;

    /**
     * Owner thread only. @return the index of this combination, adding it if new; -1 if the table is full
     * ({@value #MAX_CONTEXTS} entries)
     */
    int indexOf(long threadId, int threadName, int site, long stack, int typeName, int variableName,
                long previous) {
        long k0 = Integer.toUnsignedLong(site) | (long) typeName << 32;
        long k2 = Integer.toUnsignedLong(variableName) | (long) threadName << 32;
        long[] t = keys;
        int m = mask;
        for (int i = hash(k0, stack, k2, threadId, previous) & m; ; i = (i + 1) & m) {
            int at = i * STRIDE;
            long index = t[at + 5];
            if (index == 0) {
                return add(i, threadId, threadName, site, stack, typeName, variableName, previous);
            }
            if (t[at] == k0 && t[at + 1] == stack && t[at + 2] == k2 && t[at + 3] == threadId
                    && t[at + 4] == previous) {
                return (int) index - 1;
            }
        }
    }

    /** Kept out of {@link #indexOf} so that the lookup stays small enough to inline. */
    private int add(int slot, long threadId, int threadName, int site, long stack, int typeName,
                    int variableName, long previous) {
        int n = size;
        if (n >= MAX_CONTEXTS) {
            return -1;
        }
        Entries e = entries;
        if (n == e.capacity()) {
            e = new Entries(e, Math.min(MAX_CONTEXTS, n * 2));
            entries = e;
        }
        e.threadIds[n] = threadId;
        e.threadNames[n] = threadName;
        e.sites[n] = site;
        e.stacks[n] = stack;
        e.typeNames[n] = typeName;
        e.variableNames[n] = variableName;
        e.previousSizes[n] = previous;
        put(keys, slot * STRIDE, Integer.toUnsignedLong(site) | (long) typeName << 32, stack,
                Integer.toUnsignedLong(variableName) | (long) threadName << 32, threadId, previous, n + 1L);
        size = n + 1; // publish
        if ((n + 1) * 2 > mask + 1) {
            rehash();
        }
        return n;
    }

    private static void put(long[] t, int at, long k0, long stack, long k2, long threadId, long previous,
                            long indexPlusOne) {
        t[at] = k0;
        t[at + 1] = stack;
        t[at + 2] = k2;
        t[at + 3] = threadId;
        t[at + 4] = previous;
        t[at + 5] = indexPlusOne;
    }

    private void rehash() {
        long[] old = keys;
        int slots = (mask + 1) * 2;
        long[] t = new long[slots * STRIDE];
        int m = slots - 1;
        for (int from = 0; from < old.length; from += STRIDE) {
            if (old[from + 5] == 0) {
                continue;
            }
            int i = hash(old[from], old[from + 1], old[from + 2], old[from + 3], old[from + 4]) & m;
            while (t[i * STRIDE + 5] != 0) {
                i = (i + 1) & m;
            }
            System.arraycopy(old, from, t, i * STRIDE, STRIDE);
        }
        keys = t;
        mask = m;
    }

    private static int hash(long k0, long stack, long k2, long threadId, long previous) {
        // independent multiplies (they run in parallel), then one final mix
        long h = k0 * 0x9E3779B97F4A7C15L + stack * 0xC2B2AE3D27D4EB4FL + k2 * 0x165667B19E3779F9L
                + threadId * 0x94D049BB133111EBL + previous * 0xFF51AFD7ED558CCDL;
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
        return (long) entries.capacity() * 40 + (long) keys.length * 8;
    }
}
