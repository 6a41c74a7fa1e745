package io.memscope.analysis;

import java.util.List;

/**
 * What a report says about the application's use of memscope's API and about the function profile: scopes
 * (memscope-rs's scope tracker), profiled functions (the Lua memory profiler's), named objects ({@code track}), pools
 * and their leaks. Built by {@link ApiAnalysis} from the recording's SCOPE_*, API_EVENTS, FUNCTIONS and ANOMALIES
 * blocks and its sampled allocations. Every list is empty for a recording without them (older formats, or an
 * application that did not use the API).
 *
 * <p>Three kinds of figures, said per field: <b>exact</b> (counted or measured on every call: entries, times,
 * allocated bytes from the thread's counter), <b>sampled</b> (estimates from the heap samples attributed to the
 * scope or function, Horvitz-Thompson weighted like every site figure), and <b>held</b> (sampled objects still
 * reachable: at the end, after the final full GC; and at the peak, the GC after which the heap held the most).
 *
 * @param scopes          one per scope path, by total time, largest first
 * @param functions       one per profiled function and call site, by total time, largest first
 * @param trackedObjects  named objects, in the order they were tracked
 * @param pools           one per pool, by name
 * @param poolLeaks       leases lost while borrowed, then leases never returned, oldest first
 * @param scopeAnomalies  scopes closed out of order, twice, or on another thread (counts by kind)
 * @param samplesInScopes heap samples attributed to a scope (the rest were taken with no scope open on their thread)
 * @param scopeStacks     the sampled figures of each scope path split by stack (what a flame graph restricted to a
 *                        scope shows), largest sampled bytes first
 */
public record ApiReport(List<ScopeRow> scopes, List<FunctionRow> functions, List<TrackedObjectRow> trackedObjects,
                        List<PoolRow> pools, List<PoolLeakRow> poolLeaks, java.util.Map<String, Long> scopeAnomalies,
                        long samplesInScopes, List<ScopeStackRow> scopeStacks) {

    /** The report of a recording without any of it. */
    public static final ApiReport EMPTY = new ApiReport(List.of(), List.of(), List.of(), List.of(), List.of(),
            java.util.Map.of(), 0, List.of());

    /** @return whether there is anything to show */
    public boolean isEmpty() {
        return scopes.isEmpty() && functions.isEmpty() && trackedObjects.isEmpty() && pools.isEmpty();
    }

    /**
     * One scope path.
     *
     * @param path                     {@code request/parse}; folded paths are {@code (other)}
     * @param name                     its last name
     * @param parentPath               the enclosing path, {@code ""} for a root scope
     * @param depth                    1 for a root scope
     * @param entries                  completed entries (exits), tasks included (exact)
     * @param tasks                    of those, tasks handed to another thread (exact)
     * @param totalMs                  time inside, children included, summed over threads (exact)
     * @param maxMs                    the longest entry (exact)
     * @param selfMs                   time inside and not inside another scope on the same thread (exact)
     * @param allocatedBytes           heap bytes the entering threads allocated inside, children included (exact,
     *                                 ThreadMXBean); entries without a measurement are left out
     * @param selfAllocatedBytes       of those, not inside another scope on the same thread (exact)
     * @param entriesWithoutAllocation entries whose thread had no allocation counter (virtual threads)
     * @param sampledBytes             heap bytes of the samples attributed to the path (innermost scope open on
     *                                 the sample's thread at its time), an estimate; also for virtual threads
     * @param heldAtEndBytes           of those, still held at the end (sampled)
     * @param heldAtPeakBytes          of those, held at the peak GC (sampled)
     */
    public record ScopeRow(String path, String name, String parentPath, int depth, long entries, long tasks,
                           double totalMs, double maxMs, double selfMs, long allocatedBytes, long selfAllocatedBytes,
                           long entriesWithoutAllocation, long sampledBytes, long heldAtEndBytes,
                           long heldAtPeakBytes) {
    }

    /**
     * One profiled function at one call site (overloads together).
     *
     * @param function         {@code pkg.Class.method}
     * @param callSite         the calling frame {@code pkg.Caller.method(File.java:LINE)}, or null when unknown
     * @param calls            outermost calls (exact)
     * @param recursiveCalls   calls made while the function was already on the thread's stack (exact)
     * @param totalMs          outermost calls' time (exact)
     * @param maxMs            the longest outermost call (exact)
     * @param allocatedBytes   heap bytes allocated inside the outermost calls (exact, ThreadMXBean)
     * @param heldAtEndBytes   sampled objects allocated inside calls from this call site still held at the end
     * @param heldAtPeakBytes  the same, held at the peak GC
     */
    public record FunctionRow(String function, String callSite, long calls, long recursiveCalls, double totalMs,
                              double maxMs, long allocatedBytes, long heldAtEndBytes, long heldAtPeakBytes) {
    }

    /**
     * One named object ({@code Memscope.track}).
     *
     * @param name        the name given
     * @param type        its class
     * @param bytes       its shallow size (exact)
     * @param trackedAtMs when it was tracked, ms after the capture started
     * @param collectedAtMs when its collection was seen, ms after the start; -1 while alive at the end
     * @param ageMs       from tracking to collection, or to the end of the capture
     * @param alive       not collected by the end of the capture
     */
    public record TrackedObjectRow(String name, String type, long bytes, double trackedAtMs, double collectedAtMs,
                                   double ageMs, boolean alive) {
    }

    /**
     * One pool.
     *
     * @param pool           its name
     * @param borrows        leases taken (exact)
     * @param returns        leases returned (exact)
     * @param notReturned    leases neither returned nor found lost at the end of the capture
     * @param notReturnedBytes their sizes
     * @param peakOutstanding the most leases out at once
     * @param leaks          leases found unreachable while borrowed
     * @param doubleReturns  leases returned twice
     * @param unknownReturns resources returned that the pool never lent
     */
    public record PoolRow(String pool, long borrows, long returns, long notReturned, long notReturnedBytes,
                          long peakOutstanding, long leaks, long doubleReturns, long unknownReturns) {
    }

    /**
     * A lease that was not returned.
     *
     * @param pool         its pool
     * @param kind         {@code unreachable} (lost while borrowed) or {@code not-returned} (still out at the end)
     * @param leaseId      the lease
     * @param resourceType the borrowed resource's class
     * @param size         the size given at borrow
     * @param borrowedAtMs when, ms after the start
     * @param thread       the borrowing thread
     * @param stack        the borrowing stack, innermost first
     */
    public record PoolLeakRow(String pool, String kind, long leaseId, String resourceType, long size,
                              double borrowedAtMs, String thread, List<String> stack) {
    }

    /**
     * The heap samples of one scope path (the innermost scope open on the sample's thread at its time, as
     * {@link ScopeRow#sampledBytes}) with one stack: the identity of a {@link StackProfile} (frames, site, type).
     * Sampled estimates, whatever the capture mode; over a path's stacks they add up to its {@code sampledBytes},
     * {@code heldAtEndBytes} and {@code heldAtPeakBytes}.
     *
     * @param path            the scope path
     * @param frames          the stack, innermost first (the site's frame alone for events without a stack)
     * @param site            the allocation site's frame
     * @param type            the allocated type
     * @param sampledBytes    bytes allocated (estimate)
     * @param heldAtEndBytes  of those, held at the end
     * @param heldAtPeakBytes of those, held at the peak GC
     */
    public record ScopeStackRow(String path, List<String> frames, String site, String type, long sampledBytes,
                                long heldAtEndBytes, long heldAtPeakBytes) {
    }
}
