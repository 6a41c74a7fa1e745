package io.memscope.agent.capture;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which samples of the JVM's heap sampler a capture keeps, by the class of their site frame (the first frame outside
 * the JDK, or the top frame with {@code includeJdk}): the agent's {@code include} and {@code exclude} prefixes,
 * which for the bytecode sampler select the classes that are instrumented. A sample whose site class starts with no
 * {@code include} prefix (when there are any) or with an {@code exclude} prefix is dropped, so that totals cover
 * the same code with either sampler.
 *
 * <p>Immutable; each filter has its own generation, so that a decision cached on a resolved stack
 * ({@link StackTable.JvmStack#accepted}) is never taken for a later capture's filter.
 */
final class SiteFilter {
    private static final AtomicInteger GENERATIONS = new AtomicInteger();
    /** Keeps every sample. */
    static final SiteFilter ALL = new SiteFilter(List.of(), List.of());

    final int generation = GENERATIONS.incrementAndGet() & 0x3fffffff;
    private final String[] include;
    private final String[] exclude;

    /** @param include prefixes, binary ({@code com.acme.}) or internal ({@code com/acme/}) form */
    SiteFilter(List<String> include, List<String> exclude) {
        this.include = dotted(include);
        this.exclude = dotted(exclude);
    }

    boolean acceptsAll() {
        return include.length == 0 && exclude.length == 0;
    }

    /** @param className binary name ({@code com.acme.Foo}) */
    boolean accepts(String className) {
        for (String p : exclude) {
            if (className.startsWith(p)) {
                return false;
            }
        }
        if (include.length == 0) {
            return true;
        }
        for (String p : include) {
            if (className.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    private static String[] dotted(List<String> prefixes) {
        String[] a = new String[prefixes.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = prefixes.get(i).replace('/', '.');
        }
        return a;
    }
}
