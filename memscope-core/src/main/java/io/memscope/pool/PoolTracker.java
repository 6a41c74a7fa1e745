package io.memscope.pool;

import io.memscope.internal.error.Failures;
import io.memscope.internal.link.AgentLink;
import io.memscope.internal.scope.OwnAllocations;

import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Borrowing and returning of pooled resources (database connections, buffers of a buffer pool, objects of an object
 * pool), with leak detection: {@code Lease l = pool.borrow(resource, size); ... l.release();}.
 *
 * <ul>
 * <li>A lease whose {@link Lease} object becomes unreachable while borrowed is a leak
 *     ({@link Leak.Kind#UNREACHABLE}), found after the garbage collector cleared it, as Netty's
 *     ResourceLeakDetector finds leaked buffers. A lease still out is listed by {@link #outstanding()}; with the
 *     agent, the report names every lease never returned by the end of the run. Both come with the borrowing
 *     thread and stack.</li>
 * <li>A lease released twice, or a resource returned ({@link #release(Object)}) after its lease was returned
 *     already, is a double return; a resource this tracker never lent is an unknown return. Both are counted
 *     ({@link Stats}) and, with the agent, recorded as anomalies; never thrown.</li>
 * </ul>
 *
 * <p>Cost: a borrow takes the stack (a {@link StackWalker} walk of at most {@link #stackDepth()} frames, about a
 * microsecond or two; {@link #stackDepth(int)} 0 turns it off), two small objects and a weak reference, and a
 * short lock of this tracker; a release a lock. Collections are noticed without a thread of its own: each call
 * of this tracker first takes the leases the collector cleared. With the agent, borrows and returns become BORROW
 * and RETURN events of the recording (the agent takes its own stack) and leaks anomalies.
 */
public final class PoolTracker {
    /** The most pools {@link #of} registers. */
    public static final int MAX_POOLS = 1024;
    /** Leaks kept for {@link #leaks()}; more are counted. */
    public static final int KEPT_LEAKS = 1000;
    /** Returned leases remembered to tell a double return from an unknown one. */
    static final int RECENT_RETURNS = 256;
    /**
     * Lease ids, unique in the process: the agent matches a RETURN to its BORROW by id across every pool of every
     * registry in the recording, so the counter is shared on purpose (it holds no pool's state).
     */
    private static final AtomicLong LEASE_IDS = new AtomicLong();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private final String name;
    private final boolean linked;
    private final ReferenceQueue<Lease> queue = new ReferenceQueue<>();
    private volatile int stackDepth = 32;
    /** Outstanding records by resource identity hash, chained through {@link LeaseRecord#nextSameHash}. */
    private final Map<Integer, LeaseRecord> out = new HashMap<>();
    private final LeaseRecord[] recent = new LeaseRecord[RECENT_RETURNS];
    private int recentNext;
    private final List<Leak> leaks = new ArrayList<>();
    private long borrows;
    private long returns;
    private long outstanding;
    private long outstandingBytes;
    private long peakOutstanding;
    private long peakOutstandingBytes;
    private long totalLeaseNanos;
    private long maxLeaseNanos;
    private long leakCount;
    private long leakedBytes;
    private long doubleReturns;
    private long unknownReturns;

    PoolTracker(String name, boolean linked) {
        this.name = name;
        this.linked = linked;
    }

    /**
     * The process-wide tracker of the pool named {@code name}, created on first use (the same name gives the same
     * tracker). With the agent, its borrows and returns are recorded.
     *
     * @throws io.memscope.error.MemscopeException (configuration) for a null, empty or longer than 200 characters name, or when
     *                           {@value #MAX_POOLS} pools are registered already
     */
    public static PoolTracker of(String name) {
        return PoolRegistry.process().of(name);
    }

    /** A tracker of its own (not registered, not connected to the agent), for tests. */
    public static PoolTracker create(String name) {
        validate(name);
        return new PoolTracker(name, false);
    }

    /** @return every pool registered with {@link #of}, by name */
    public static List<PoolTracker> all() {
        return PoolRegistry.process().all();
    }

    private static void validate(String name) {
        PoolText.validate(name);
    }

    /** @return the pool's name */
    public String name() {
        return name;
    }

    /** @return frames kept of a borrowing stack (0 = none) */
    public int stackDepth() {
        return stackDepth;
    }

    /** Sets how many frames of each borrowing stack are kept (0 = no stacks, a cheaper borrow). */
    public PoolTracker stackDepth(int frames) {
        stackDepth = Math.max(0, Math.min(frames, 1024));
        return this;
    }

    /**
     * Records that {@code resource} was taken out of the pool by the current thread.
     *
     * @param resource the resource (held by the lease, only weakly by the tracker); may be null
     * @param size     its size in bytes, or 0 when it has none; a negative size counts as 0
     * @return the lease to {@link Lease#release() release} when the resource goes back
     */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    public Lease borrow(Object resource, long size) {
        long token = OwnAllocations.begin();
        try {
            long now = System.nanoTime();
            poll(now);
            long s = Math.max(0, size);
            long id = LEASE_IDS.incrementAndGet();
            List<String> stack = stack(stackDepth);
            Thread t = Thread.currentThread();
            Lease lease = new Lease(resource);
            LeaseRecord r = new LeaseRecord(lease, queue, this, id, s, now, t.getId(), t.getName(), resource, stack);
            lease.record = r;
            synchronized (this) {
                borrows++;
                outstanding++;
                outstandingBytes += s;
                peakOutstanding = Math.max(peakOutstanding, outstanding);
                peakOutstandingBytes = Math.max(peakOutstandingBytes, outstandingBytes);
                r.nextSameHash = out.get(r.resourceHash);
                out.put(r.resourceHash, r);
            }
            if (linked && AgentLink.active()) {
                AgentLink.borrow(resource, name, id, s);
            }
            return lease;
        } catch (Throwable t) {
            Failures.report(PoolText.BORROW, t);
            Lease failed = new Lease(resource);
            failed.record = new LeaseRecord(null, null, this, 0, 0, 0, 0, null, resource, List.of());
            return failed;
        } finally {
            OwnAllocations.end(token);
        }
    }

    /**
     * Records that {@code resource} went back to the pool: releases its outstanding lease. A resource whose lease
     * was released already counts as a double return, one never lent as an unknown return. Never throws.
     *
     * @return whether an outstanding lease was released
     */
    public boolean release(Object resource) {
        long token = OwnAllocations.begin();
        try {
            long now = System.nanoTime();
            poll(now);
            LeaseRecord found;
            boolean twice = false;
            synchronized (this) {
                found = null;
                for (LeaseRecord r = out.get(System.identityHashCode(resource)); r != null; r = r.nextSameHash) {
                    if (r.holds(resource)) {
                        found = r;
                        break;
                    }
                }
                if (found == null) {
                    for (LeaseRecord r : recent) {
                        if (r != null && r.holds(resource)) {
                            twice = true;
                            break;
                        }
                    }
                    if (twice) {
                        doubleReturns++;
                    } else {
                        unknownReturns++;
                    }
                } else {
                    returnLocked(found, now);
                }
            }
            if (found == null) {
                anomaly(twice ? PoolText.DOUBLE_RETURN : PoolText.UNKNOWN_RETURN, 0, 0, PoolText.typeOf(resource));
                return false;
            }
            if (linked && AgentLink.active()) {
                AgentLink.returned(name, found.id, found.size);
            }
            return true;
        } catch (Throwable t) {
            Failures.report(PoolText.RELEASE, t);
            return false;
        } finally {
            OwnAllocations.end(token);
        }
    }

    /** {@link Lease#release()}. */
    void release(Lease lease) {
        long token = OwnAllocations.begin();
        try {
            LeaseRecord r = lease.record;
            if (r.id == 0) {
                return; // the lease of a failed borrow
            }
            long now = System.nanoTime();
            poll(now);
            boolean twice;
            synchronized (this) {
                twice = r.state != LeaseRecord.BORROWED;
                if (twice) {
                    doubleReturns++;
                } else {
                    returnLocked(r, now);
                }
            }
            if (twice) {
                anomaly(PoolText.DOUBLE_RETURN, r.id, r.size, r.resourceType);
            } else if (linked && AgentLink.active()) {
                AgentLink.returned(name, r.id, r.size);
            }
        } catch (Throwable t) {
            Failures.report(PoolText.RELEASE, t);
        } finally {
            OwnAllocations.end(token);
        }
    }

    private void returnLocked(LeaseRecord r, long now) {
        unlink(r);
        r.state = LeaseRecord.RELEASED;
        r.releaseNanos = now;
        r.clear(); // released: its lease may go quietly
        returns++;
        outstanding--;
        outstandingBytes -= r.size;
        long held = now - r.borrowNanos;
        totalLeaseNanos += held;
        maxLeaseNanos = Math.max(maxLeaseNanos, held);
        recent[recentNext] = r;
        recentNext = (recentNext + 1) % RECENT_RETURNS;
    }

    private void unlink(LeaseRecord r) {
        LeaseRecord head = out.get(r.resourceHash);
        if (head == r) {
            if (r.nextSameHash == null) {
                out.remove(r.resourceHash);
            } else {
                out.put(r.resourceHash, r.nextSameHash);
            }
        } else {
            for (LeaseRecord p = head; p != null; p = p.nextSameHash) {
                if (p.nextSameHash == r) {
                    p.nextSameHash = r.nextSameHash;
                    break;
                }
            }
        }
        r.nextSameHash = null;
    }

    synchronized boolean released(LeaseRecord r) {
        return r.state == LeaseRecord.RELEASED;
    }

    /** Takes the leases the collector found unreachable: those still borrowed are leaks. */
    void poll(long now) {
        LeaseRecord r = (LeaseRecord) queue.poll();
        while (r != null) {
            boolean leaked;
            synchronized (this) {
                leaked = r.state == LeaseRecord.BORROWED;
                if (leaked) {
                    unlink(r);
                    r.state = LeaseRecord.LEAKED;
                    outstanding--;
                    outstandingBytes -= r.size;
                    leakCount++;
                    leakedBytes += r.size;
                    if (leaks.size() < KEPT_LEAKS) {
                        leaks.add(r.leak(Leak.Kind.UNREACHABLE, now));
                    }
                }
            }
            if (leaked) {
                anomaly(PoolText.LEAK, r.id, r.size, r.resourceType);
            }
            r = (LeaseRecord) queue.poll();
        }
    }

    /** Tells the agent (the detail is the pool's name; the lease's resource type is in its BORROW event). */
    private void anomaly(String kind, long leaseId, long size, String detail) {
        if (linked && AgentLink.active()) {
            AgentLink.anomaly(kind, leaseId, size, name);
        }
    }

    /** @return the leases found unreachable while borrowed (at most {@value #KEPT_LEAKS}), oldest first */
    public List<Leak> leaks() {
        poll(System.nanoTime());
        synchronized (this) {
            return List.copyOf(leaks);
        }
    }

    /** @return the leases borrowed and not returned now, oldest first, as {@link Leak.Kind#NOT_RETURNED} */
    public List<Leak> outstanding() {
        long now = System.nanoTime();
        poll(now);
        List<Leak> l = new ArrayList<>();
        synchronized (this) {
            for (LeaseRecord head : out.values()) {
                for (LeaseRecord r = head; r != null; r = r.nextSameHash) {
                    l.add(r.leak(Leak.Kind.NOT_RETURNED, now));
                }
            }
        }
        l.sort((a, b) -> Long.compare(a.borrowNanos(), b.borrowNanos()));
        return l;
    }

    /** @return the figures now, after taking the leases the collector cleared */
    public Stats stats() {
        poll(System.nanoTime());
        synchronized (this) {
            return new Stats(name, borrows, returns, outstanding, outstandingBytes, peakOutstanding,
                    peakOutstandingBytes, totalLeaseNanos, maxLeaseNanos, leakCount, leakedBytes, doubleReturns,
                    unknownReturns);
        }
    }

    /** The borrowing stack: the frames below memscope's own, at most {@code depth}. */
    private static List<String> stack(int depth) {
        if (depth == 0) {
            return List.of();
        }
        return WALKER.walk(s -> s.dropWhile(PoolText::ownFrame)
                .limit(depth)
                .map(PoolText::frame)
                .collect(Collectors.toUnmodifiableList()));
    }

    @Override
    public String toString() {
        return PoolText.describe(getClass().getSimpleName(), name);
    }

    /**
     * One borrowing of a pooled resource ({@link PoolTracker#borrow}): give it back with {@link #release()} when the
     * resource goes back to its pool. A lease that becomes unreachable while borrowed is reported as a leak
     * ({@link Leak.Kind#UNREACHABLE}); keep it (or the object that holds it) for as long as the resource is out.
     * The lease holds its resource; the tracker holds neither.
     */
    public static final class Lease {
        /** Set once, right after construction (the record refers to its lease weakly, so it comes second). */
        LeaseRecord record;
        private final Object resource;

        Lease(Object resource) {
            this.resource = resource;
        }

        /** Returns the resource to the tracker. A second release is counted as a double return. Never throws. */
        public void release() {
            record.pool.release(this);
        }

        /** @return whether it was released */
        public boolean released() {
            return record.pool.released(record);
        }

        /** @return the borrowed resource (may be null when a lease was taken for nothing) */
        public Object resource() {
            return resource;
        }

        /** @return the size given at borrow */
        public long size() {
            return record.size;
        }

        /** @return the lease's id, unique in the JVM (per copy of memscope-core), as in events and leak reports */
        public long id() {
            return record.id;
        }

        @Override
        public String toString() {
            return PoolText.lease(record.pool.name(), record.id);
        }
    }

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
     * @param leaks                leases whose {@link PoolTracker.Lease} object became unreachable while borrowed
     * @param leakedBytes          the sizes of those leases
     * @param doubleReturns        a lease, or the resource of a lease, returned after it was returned already
     * @param unknownReturns       {@link PoolTracker#release(Object)} of a resource this tracker never lent (or whose
     *                             return it no longer remembers)
     */
    public record Stats(String pool, long borrows, long returns, long outstanding, long outstandingBytes,
                            long peakOutstanding, long peakOutstandingBytes, long totalLeaseNanos, long maxLeaseNanos,
                            long leaks, long leakedBytes, long doubleReturns, long unknownReturns) {
    }

    /**
     * A lease that was not returned: its {@link PoolTracker.Lease} became unreachable while borrowed ({@link Kind#UNREACHABLE},
     * found by the garbage collector, as Netty's ResourceLeakDetector finds leaked buffers), or it is still borrowed
     * ({@link Kind#NOT_RETURNED}, listed by {@link PoolTracker#outstanding()}; at the end of a run, a resource never
     * returned).
     *
     * @param pool         the pool's name
     * @param kind         how it was found
     * @param leaseId      the lease's id (unique in the JVM, per copy of memscope-core)
     * @param resourceType the borrowed resource's class
     * @param size         the size given at borrow
     * @param borrowNanos  {@link System#nanoTime()} of the borrow
     * @param foundNanos   when the leak was found ({@link Kind#UNREACHABLE}: the first look after the collector
     *                     cleared the lease; {@link Kind#NOT_RETURNED}: the time of the listing)
     * @param threadId     the borrowing thread
     * @param threadName   its name
     * @param stack        the borrowing stack, innermost first, as {@code pkg.Class.method(File.java:LINE)} (empty when
     *                     stacks are off for the pool)
     */
    public record Leak(String pool, Kind kind, long leaseId, String resourceType, long size, long borrowNanos,
                           long foundNanos, long threadId, String threadName, List<String> stack) {

        /** How a leak was found. */
        public enum Kind {
            /** The lease object became unreachable while its resource was borrowed: it can never be returned. */
            UNREACHABLE,
            /** Still borrowed when listed. */
            NOT_RETURNED
        }
    }
}
