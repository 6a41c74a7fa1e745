package io.memscope.agent.capture;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The profiled functions and the call sites that call them, by dense id, registered when classes are instrumented
 * (the function profile, {@code functions=...}). Ids are for the JVM's lifetime, as are {@link SiteTable}'s: they are
 * compiled into instrumented bytecode, which may outlive the capture that instrumented it. Registration locks,
 * lookups from the hooks read a volatile array (entries are written before the array is published, and registered
 * before the code that uses their id can run).
 */
public final class FunctionTable {
    /** A profiled method. {@code key} is name + descriptor: what a call site's target must equal. */
    static final class Function {
        final int id;
        final String name;          // pkg.Class.method
        final String descriptor;
        final String key;

        Function(int id, String className, String method, String descriptor) {
            this.id = id;
            this.name = className + "." + method;
            this.descriptor = descriptor;
            this.key = method + descriptor;
        }
    }

    /** A place that calls a profiled function, {@code pkg.Caller.method(File.java:LINE)}. */
    static final class CallSite {
        final int id;
        final String frame;
        /** The called method's name + descriptor; null for a call site found by walking the stack. */
        final String target;
        /** The last function whose key matched {@link #target} (a racy cache: an int is never torn). */
        int matched;

        /** @return whether this call site calls {@code fn}'s method (name and descriptor) */
        boolean calls(Function fn) {
            if (matched == fn.id) {
                return true;
            }
            if (target != null && target.equals(fn.key)) {
                matched = fn.id;
                return true;
            }
            return false;
        }

        CallSite(int id, String frame, String target) {
            this.id = id;
            this.frame = frame;
            this.target = target;
        }
    }

    private static final Object LOCK = new Object();
    private static final Map<String, Integer> FUNCTION_IDS = new HashMap<>();
    private static final Map<String, Integer> SITE_IDS = new HashMap<>();
    private static volatile Function[] functions = new Function[64];
    private static volatile CallSite[] sites = new CallSite[64];
    private static int functionCount = 1;
    private static int siteCount = 1;

    private FunctionTable() {
    }

    /** @return the id of this profiled method, registering it if new */
    public static int function(String className, String method, String descriptor) {
        String k = className + "." + method + descriptor;
        synchronized (LOCK) {
            Integer id = FUNCTION_IDS.get(k);
            if (id != null) {
                return id;
            }
            int n = functionCount++;
            Function[] a = functions;
            if (n >= a.length) {
                a = Arrays.copyOf(a, a.length * 2);
            }
            a[n] = new Function(n, className, method, descriptor);
            functions = a;
            FUNCTION_IDS.put(k, n);
            return n;
        }
    }

    /**
     * @param frame  the call site as a frame, {@code pkg.Caller.method(File.java:LINE)}
     * @param target the called method's name + descriptor, or null when found by walking the stack
     * @return the id of this call site, registering it if new
     */
    public static int callSite(String frame, String target) {
        String k = target == null ? frame : frame + "->" + target;
        synchronized (LOCK) {
            Integer id = SITE_IDS.get(k);
            if (id != null) {
                return id;
            }
            int n = siteCount++;
            CallSite[] a = sites;
            if (n >= a.length) {
                a = Arrays.copyOf(a, a.length * 2);
            }
            a[n] = new CallSite(n, frame, target);
            sites = a;
            SITE_IDS.put(k, n);
            return n;
        }
    }

    static Function function(int id) {
        Function[] a = functions;
        return id > 0 && id < a.length ? a[id] : null;
    }

    static CallSite site(int id) {
        CallSite[] a = sites;
        return id > 0 && id < a.length ? a[id] : null;
    }
}
