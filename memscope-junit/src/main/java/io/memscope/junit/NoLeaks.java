package io.memscope.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails the test when objects it allocated are still held after it: heap objects sampled by the memscope agent
 * while the test method ran, still reachable after its {@code @AfterEach} methods and a full GC, above
 * {@link #maxRetained()}. The message names the sites and stacks that hold them. Needs the agent in the test JVM
 * ({@code -javaagent:memscope-agent.jar} in Surefire's {@code argLine}); without it the test fails with a message
 * saying how to add it (or is aborted with {@code -Dmemscope.junit.agentMissing=abort}).
 *
 * <p>Not counted as leaks: memory allocated before the test method started (fill caches in {@code @BeforeAll} or
 * {@code @BeforeEach}); one-time work of the JVM done on first use (class initialization and loading, lambda and
 * invokedynamic linkage, reflection caches: recognized by their stacks); the test framework's own allocations;
 * under {@code @RepeatedTest} and {@code @ParameterizedTest}, what the first invocation leaves behind (the warm-up of
 * the code under test; when invocations run concurrently, the others wait for it to finish); objects only softly
 * reachable (caches the JVM may drop, such as the JDK's locale data), unless {@link #countSoftlyReachable()}. Held
 * bytes are estimates from samples: see docs/api.md for the precision.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@ExtendWith(MemscopeExtension.class)
public @interface NoLeaks {
    /**
     * Held bytes tolerated ({@code 0}, {@code 256KB}, {@code 1MB}). The default, 1 MiB, is two of the agent's default
     * sampling intervals: a single sampled small object (which stands for about one interval of bytes) never fails a
     * test. Lower it together with the agent's {@code interval} to catch smaller leaks.
     */
    String maxRetained() default "1MB";

    /** Judge only sites whose class starts with one of these prefixes ({@code "com.acme."}); empty = every site. */
    String[] include() default {};

    /**
     * Count objects reachable only through soft references as held (default false). By default the full GC that
     * judges the test also clears the soft references nobody used since it started, as the JVM does when memory runs
     * short: a soft-reference cache the test filled (the JDK's locale data, a library's cache) is memory the JVM gives
     * back on demand, not a leak. Set it to judge such caches too.
     */
    boolean countSoftlyReachable() default false;
}
