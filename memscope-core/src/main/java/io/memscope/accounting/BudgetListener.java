package io.memscope.accounting;

/**
 * Called when a {@link Budget}'s used bytes cross its limit upward ({@code exceeded == true}) or come back to
 * the limit or below ({@code exceeded == false}). Events of one budget alternate: exceeded, restored, exceeded...
 *
 * <p>Called on the thread whose alloc or free crossed the limit, after the statistics were updated and with no
 * lock held. A listener that throws is reported to memscope's failure counters ({@code Failures}) and does not disturb the
 * accounting or the other listeners. A listener may call back into the registry.
 */
@FunctionalInterface
public interface BudgetListener {
    void crossed(Budget budget, boolean exceeded, long usedBytes);
}
