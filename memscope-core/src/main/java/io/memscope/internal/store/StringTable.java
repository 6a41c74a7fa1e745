package io.memscope.internal.store;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Interns strings (thread names, variable names, type names, frames) to dense int ids, so that stored events
 * hold no {@code String}. Id 0 is reserved for "no string" ({@code null}).
 *
 * <p>{@link #intern(String)} is lock-free for strings already interned (one hash lookup) and takes a lock only to
 * add a new string. {@link #get(int)} is lock-free. Ids are never reused or removed, so an id read from any
 * event stays valid for the life of the table; {@link #size()} only grows.
 *
 * <p>Names that grow with the application (thread, type, variable names, frames, sites' parts) are interned with
 * {@link #internName}, which is bounded when told ({@link #limit(int)}; unbounded by default): once the table holds
 * {@link #limit()} ids, a new name gets the id of {@value #BEYOND_BOUND} instead, counted in {@link #refused()}, so
 * names are lost visibly, never silently, and the table stops growing. {@link #intern} is never refused: the
 * recording's own vocabulary (metadata, collector names and causes, ...), a few hundred strings, must stay exact.
 */
public final class StringTable {
    /** The name every string beyond the bound gets. */
    public static final String BEYOND_BOUND = "(names beyond the bound)";
    private final ConcurrentHashMap<String, Integer> ids = new ConcurrentHashMap<>();
    private volatile String[] strings = new String[64];
    private volatile int size = 1; // id 0 = null
    private volatile int limit = Integer.MAX_VALUE;
    private volatile long refused;
    /** The id of {@link #BEYOND_BOUND}, 0 until the first refusal. */
    private int beyondId;

    /** @return the id of {@code s}, adding it if new (never refused); 0 for {@code null} */
    public int intern(String s) {
        if (s == null) {
            return 0;
        }
        Integer id = ids.get(s);
        if (id != null) {
            return id;
        }
        return add(s, false);
    }

    /**
     * @return the id of a name that grows with the application, adding it if new, or the id of
     *         {@value #BEYOND_BOUND} when the table is full (counted); 0 for {@code null}
     */
    public int internName(String s) {
        if (s == null) {
            return 0;
        }
        Integer id = ids.get(s);
        if (id != null) {
            return id;
        }
        return add(s, true);
    }

    private synchronized int add(String s, boolean bounded) {
        Integer id = ids.get(s);
        if (id != null) {
            return id;
        }
        int next = size;
        if (bounded && next >= limit) {
            refused++;
            if (beyondId == 0) {
                beyondId = append(BEYOND_BOUND, next);
            }
            return beyondId;
        }
        return append(s, next);
    }

    private int append(String s, int next) {
        String[] a = strings;
        if (next == a.length) {
            a = Arrays.copyOf(a, a.length * 2);
        }
        a[next] = s;
        strings = a;       // publish the array before the size that makes the slot visible
        size = next + 1;
        ids.put(s, next);
        return next;
    }

    /** @return the string with this id; null for id 0 */
    public String get(int id) {
        if (id == 0) {
            return null;
        }
        int n = size;
        if (id < 0 || id >= n) {
            throw new IllegalArgumentException("unknown string id " + id + " (table has " + n + ")");
        }
        return strings[id];
    }

    /**
     * Sets the most ids this table hands out (including the reserved id 0); strings past it are refused as the class
     * comment says. Ids already handed out stay valid.
     *
     * @param max at least 2
     */
    public void limit(int max) {
        if (max < 2) {
            throw new IllegalArgumentException("a string table holds at least one string, not " + max);
        }
        limit = max;
    }

    /** @return the most ids this table hands out (including the reserved id 0) */
    public int limit() {
        return limit;
    }

    /** @return how many times a new string was refused (given {@link #BEYOND_BOUND}'s id) since the table was made */
    public long refused() {
        return refused;
    }

    /** @return the number of ids handed out, including the reserved id 0; the next new string gets this id */
    public int size() {
        return size;
    }
}
