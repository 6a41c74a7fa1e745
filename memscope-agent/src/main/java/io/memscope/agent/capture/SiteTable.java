package io.memscope.agent.capture;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Allocation sites: dense ids handed out while classes are instrumented (heap) or when a native allocation comes
 * from a new application frame (native). Id 0 means "no site". A site is identified by a stable key (class,
 * method, descriptor and the instruction's ordinal in the method), so retransforming a class keeps its ids.
 *
 * <p>{@link #register} locks; reads from the hooks are lock-free (a volatile array, slots written before the
 * array is published, and sites registered before the instrumented code can run).
 *
 * <p>The JVM's table, not a capture's: site ids are compiled into instrumented bytecode, which may outlive the capture
 * that instrumented it (a method still running its old version after a detach restored its class, a compiled loop
 * that sees the hooks' switch late), and exact mode's per-thread counters are indexed by them; so an id means the
 * same site in every capture of the JVM. Memory: one entry per allocation instruction instrumented and per distinct
 * frame and type that JVM-sampled or native allocations came from, bounded by the application's code, and by
 * {@link #limit(int)} (option {@code maxSites}, default {@value #DEFAULT_LIMIT}) for an application that makes code
 * all the time (generated classes, lambdas): past the limit a new site gets the one site
 * {@value #BEYOND_BOUND} ({@link #beyondBound}) and is counted in {@link #refused()}; its allocations are still
 * counted and sampled, under that name.
 */
public final class SiteTable {
    /** One site. {@code instanceSize} caches the size of the allocated type for {@code new} sites (0 = unknown). */
    public static final class Info {
        public final int id;
        public final String className;
        public final String method;
        public final String file;
        public final int line;
        public final String type;
        /** true when the type is only known from the object (reflective arrays, clones). */
        public final boolean dynamicType;
        /** Plain field: a racing reader at worst measures the size again. */
        long instanceSize;

        Info(int id, String className, String method, String file, int line, String type, boolean dynamicType) {
            this.id = id;
            this.className = className;
            this.method = method;
            this.file = file;
            this.line = line;
            this.type = type;
            this.dynamicType = dynamicType;
        }
    }

    private static final ConcurrentHashMap<String, Integer> BY_KEY = new ConcurrentHashMap<>();
    private static volatile Info[] sites = new Info[1024];
    /**
     * Instance size per site id for {@code new} sites, 0 = not measured yet: the hot path reads this plain array
     * (one load fewer than through {@link Info}). Grown with {@link #sites}; a racing reader of a stale array reads
     * 0 and measures again.
     */
    private static long[] sizes = new long[1024];
    private static int count = 1;
    /** Sites the table holds at most unless told otherwise (option {@code maxSites}). */
    public static final int DEFAULT_LIMIT = 131_072;
    /** The class name of the site every site beyond the bound gets. */
    public static final String BEYOND_BOUND = "(sites beyond the bound)";
    /** Its type: objects of any type. */
    public static final String BEYOND_TYPE = "(any type)";
    private static volatile int limit = DEFAULT_LIMIT;
    /** The id of the site beyond the bound, 0 until the first refusal. */
    private static volatile int beyondId;
    private static volatile long refused;

    private SiteTable() {
    }

    /** @return the id of the site with this key, registering it if new */
    public static int register(String key, String className, String method, String file, int line, String type,
                               boolean dynamicType) {
        Integer id = BY_KEY.get(key);
        if (id != null) {
            return id;
        }
        synchronized (SiteTable.class) {
            id = BY_KEY.get(key);
            if (id != null) {
                return id;
            }
            int next = count;
            if (next >= limit) {
                refused++;
                if (beyondId == 0) {
                    beyondId = append(next, BEYOND_BOUND, "", null, 0, BEYOND_TYPE, true);
                    BY_KEY.put("beyond#", beyondId);
                }
                return beyondId;
            }
            int id2 = append(next, className, method, file, line, type, dynamicType);
            BY_KEY.put(key, id2);
            return id2;
        }
    }

    /** Under the lock: a new site with id {@code next}. */
    private static int append(int next, String className, String method, String file, int line, String type,
                              boolean dynamicType) {
        Info[] a = sites;
        if (next == a.length) {
            // doubling, not past the bound and the site beyond it
            a = Arrays.copyOf(a, (int) Math.max(next + 1L, Math.min(2L * a.length, limit + 1L)));
            sizes = Arrays.copyOf(sizes, a.length);
        }
        a[next] = new Info(next, className, method, file, line, type, dynamicType);
        sites = a;
        count = next + 1;
        return next;
    }

    /**
     * Sets the most site ids the table hands out (including the reserved id 0); ids handed out stay valid. The table
     * is the JVM's: the last capture's setting applies.
     */
    public static void limit(int max) {
        if (max < 2) {
            throw new IllegalArgumentException("maxSites must be at least 2, not " + max);
        }
        limit = max;
    }

    /** @return the most site ids handed out (including the reserved id 0) */
    public static int limit() {
        return limit;
    }

    /** @return new sites refused (given the site beyond the bound) in this JVM */
    public static long refused() {
        return refused;
    }

    /** @return whether {@code id} is the site every site beyond the bound gets */
    public static boolean beyondBound(int id) {
        return id != 0 && id == beyondId;
    }

    /**
     * The site of a JVM-sampled allocation: a stack frame and the object's exact type (JVMTI sampler). The same
     * frame and type always give the same id.
     */
    static int registerFrame(StackWalker.StackFrame f, String type) {
        return registerFrame(f.getClassName(), f.getMethodName(), f.getFileName(), f.getLineNumber(), type);
    }

    /** The site of a JVM-sampled allocation at a frame given by its parts. */
    static int registerFrame(String cls, String method, String file, int line, String type) {
        String key = frameKey(cls, method, line, type);
        Integer id = BY_KEY.get(key);
        return id != null ? id : register(key, cls, method, file, line, type, false);
    }

    /** @return the key of a JVM-sampled allocation's site */
    static String frameKey(String cls, String method, int line, String type) {
        return "frame#" + cls + "#" + method + "#" + line + "#" + type;
    }

    /** @return the site, or null for an unknown id */
    public static Info get(int id) {
        Info[] a = sites;
        return id > 0 && id < a.length ? a[id] : null;
    }

    /** @return one more than the highest id handed out */
    public static int size() {
        synchronized (SiteTable.class) {
            return count;
        }
    }

    /** Size in bytes of the instances a {@code new} site allocates, measured on the first object and cached. */
    static long instanceSize(int site, Object o, ObjectSizes objectSizes) {
        long[] c = sizes;
        long s = site >= 0 && site < c.length ? c[site] : 0;
        return s != 0 ? s : measure(site, o, objectSizes);
    }

    private static long measure(int site, Object o, ObjectSizes objectSizes) {
        long s = objectSizes.measured(o);
        if (beyondBound(site)) {
            return s; // objects of any type: nothing to cache
        }
        Info i = get(site);
        if (i != null) {
            i.instanceSize = s;
            long[] c = sizes;
            if (site < c.length) {
                c[site] = s;
            }
        }
        return s;
    }

    /** Size remembered for a site, or 16 bytes (an object header and one field) if never measured. */
    static long knownSize(int site) {
        Info i = get(site);
        long s = i == null ? 0 : i.instanceSize;
        return s == 0 ? 16 : s;
    }

    /** @return the exact type of an object allocated at the site */
    static String typeOf(int site, Object o) {
        Info i = get(site);
        if (i == null || i.dynamicType) {
            return o == null ? null : o.getClass().getTypeName();
        }
        return i.type;
    }
}
