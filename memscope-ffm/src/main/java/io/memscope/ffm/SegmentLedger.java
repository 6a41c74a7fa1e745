package io.memscope.ffm;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;
import java.util.Arrays;

/**
 * What one {@link TrackingArena} has charged to its accounting instrument: the size and owner of each segment it
 * handed out, so that closing the arena frees each one, charged back to the owner (thread and user@host) that
 * allocated it. Exact counts: one alloc per segment, one free per segment.
 *
 * <p>Memory: 8 bytes for the size and one reference for the owner per segment (the JDK's arena keeps a cleanup
 * object per segment as well). Thread-safe: a shared arena allocates from many threads; one lock per arena, held
 * for an array store.
 */
final class SegmentLedger {
    private long[] sizes = new long[4];
    private Owner[] owners = new Owner[4];
    private int count;
    private long bytes;
    private boolean closed;

    /** A segment was handed out; @return false when the arena was already closed (its memory is freed: not charged) */
    synchronized boolean add(long size, Owner owner) {
        if (closed) {
            return false;
        }
        if (count == sizes.length) {
            sizes = Arrays.copyOf(sizes, count * 2);
            owners = Arrays.copyOf(owners, count * 2);
        }
        sizes[count] = size;
        owners[count] = owner;
        count++;
        bytes += size;
        return true;
    }

    /** The arena closed: frees every segment in {@code acct}, each charged to its owner. Idempotent. */
    void close(MemoryAccounting acct, Instrument instrument) {
        long[] s;
        Owner[] o;
        int n;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            s = sizes;
            o = owners;
            n = count;
            sizes = new long[0];
            owners = new Owner[0];
            count = 0;
            bytes = 0;
        }
        for (int i = 0; i < n; i++) {
            acct.free(instrument, s[i], o[i]);
        }
    }

    /** @return segments handed out and not freed */
    synchronized int segments() {
        return count;
    }

    /** @return bytes of the segments handed out and not freed */
    synchronized long bytes() {
        return bytes;
    }
}
