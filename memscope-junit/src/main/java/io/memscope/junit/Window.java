package io.memscope.junit;

import java.util.Map;

/**
 * What a test's measurements start from, taken just before its method runs; the readings of the test's own thread
 * are taken last, so that the extension's own work is outside the window.
 */
final class Window {
    final long testThread;
    /** Every thread created after this one (unstarted, made at the window's start) has a larger id. */
    final long threadsFrom;
    final Overlaps overlaps;
    final boolean parallelConfigured;
    /** Allocated bytes of every live thread (only for {@link MaxAllocation}), else null. */
    final Map<Long, Long> threadsAtStart;
    final long totalAtStart;
    /** The test thread's allocated bytes just before {@link #totalAtStart} was read. */
    final long currentAtTotal;
    final long[] sitesAtStart;
    final BudgetCheck budgets;
    final long startNanos;
    final long currentAtStart;
    long currentAtEnd = -1;

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is Java 19+
    Window(Limits limits, boolean parallelConfigured, long[] sitesAtStart, BudgetCheck.Installed installed) {
        this.testThread = Thread.currentThread().getId();
        this.parallelConfigured = parallelConfigured;
        this.sitesAtStart = sitesAtStart;
        boolean counting = limits.maxAllocation() >= 0 && ThreadAllocations.supported();
        this.budgets = BudgetCheck.start(installed, limits.budgets());
        this.threadsAtStart = counting ? ThreadAllocations.all() : null;
        this.currentAtTotal = counting ? ThreadAllocations.current() : -1;
        this.totalAtStart = counting ? ThreadAllocations.total() : -1;
        this.overlaps = Overlaps.open();
        this.threadsFrom = new Thread().getId();
        this.startNanos = System.nanoTime();
        this.currentAtStart = counting ? ThreadAllocations.current() : -1;
    }

    /**
     * @return whether only the test's own thread can be attributed to it: other tests ran meanwhile, or parallel
     *         execution is on (tests without memscope annotations run unseen then)
     */
    boolean ownThreadOnly() {
        return parallelConfigured || overlaps.overlapped();
    }
}
