package io.memscope.demo;

import io.memscope.Memscope;
import io.memscope.pool.PoolTracker;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A small connection pool, the way a real one is built: a few physical connections, each with its 16 KiB buffer,
 * reused; what the application gets is a new {@link Connection} handle over a physical one, as a JDBC pool hands out
 * a proxy. Each handle holds its {@link PoolTracker.Lease} from memscope's {@link PoolTracker}: a handle the application drops
 * without closing it makes its lease unreachable, and memscope names it a leak with the stack that borrowed it.
 * Thread-safe.
 */
final class ConnectionPool {
    static final int BUFFER = 16 * 1024;

    private final PoolTracker tracker;
    private final ArrayDeque<Physical> idle = new ArrayDeque<>();
    private final List<Physical> all = new ArrayList<>();

    ConnectionPool(String name) {
        this.tracker = Memscope.pool(name);
    }

    /** @return a connection; the caller must {@link Connection#close() close} it */
    synchronized Connection borrow() {
        Physical p = idle.pollFirst();
        if (p == null) {
            p = new Physical(all.size());
            all.add(p);
        }
        Connection c = new Connection(this, p);
        c.lease = tracker.borrow(c, BUFFER);
        return c;
    }

    synchronized void giveBack(Connection c) {
        c.lease.release();
        idle.addLast(c.physical);
    }

    /** @return physical connections opened (a leaked one is never reused: the pool opens another) */
    synchronized int opened() {
        return all.size();
    }

    PoolTracker tracker() {
        return tracker;
    }

    /** A physical connection: its buffer is what a lease's size counts. */
    static final class Physical {
        final int id;
        final byte[] buffer = new byte[BUFFER];

        Physical(int id) {
            this.id = id;
        }
    }

    /** What the application holds while it uses a connection. */
    static final class Connection implements AutoCloseable {
        private final ConnectionPool pool;
        final Physical physical;
        PoolTracker.Lease lease;
        private boolean closed;

        Connection(ConnectionPool pool, Physical physical) {
            this.pool = pool;
            this.physical = physical;
        }

        /** Writes a record into the connection's buffer (stands for a query). */
        int write(int record) {
            physical.buffer[record % BUFFER] = (byte) record;
            return record;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                pool.giveBack(this);
            }
        }
    }
}
