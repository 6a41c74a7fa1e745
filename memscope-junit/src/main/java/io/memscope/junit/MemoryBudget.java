package io.memscope.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails the test when an accounting instrument of {@code MemoryAccounting.global()} held more than {@link #bytes()}
 * at any moment while the test method ran: the exact high-water mark of the instrument's bytes over all owners
 * (every thread), read from a {@code Budget} on the instrument. Works without the agent. Repeatable, one per
 * instrument.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Repeatable(MemoryBudgets.class)
@ExtendWith(MemscopeExtension.class)
public @interface MemoryBudget {
    /** The instrument's name, {@code memory/<component>/<what>}. */
    String instrument();

    /** The most bytes it may hold at once ({@code 64KB}, {@code 1MB}). */
    String bytes();
}
