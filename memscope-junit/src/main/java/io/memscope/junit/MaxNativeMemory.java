package io.memscope.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails the test when native memory it allocated is still outstanding after it: direct {@code ByteBuffer}s and
 * {@code Unsafe} blocks allocated while the test method ran and not freed after its {@code @AfterEach} methods, a
 * full GC and the Cleaners that GC made due (exact bytes, per site and stack). Needs the memscope agent (with
 * native tracking, its default).
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@ExtendWith(MemscopeExtension.class)
public @interface MaxNativeMemory {
    /** Outstanding native bytes tolerated ({@code 0}, {@code 8MB}). */
    String value();
}
