package io.memscope.junit;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The limits that apply to one test: its method's annotations, else its class's (enclosing classes of
 * {@code @Nested} tests included), found directly or through meta-annotations.
 *
 * @param maxAllocation  bytes, or -1
 * @param noLeaks        the annotation, or null
 * @param maxRetained    bytes ({@link NoLeaks#maxRetained()}), or -1
 * @param maxNative      bytes, or -1
 * @param budgets        instrument name to byte limit
 */
record Limits(long maxAllocation, NoLeaks noLeaks, long maxRetained, long maxNative, Map<String, Long> budgets) {

    boolean any() {
        return maxAllocation >= 0 || noLeaks != null || maxNative >= 0 || !budgets.isEmpty();
    }

    boolean needsAgent() {
        return noLeaks != null || maxNative >= 0;
    }

    static Limits of(ExtensionContext context) {
        List<AnnotatedElement> scopes = new ArrayList<>();
        context.getTestMethod().ifPresent(scopes::add);
        for (Optional<Class<?>> c = context.getTestClass(); c.isPresent(); c = Optional.ofNullable(c.get().getEnclosingClass())) {
            scopes.add(c.get());
        }
        MaxAllocation alloc = find(scopes, MaxAllocation.class);
        NoLeaks leaks = find(scopes, NoLeaks.class);
        MaxNativeMemory nat = find(scopes, MaxNativeMemory.class);
        Map<String, Long> budgets = new LinkedHashMap<>();
        for (int i = scopes.size() - 1; i >= 0; i--) { // the method's budgets override its class's
            for (MemoryBudget b : AnnotationSupport.findRepeatableAnnotations(scopes.get(i), MemoryBudget.class)) {
                budgets.put(b.instrument(), Sizes.parse(b.bytes(), "@MemoryBudget(instrument = \"" + b.instrument()
                        + "\", bytes)"));
            }
        }
        return new Limits(alloc == null ? -1 : Sizes.parse(alloc.value(), "@MaxAllocation"),
                leaks, leaks == null ? -1 : Sizes.parse(leaks.maxRetained(), "@NoLeaks(maxRetained)"),
                nat == null ? -1 : Sizes.parse(nat.value(), "@MaxNativeMemory"), budgets);
    }

    private static <A extends java.lang.annotation.Annotation> A find(List<AnnotatedElement> scopes, Class<A> type) {
        for (AnnotatedElement e : scopes) {
            Optional<A> a = AnnotationSupport.findAnnotation(e, type);
            if (a.isPresent()) {
                return a.get();
            }
        }
        return null;
    }
}
