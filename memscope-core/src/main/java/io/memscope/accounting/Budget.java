package io.memscope.accounting;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A byte limit on one instrument (over all owners), one user or one host (over all per-owner instruments).
 * Created by {@link MemoryAccounting#setBudget}, {@link MemoryAccounting#setUserBudget} and
 * {@link MemoryAccounting#setHostBudget}.
 *
 * <p>{@link #usedBytes()} is exact: an atomic counter updated by every alloc and free charged to the budgeted
 * instrument, user or host (this is the one shared atomic a budget adds to those calls). It starts from the
 * CURRENT_NUMBER_OF_BYTES_USED of the summary tables when the budget is set. {@code alloc} always charges and
 * may go over the limit (listeners are told); {@link MemoryAccounting#tryAlloc} refuses instead.
 */
public final class Budget {
    /** What a budget limits. */
    public enum Kind { INSTRUMENT, USER, HOST }

    private final MemoryAccounting registry;
    private final Kind kind;
    private final String target;
    private final long limit;
    private final AtomicLong used;
    private final AtomicBoolean over = new AtomicBoolean();
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicLong exceeded = new AtomicLong();
    /** The largest {@link #used} since the budget was set or {@link #resetPeak}; raised by {@link #raisePeak}. */
    private final AtomicLong peak;

    Budget(MemoryAccounting registry, Kind kind, String target, long limit, long initialUsed) {
        this.registry = registry;
        this.kind = kind;
        this.target = target;
        this.limit = limit;
        this.used = new AtomicLong(initialUsed);
        this.peak = new AtomicLong(initialUsed);
    }

    public Kind kind() {
        return kind;
    }

    /** @return the instrument name, user or host this budget limits */
    public String target() {
        return target;
    }

    /** @return the limit in bytes */
    public long limitBytes() {
        return limit;
    }

    /** @return bytes currently charged to the budgeted instrument, user or host */
    public long usedBytes() {
        return used.get();
    }

    /** @return true while used bytes are above the limit (as last reported to listeners) */
    public boolean isExceeded() {
        return over.get();
    }

    /**
     * @return the most bytes charged at once since the budget was set or {@link #resetPeak} was last called: the
     *         exact maximum of {@link #usedBytes()} over that time (every charge compares its result with it)
     */
    public long peakBytes() {
        return peak.get();
    }

    /**
     * Starts a new peak from the bytes used now (a test measuring its own high-water mark, a metrics interval).
     *
     * @return the peak that ended
     */
    public long resetPeak() {
        return peak.getAndSet(used.get());
    }

    /** @return how many times used bytes went above the limit (each crossing listeners were told of) */
    public long exceededCount() {
        return exceeded.get();
    }

    /** @return how many {@code tryAlloc} calls this budget refused */
    public long refusals() {
        return refusals.get();
    }

    void add(long delta) {
        long u = used.addAndGet(delta);
        if (u > peak.get()) {
            raisePeak(u);
        }
        if ((u > limit) != over.get()) {
            reconcile();
        }
    }

    boolean tryReserve(long size) {
        for (;;) {
            long u = used.get();
            if (u + size > limit) {
                refusals.incrementAndGet();
                return false;
            }
            if (used.compareAndSet(u, u + size)) {
                if (u + size > peak.get()) {
                    raisePeak(u + size);
                }
                return true;
            }
        }
    }

    private void raisePeak(long u) {
        for (long p = peak.get(); u > p && !peak.compareAndSet(p, u); p = peak.get()) {
            // another thread raised it meanwhile: compare again
        }
    }

    /** Brings {@link #over} in line with the used bytes, telling listeners of each transition it makes. */
    private void reconcile() {
        for (;;) {
            long u = used.get();
            boolean shouldBeOver = u > limit;
            boolean was = over.get();
            if (was == shouldBeOver) {
                return;
            }
            if (over.compareAndSet(was, shouldBeOver)) {
                if (shouldBeOver) {
                    exceeded.incrementAndGet();
                }
                registry.budgetCrossed(this, shouldBeOver, u);
            }
        }
    }

    @Override
    public String toString() {
        return "Budget[" + kind.name().toLowerCase(java.util.Locale.ROOT) + " " + target + ": " + used.get()
                + " of " + limit + " bytes" + (over.get() ? ", exceeded" : "") + "]";
    }

    /**
     * Called when a {@link Budget}'s used bytes cross its limit upward ({@code exceeded == true}) or come back to
     * the limit or below ({@code exceeded == false}). Events of one budget alternate: exceeded, restored, exceeded...
     *
     * <p>Called on the thread whose alloc or free crossed the limit, after the statistics were updated and with no
     * lock held. A listener that throws is reported to memscope's failure counters ({@code Failures}) and does not disturb the
     * accounting or the other listeners. A listener may call back into the registry.
     */
    @FunctionalInterface
    public interface Listener {
        void crossed(Budget budget, boolean exceeded, long usedBytes);
    }
}
