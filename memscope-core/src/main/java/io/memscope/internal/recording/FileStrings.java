package io.memscope.internal.recording;

import io.memscope.internal.store.StringTable;

import java.util.Arrays;
import java.util.HashMap;

/**
 * The string table of the file being written: the strings its blocks use, numbered 1, 2, 3, ... in the order they
 * are first used in that file ({@code docs/formats/recording.md} 4.1). Each chunk of a chunked recording has its own
 * ({@link #reset} when a chunk begins), so a chunk defines only the strings its own records use, and the writer holds
 * the strings of one chunk, not of the whole run.
 *
 * <pre>
 *   store's StringTable (ids events carry)        this file's table (ids written)
 *   +----+-----------+                             +----+-----------+
 *   |  7 | "main"    | ──{@link #of}──► byStoreId[7] = 2 ──► |  2 | "main"    |
 *   +----+-----------+                             |  3 | "pkg.A.f(A.java:3)" ◄── {@link #internName} (frames,
 *                                                  +----+-----------+              sites' names: never in the store)
 * </pre>
 *
 * <p>Two ways in: {@link #of} maps an id of the store's table (the events' thread, variable and type names) to this
 * file's id; {@link #intern} and {@link #internName} take a string itself (the side tables: metadata, GC names,
 * sites, frames, scope names). Names that grow with the application ({@link #internName}) are bounded by the store
 * table's {@link StringTable#limit()}: beyond it they get the id of {@link StringTable#BEYOND_BOUND}, counted in
 * {@link #refused()}, so a file that is not chunked stays bounded too. {@link BlockOutput#syncStrings} writes the ids
 * not yet in the file as STRINGS blocks. Not thread-safe: the writer's lock guards it.
 */
final class FileStrings {
    private final StringTable store;
    private final HashMap<String, Integer> ids = new HashMap<>();
    private String[] byId = new String[64];
    private int size = 1;                    // id 0 = null
    /** This file's id of each store id, 0 when not (yet) in this file. */
    private int[] byStoreId = new int[64];
    private int beyondId;
    private long refused;

    FileStrings(StringTable store) {
        this.store = store;
    }

    /** @return this file's id of the store's string {@code storeId}, defining it in this file if new; 0 for 0 */
    int of(int storeId) {
        if (storeId <= 0) {
            return 0;
        }
        if (storeId < byStoreId.length) {
            int id = byStoreId[storeId];
            if (id != 0) {
                return id;
            }
        } else {
            byStoreId = Arrays.copyOf(byStoreId, Math.max(storeId + 1, byStoreId.length * 2));
        }
        int id = intern(store.get(storeId));
        byStoreId[storeId] = id;
        return id;
    }

    /** @return the id of {@code s} in this file, defining it if new (never refused); 0 for null */
    int intern(String s) {
        if (s == null) {
            return 0;
        }
        Integer id = ids.get(s);
        return id != null ? id : add(s);
    }

    /**
     * @return the id of a name that grows with the application (a frame, a class or method name), defining it if new,
     *         or the id of {@link StringTable#BEYOND_BOUND} once this file holds the store table's limit (counted)
     */
    int internName(String s) {
        if (s == null) {
            return 0;
        }
        Integer id = ids.get(s);
        if (id != null) {
            return id;
        }
        if (size >= store.limit()) {
            refused++;
            if (beyondId == 0) {
                beyondId = intern(StringTable.BEYOND_BOUND);
            }
            return beyondId;
        }
        return add(s);
    }

    private int add(String s) {
        if (size == byId.length) {
            byId = Arrays.copyOf(byId, size * 2);
        }
        byId[size] = s;
        ids.put(s, size);
        return size++;
    }

    /** @return the string of this file's id {@code id} (1 .. size-1) */
    String get(int id) {
        return byId[id];
    }

    /** @return ids defined in this file, including the reserved id 0 */
    int size() {
        return size;
    }

    /** @return names refused ({@link #internName}) since this writer began, over every chunk */
    long refused() {
        return refused;
    }

    /** A new file (chunk) begins: it holds no string yet. The memory of the last one is given back. */
    void reset() {
        ids.clear();
        byId = new String[64];
        size = 1;
        beyondId = 0;
        Arrays.fill(byStoreId, 0);
    }
}
