package io.memscope.internal.store;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The thread buffers an {@link EventStore} holds: an append-only {@link Table} that readers iterate without a
 * lock, replaced whole when it grows or when buffers are removed. Appends and removals take this registry's own
 * lock (a thread registering its first buffer does not wait for a drain); removal is also under the store's
 * maintenance lock, so a reader holding that lock sees one table throughout.
 */
final class BufferRegistry {
    private final Object lock = new Object();
    private volatile Table table = new Table(new ThreadBuffer[16]);

    /** The registered buffers: slots below {@code count} are set before {@code count} is raised. */
    static final class Table {
        final ThreadBuffer[] slots;
        volatile int count;

        Table(ThreadBuffer[] slots) {
            this.slots = slots;
        }

        boolean full() {
            return count == slots.length;
        }
    }

    /** @return the current table (read its {@code count} once, then its slots below it) */
    Table table() {
        return table;
    }

    /** Appends {@code b}, growing the table when full. */
    void add(ThreadBuffer b) {
        synchronized (lock) {
            Table r = table;
            int n = r.count;
            if (n == r.slots.length) {
                r = new Table(Arrays.copyOf(r.slots, n * 2));
                r.count = n;
                table = r;
            }
            r.slots[n] = b;
            r.count = n + 1; // volatile: publishes the slot
        }
    }

    /**
     * Removes the buffers {@code releasable} accepts, handing each to {@code removed} (under this registry's lock)
     * before the smaller table is published; does nothing when none is releasable.
     */
    void removeIf(Predicate<ThreadBuffer> releasable, Consumer<ThreadBuffer> removed) {
        synchronized (lock) {
            Table r = table;
            int n = r.count;
            int live = 0;
            for (int i = 0; i < n; i++) {
                if (!releasable.test(r.slots[i])) {
                    live++;
                }
            }
            if (live == n) {
                return;
            }
            Table next = new Table(new ThreadBuffer[Math.max(16, Integer.highestOneBit(live) * 4)]);
            int k = 0;
            for (int i = 0; i < n; i++) {
                ThreadBuffer b = r.slots[i];
                if (releasable.test(b)) {
                    removed.accept(b);
                } else {
                    next.slots[k++] = b;
                }
            }
            next.count = k;
            table = next;
        }
    }

    /** Under the store's maintenance lock: the start and end of every registered buffer, each read once. */
    Cut cut() {
        Table r = table;
        int n = r.count;
        Cut cut = new Cut(n);
        for (int i = 0; i < n; i++) {
            ThreadBuffer b = r.slots[i];
            cut.buffers[i] = b;
            cut.from[i] = b.start();
        }
        for (int i = 0; i < n; i++) {
            cut.to[i] = cut.buffers[i].end();
        }
        return cut;
    }

    /** The events of a read or a drain: buffer {@code i}'s positions {@code from[i]} (inclusive) to {@code to[i]}. */
    static final class Cut {
        final ThreadBuffer[] buffers;
        final long[] from;
        final long[] to;
        final int n;

        Cut(int n) {
            this.n = n;
            buffers = new ThreadBuffer[n];
            from = new long[n];
            to = new long[n];
        }

        /** @return whether no buffer has an event in the cut */
        boolean empty() {
            for (int i = 0; i < n; i++) {
                if (to[i] > from[i]) {
                    return false;
                }
            }
            return true;
        }
    }
}
