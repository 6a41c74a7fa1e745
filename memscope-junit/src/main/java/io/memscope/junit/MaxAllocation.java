package io.memscope.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails the test when it allocates more heap than {@link #value()}: bytes allocated by the test method (not its
 * {@code @BeforeEach}/{@code @AfterEach}) on its own thread, plus the threads it starts while no other test runs.
 * Exact, as {@code com.sun.management.ThreadMXBean} counts them (TLAB-precise), with or without the memscope agent;
 * with the agent, the failure message also names the sites that allocated most during the test.
 *
 * <p>On a class: applies to each of its test methods (a method's own annotation wins). Usable as a meta-annotation.
 * See docs/api.md ("JUnit 5") for what is attributed to a test when tests run in parallel.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@ExtendWith(MemscopeExtension.class)
public @interface MaxAllocation {
    /** The limit: {@code 50MB}, {@code 512k}, {@code 1.5GiB}, {@code 1048576} (units are powers of 1024). */
    String value();
}
