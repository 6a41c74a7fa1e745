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
 */
public final class StringTable {
    private final ConcurrentHashMap<String, Integer> ids = new ConcurrentHashMap<>();
    private volatile String[] strings = new String[64];
    private volatile int size = 1; // id 0 = null

    /** @return the id of {@code s}, adding it if new; 0 for {@code null} */
    public int intern(String s) {
        if (s == null) {
            return 0;
        }
        Integer id = ids.get(s);
        if (id != null) {
            return id;
        }
        return add(s);
    }

    private synchronized int add(String s) {
        Integer id = ids.get(s);
        if (id != null) {
            return id;
        }
        int next = size;
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

    /** @return the number of ids handed out, including the reserved id 0; the next new string gets this id */
    public int size() {
        return size;
    }
}
