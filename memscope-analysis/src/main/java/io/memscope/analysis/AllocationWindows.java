package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.recording.EventView;

import java.util.HashMap;
import java.util.Map;

/**
 * First and last heap or native ALLOCATE per site id, optionally only those inside a time range: the sites'
 * allocation windows, which the leak rules place their reference points in ({@link LeakRules}). Memory: two longs
 * per site; the usual small, dense site ids (the agent's) without boxing per event.
 */
final class AllocationWindows {
    private final Map<Integer, long[]> bySite = new HashMap<>();
    private long[] small = new long[0];
    private final long from;
    private final long to;
    /** The latest allocation counted, {@link Long#MIN_VALUE} without one. */
    private long lastCounted = Long.MIN_VALUE;

    /** The windows of every allocation. */
    AllocationWindows() {
        this(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** The windows of the allocations from {@code from} to {@code to} (nanoseconds, inclusive). */
    AllocationWindows(long from, long to) {
        this.from = from;
        this.to = to;
    }

    /** @return the start of the range counted (nanoseconds, inclusive) */
    long from() {
        return from;
    }

    /** @return the end of the range counted (nanoseconds, inclusive) */
    long to() {
        return to;
    }

    /** Counts one event (only ALLOCATEs inside the range count). */
    void add(EventView e) {
        add(e.type(), e.timestampNanos(), e.siteId());
    }

    /** Counts one event (only ALLOCATEs inside the range count). */
    void add(MemoryEventType type, long t, int siteId) {
        if (type != MemoryEventType.ALLOCATE || t < from || t > to) {
            return;
        }
        extend(siteId, t, t);
        lastCounted = Math.max(lastCounted, t);
    }

    /** Widens the site's window to cover {@code first} .. {@code last}. */
    private void extend(int siteId, long first, long last) {
        if (siteId >= 0 && siteId < 1 << 16) {
            int i = siteId * 2;
            if (i >= small.length) {
                int n = Math.max(i + 2, small.length * 2);
                int old = small.length;
                small = java.util.Arrays.copyOf(small, n);
                for (int j = old; j < n; j += 2) {
                    small[j] = Long.MAX_VALUE;
                    small[j + 1] = Long.MIN_VALUE;
                }
            }
            small[i] = Math.min(small[i], first);
            small[i + 1] = Math.max(small[i + 1], last);
            return;
        }
        long[] w = bySite.computeIfAbsent(siteId, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        w[0] = Math.min(w[0], first);
        w[1] = Math.max(w[1], last);
    }

    /**
     * Adds the windows of {@code other}, counted over the same range from other events: the result is what counting
     * both sets of events here would have given, whatever their order.
     */
    void merge(AllocationWindows other) {
        if (other.from != from || other.to != to) {
            throw new IllegalArgumentException("windows of another range");
        }
        for (int i = 0; i < other.small.length; i += 2) {
            if (other.small[i] != Long.MAX_VALUE) {
                extend(i / 2, other.small[i], other.small[i + 1]);
            }
        }
        for (Map.Entry<Integer, long[]> e : other.bySite.entrySet()) {
            extend(e.getKey(), e.getValue()[0], e.getValue()[1]);
        }
        lastCounted = Math.max(lastCounted, other.lastCounted);
    }

    /** @return {first, last} allocation of the site, or null if it allocated nothing (in the range) */
    long[] window(int siteId) {
        if (siteId >= 0 && siteId < 1 << 16) {
            int i = siteId * 2;
            return i < small.length && small[i] != Long.MAX_VALUE ? new long[] {small[i], small[i + 1]} : null;
        }
        return bySite.get(siteId);
    }

    /**
     * @return whether these are the windows of the range {@code from} to {@code to}: counted from the same start,
     *         and no allocation counted after {@code to} (so a range that reached further counted the same)
     */
    boolean covers(long from, long to) {
        return this.from == from && this.to >= to && lastCounted <= to;
    }
}
