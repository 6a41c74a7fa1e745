package io.memscope.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The function profile's patterns as the agent matches classes and the analysis matches recorded frames. */
class FunctionPatternsTest {
    @Test
    void theThreeFormsMatchInternalNames() {
        FunctionPatterns p = FunctionPatterns.parse(List.of("com.acme.Service.handle", "com.acme.web.*",
                "org.lib.**"));
        assertThat(p.isEmpty()).isFalse();
        assertThat(p.matchesInternal("com/acme/Service", "handle")).as("a method, every overload").isTrue();
        assertThat(p.matchesInternal("com/acme/Service", "other")).isFalse();
        assertThat(p.matchesInternal("com/acme/ServiceImpl", "handle")).as("the class exactly").isFalse();
        assertThat(p.matchesInternal("com/acme/web/Controller", "anything")).as("pkg.Class.* is one class, not a package").isFalse();
        assertThat(p.matchesInternal("com/acme/web", "anything")).as("every method of that class").isTrue();
        assertThat(p.matchesInternal("org/lib/a/b/C", "m")).as("a package tree").isTrue();
        assertThat(p.matchesInternal("org/library/C", "m")).as("the tree's prefix is a package").isFalse();
        assertThat(p.coversClass("com/acme/Service")).isTrue();
        assertThat(p.coversClass("org/lib/X")).isTrue();
        assertThat(p.coversClass("com/acme/Other")).isFalse();
    }

    @Test
    void nestedClassesAreNamedWithDollar() {
        FunctionPatterns p = FunctionPatterns.parse(List.of("com.acme.Outer$Inner.run"));
        assertThat(p.matchesInternal("com/acme/Outer$Inner", "run")).isTrue();
        assertThat(p.matchesInternal("com/acme/Outer", "run")).isFalse();
    }

    @Test
    void anOptionValueIsValidated() {
        assertThat(FunctionPatterns.parse(List.of(" ", "")).isEmpty()).as("blank patterns are ignored").isTrue();
        for (String bad : List.of("Service", "com.acme.*.run", "1com.X.y", "com..X.y", "com.acme.**.x", "*")) {
            assertThatThrownBy(() -> FunctionPatterns.parse(List.of(bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + bad + "'")
                    .hasMessageContaining("pkg.Class.method, pkg.Class.* or pkg.**");
        }
        assertThat(FunctionPatterns.NONE.isEmpty()).isTrue();
    }

    @Test
    void recordedFramesGiveEachProfiledFunctionOnceWithItsOutermostCallSite() {
        FunctionPatterns p = FunctionPatterns.ofRecorded("com.acme.Service.handle;com.acme.Repo.*");
        List<String[]> fns = p.functionsOf(List.of(
                "com.acme.Repo.find(Repo.java:10)",
                "com.acme.Service.handle(Service.java:20)",
                "com.acme.Service.handle(Service.java:25)",
                "com.acme.Main.main(Main.java:5)"));
        assertThat(fns).hasSize(2);
        assertThat(fns.get(0)).containsExactly("com.acme.Service.handle", "com.acme.Main.main(Main.java:5)");
        assertThat(fns.get(1)).containsExactly("com.acme.Repo.find", "com.acme.Service.handle(Service.java:20)");
        List<String[]> atRoot = p.functionsOf(List.of("com.acme.Service.handle(Service.java:20)"));
        assertThat(atRoot.get(0)[1]).as("no frame below the root").isNull();
    }

    @Test
    void lambdasAndConstructorsNeverMatchAFrame() {
        FunctionPatterns p = FunctionPatterns.ofRecorded("com.acme.**");
        assertThat(p.functionsOf(List.of("com.acme.A.lambda$run$0(A.java:3)", "com.acme.A.<init>(A.java:1)",
                "com.acme.A.<clinit>(A.java:1)"))).isEmpty();
        assertThat(p.functionsOf(List.of("com.acme.sub.B.work"))).hasSize(1);
        assertThat(p.functionsOf(List.of("com.acmeX.B.work"))).as("another package").isEmpty();
        assertThat(p.functionsOf(List.of("noDot"))).isEmpty();
    }

    @Test
    void aMalformedRecordedPatternIsLeftOutAndNamedNeverHalfMatched() {
        FunctionPatterns p = FunctionPatterns.ofRecorded("com.acme.Service.handle; com.acme.*.run ;;");
        assertThat(p.skipped()).containsExactly("com.acme.*.run");
        assertThat(p.functionsOf(List.of("com.acme.X.run"))).isEmpty();
        assertThat(p.functionsOf(List.of("com.acme.Service.handle"))).hasSize(1);
        assertThat(FunctionPatterns.ofRecorded(null)).isSameAs(FunctionPatterns.NONE);
        assertThat(FunctionPatterns.ofRecorded(null).functionsOf(List.of("a.B.c"))).isEmpty();
    }
}
