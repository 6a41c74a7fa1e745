package io.memscope.pool;

/**
 * One borrowing of a pooled resource ({@link PoolTracker#borrow}): give it back with {@link #release()} when the
 * resource goes back to its pool. A lease that becomes unreachable while borrowed is reported as a leak
 * ({@link PoolLeak.Kind#UNREACHABLE}); keep it (or the object that holds it) for as long as the resource is out.
 * The lease holds its resource; the tracker holds neither.
 */
public final class Lease {
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
