package io.memscope.pool;

/**
 * The figures of one {@link PoolTracker} since it was created.
 *
 * @param pool                 the pool's name
 * @param borrows              resources borrowed
 * @param returns              leases released (each at most once)
 * @param outstanding          leases borrowed and neither released nor leaked now
 * @param outstandingBytes     the sizes of those leases
 * @param peakOutstanding      the most leases outstanding at once
 * @param peakOutstandingBytes the most bytes outstanding at once
 * @param totalLeaseNanos      time from borrow to release, summed over released leases
 * @param maxLeaseNanos        the longest a released lease was held
 * @param leaks                leases whose {@link Lease} object became unreachable while borrowed
 * @param leakedBytes          the sizes of those leases
 * @param doubleReturns        a lease, or the resource of a lease, returned after it was returned already
 * @param unknownReturns       {@link PoolTracker#release(Object)} of a resource this tracker never lent (or whose
 *                             return it no longer remembers)
 */
public record PoolStats(String pool, long borrows, long returns, long outstanding, long outstandingBytes,
                        long peakOutstanding, long peakOutstandingBytes, long totalLeaseNanos, long maxLeaseNanos,
                        long leaks, long leakedBytes, long doubleReturns, long unknownReturns) {
}
