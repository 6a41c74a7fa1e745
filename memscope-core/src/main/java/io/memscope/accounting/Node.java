package io.memscope.accounting;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A shared level of the carry chain: an account (user@host), a user, a host or the global row. Its statistics
 * are the performance schema's shared stats: {@link Stats#WIDTH} atomic longs per instrument, in chunks of {@value
 * #CHUNK} instruments created on first use (so that a tenant touching two instruments costs two chunks at most, not
 * {@link MemoryAccounting#MAX_INSTRUMENTS}).
 *
 * <p>What a node holds by itself: the capacities carried into it from below (watermark deltas), the statistics of
 * threads that ended or left the account (aggregated into it), and operations charged to it directly (frees of
 * memory whose owner is gone; every operation of a global instrument on the global node).
 */
final class Node {
    static final int CHUNK_SHIFT = 6;
    static final int CHUNK = 1 << CHUNK_SHIFT;

    enum Kind { ACCOUNT, USER, HOST, GLOBAL }

    final Kind kind;
    final String name;
    /** For an account: its user and host nodes (either may be null); null otherwise. */
    final Node user;
    final Node host;
    /** Byte limit for a user or host node, or null. */
    volatile Budget budget;
    private final AtomicReferenceArray<AtomicLongArray> chunks =
            new AtomicReferenceArray<>(MemoryAccounting.MAX_INSTRUMENTS >> CHUNK_SHIFT);

    Node(Kind kind, String name, Node user, Node host) {
        this.kind = kind;
        this.name = name;
        this.user = user;
        this.host = host;
    }

    /** @return the chunk holding {@code index}, created if missing */
    AtomicLongArray chunk(int index) {
        int c = index >>> CHUNK_SHIFT;
        AtomicLongArray a = chunks.get(c);
        if (a == null) {
            AtomicLongArray fresh = new AtomicLongArray(CHUNK * Stats.WIDTH);
            a = chunks.compareAndExchange(c, null, fresh);
            if (a == null) {
                a = fresh;
            }
        }
        return a;
    }

    /** @return the chunk holding {@code index}, or null if this node never saw that instrument's chunk */
    AtomicLongArray chunkOrNull(int index) {
        return chunks.get(index >>> CHUNK_SHIFT);
    }

    static int base(int index) {
        return (index & (CHUNK - 1)) * Stats.WIDTH;
    }

    /** Adds this node's own values for {@code index} into {@code into} (8 longs). */
    void addTo(int index, long[] into) {
        AtomicLongArray a = chunkOrNull(index);
        if (a == null) {
            return;
        }
        int b = base(index);
        for (int i = 0; i < Stats.WIDTH; i++) {
            into[i] += a.get(b + i);
        }
    }

    /** Adds 8 values (counts and capacities) into this node's stat for {@code index} (thread-end aggregation). */
    void aggregate(int index, long[] values, int from) {
        AtomicLongArray a = chunk(index);
        int b = base(index);
        for (int i = 0; i < Stats.WIDTH; i++) {
            long v = values[from + i];
            if (v != 0) {
                a.getAndAdd(b + i, v);
            }
        }
    }

    void rebaseAll() {
        for (int c = 0; c < chunks.length(); c++) {
            AtomicLongArray a = chunks.get(c);
            if (a != null) {
                for (int k = 0; k < CHUNK; k++) {
                    Stats.rebase(a, k * Stats.WIDTH);
                }
            }
        }
    }

    @Override
    public String toString() {
        return kind + ":" + name;
    }
}
