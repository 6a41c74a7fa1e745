package io.memscope.agent.instrument;

import java.util.List;

/**
 * Which classes get allocation instrumentation. Names are internal ({@code com/acme/Foo}).
 *
 * <ul>
 *   <li>never: memscope itself (except its workloads {@link #MEMSCOPE_WORKLOADS}), hidden and lambda classes, and JDK classes
 *       outside {@link #JDK_ALLOWED} or inside {@link #JDK_NEVER};</li>
 *   <li>JDK classes (bootstrap or platform loader) only with {@code includeJdk};</li>
 *   <li>application classes: all, or only those matching {@code include}, minus {@code exclude}.</li>
 * </ul>
 */
final class ClassFilter {
    /** JDK packages and classes instrumented with {@code includeJdk}. */
    static final List<String> JDK_ALLOWED = List.of("java/util/", "java/io/", "java/nio/", "java/text/",
            "java/time/", "java/math/", "java/net/", "java/lang/AbstractStringBuilder", "java/lang/StringBuilder",
            "java/lang/StringBuffer");
    /** JDK packages never instrumented: what memscope itself, class loading and the JVM's plumbing run on. */
    static final List<String> JDK_NEVER = List.of("java/util/concurrent/", "java/util/jar/", "java/util/zip/",
            "java/util/logging/", "java/nio/DirectByteBuffer", "java/nio/Bits", "java/util/ImmutableCollections",
            "java/io/ObjectStreamClass", "java/util/WeakHashMap", "java/util/Arrays");

    /** memscope's own code is never instrumented, except its workloads (the demo and the benchmarks). */
    /**
     * memscope's own packages. Built at run time: the agent jar's shading relocates string constants that start
     * with memscope's package (its copy of core becomes io.memscope.agent.shaded.memscope), and these must not move.
     */
    static final String MEMSCOPE = String.join("/", "io", "memscope", "");
    static final List<String> MEMSCOPE_WORKLOADS = List.of(MEMSCOPE + "demo/", MEMSCOPE + "bench/");

    private final List<String> include;
    private final List<String> exclude;
    private final boolean includeJdk;

    ClassFilter(List<String> include, List<String> exclude, boolean includeJdk) {
        this.include = include;
        this.exclude = exclude;
        this.includeJdk = includeJdk;
    }

    boolean accepts(String className, boolean jdkLoader) {
        if (className == null || className.contains("$$Lambda") || className.contains("LambdaForm$")
                || className.startsWith(MEMSCOPE) && !startsWithAny(className, MEMSCOPE_WORKLOADS)) {
            return false;
        }
        for (String p : exclude) {
            if (className.startsWith(p)) {
                return false;
            }
        }
        if (jdkLoader || isJdkName(className)) {
            if (!includeJdk || !startsWithAny(className, JDK_ALLOWED) || startsWithAny(className, JDK_NEVER)) {
                return false;
            }
            return include.isEmpty() || startsWithAny(className, include);
        }
        return include.isEmpty() || startsWithAny(className, include);
    }

    static boolean isJdkName(String n) {
        return n.startsWith("java/") || n.startsWith("javax/") || n.startsWith("jdk/") || n.startsWith("sun/")
                || n.startsWith("com/sun/");
    }

    private static boolean startsWithAny(String s, List<String> prefixes) {
        for (String p : prefixes) {
            if (s.startsWith(p)) {
                return true;
            }
        }
        return false;
    }
}
