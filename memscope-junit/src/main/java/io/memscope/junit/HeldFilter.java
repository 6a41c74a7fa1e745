package io.memscope.junit;

import io.memscope.jmx.AgentClient.HeldGroup;
import java.util.List;

/**
 * Decides which held memory a test is blamed for. Two kinds of memory stay reachable after a correct test without
 * being its leak, and are recognized here by the allocation's stack (the agent records one per sampled object):
 *
 * <ul>
 *   <li><b>warm-up</b>: one-time work the JVM does on first use, and keeps for the JVM's life: class
 *       initialization ({@code <clinit>}), class loading and definition, invokedynamic and lambda linkage, method
 *       type interning, reflection data and accessors. A test that is the first to touch a class pays for it;
 *       the next one does not;</li>
 *   <li><b>the JDK's locale data</b>: what the JDK loads per locale on first use (a date formatted, a locale's name
 *       shown): the locale classes' string literals, which each class keeps once its code has run, and the per-locale
 *       providers, kept for the JVM's life; its caches of the bundles, which are soft references (cleared before the
 *       verdict in any case). Recognized by a frame of the JDK's locale machinery ({@code sun.util.locale.provider.},
 *       {@code sun.util.resources.}, {@code sun.text.resources.}, {@code sun.util.cldr.}); an application's own
 *       {@code LocaleServiceProvider} called from there is excused with it;</li>
 *   <li><b>the test framework</b>: objects JUnit, Surefire or Gradle allocate on the test's thread while they run
 *       it (sites in {@code org.junit.}, {@code org.opentest4j.}, {@code org.apache.maven.surefire.},
 *       {@code org.gradle.}).</li>
 * </ul>
 *
 * Caches the code under test fills on first use are not recognizable by their stack: fill them before the test
 * method ({@code @BeforeAll}, {@code @BeforeEach}), or let a test template's first invocation warm them (see
 * {@link MemscopeExtension}).
 */
final class HeldFilter {
    /** Frames (prefixes of {@code pkg.Class.method}) of one-time JVM work done on first use. */
    private static final List<String> WARM_UP = List.of(
            "java.lang.ClassLoader.loadClass", "java.lang.ClassLoader.defineClass", "java.lang.ClassLoader.findClass",
            "jdk.internal.loader.", "java.lang.System$2.defineClass", "java.lang.invoke.MethodHandleNatives.link",
            "java.lang.invoke.MethodHandleNatives.findMethodHandleType", "java.lang.invoke.BootstrapMethodInvoker.",
            "java.lang.invoke.InnerClassLambdaMetafactory.", "java.lang.invoke.LambdaForm", "java.lang.invoke.MethodType.makeImpl",
            "java.lang.invoke.StringConcatFactory.", "java.lang.Class.reflectionData", "java.lang.Class.privateGetDeclared",
            "java.lang.Class.getEnumConstantsShared", "java.lang.reflect.Method.acquireMethodAccessor",
            "java.lang.reflect.Constructor.acquireConstructorAccessor", "java.lang.reflect.Field.acquire",
            "jdk.internal.reflect.", "java.lang.ClassValue.");
    /** Frames of the JDK's locale data machinery. */
    private static final List<String> LOCALE_DATA = List.of(
            "sun.util.locale.provider.", "sun.util.resources.", "sun.text.resources.", "sun.util.cldr.");
    static final List<String> FRAMEWORK = List.of(
            "org.junit.", "org.opentest4j.", "org.apache.maven.surefire.", "org.gradle.", "io.memscope.junit.");

    private final List<String> include;

    HeldFilter(String[] include) {
        this.include = List.of(include);
    }

    /** Why a group is not blamed on the test: null when it is. */
    enum Excuse { WARM_UP, LOCALE_DATA, FRAMEWORK, NOT_INCLUDED }

    /** @return whether a site ({@code pkg.Class.method(File.java:LINE)}) is the test framework's */
    static boolean framework(String site) {
        for (String f : FRAMEWORK) {
            if (site.startsWith(f)) {
                return true;
            }
        }
        return false;
    }

    Excuse excuse(HeldGroup g) {
        for (String frame : g.stack()) {
            if (frame.contains(".<clinit>(")) {
                return Excuse.WARM_UP;
            }
            for (String w : WARM_UP) {
                if (frame.startsWith(w)) {
                    return Excuse.WARM_UP;
                }
            }
        }
        for (String frame : g.stack()) {
            for (String l : LOCALE_DATA) {
                if (frame.startsWith(l)) {
                    return Excuse.LOCALE_DATA;
                }
            }
        }
        if (framework(g.site())) {
            return Excuse.FRAMEWORK;
        }
        if (!include.isEmpty() && include.stream().noneMatch(g.site()::startsWith)) {
            return Excuse.NOT_INCLUDED;
        }
        return null;
    }
}
