package io.memscope.demo;

import io.memscope.scope.ScopeSnapshot;
import io.memscope.pool.PoolTracker;
import io.memscope.Memscope;
import io.memscope.scope.MemoryScope;
import io.memscope.track.ObjectTracker;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * memscope's scopes, named objects and pool tracking in a small request server: 200 requests, each in a scope
 * {@code request} whose parse and render run on a scoped pool of two workers ({@code request/parse},
 * {@code request/render}: the render scope allocates the most); every 20th request audits through a pooled
 * connection, and request 120 forgets to close it (a pool leak, found with the stack that borrowed it); the session
 * map is tracked by name and kept, a 1 MiB upload buffer is tracked and dropped (collected). {@code memscope run
 * --demo} also profiles {@link RequestHandler}'s methods. Prints what memscope sees in-process.
 */
public final class ScopedRequestsWorkload implements DemoMain.Workload {
    static final int REQUESTS = 200;
    static final int UPLOAD = 1 << 20;
    /** Kept to the end of the run, so that the tracked session map is alive in the report. */
    static volatile Object kept;

    @Override
    public String name() {
        return "scoped-requests";
    }

    @Override
    public String description() {
        return "requests in scopes across a thread pool; render allocates the most; one pooled connection leaks";
    }

    @Override
    public void run() throws Exception {
        ConnectionPool connections = new ConnectionPool(RequestHandler.Names.POOL);
        RequestHandler handler = new RequestHandler(connections);
        kept = handler;
        Memscope.track(RequestHandler.Names.SESSIONS, handler.sessions);
        byte[] upload = new byte[UPLOAD];
        Memscope.track(RequestHandler.Names.UPLOAD, upload);
        upload = null;

        ExecutorService workers = Memscope.scoped(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "scoped-requests-worker");
            t.setDaemon(true);
            return t;
        }));
        try {
            for (int id = 1; id <= REQUESTS; id++) {
                try (MemoryScope request = Memscope.scope(RequestHandler.Names.REQUEST)) {
                    handler.handle(id, workers);
                }
            }
        } finally {
            workers.shutdown();
            workers.awaitTermination(30, TimeUnit.SECONDS);
        }

        // The leaked lease and the dropped upload are found once the collector has cleared them.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while ((connections.tracker().stats().leaks() < 1 || ObjectTracker.global().collected() < 1)
                && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        for (ScopeSnapshot.PathStats s : Memscope.scopes().paths()) {
            System.out.printf("demo: scoped-requests: scope %-15s %4d entries %4d tasks %,12d bytes allocated%n",
                    s.path(), s.entries(), s.tasks(), s.allocatedBytes());
        }
        PoolTracker.Stats p = connections.tracker().stats();
        System.out.printf("demo: scoped-requests: pool %s: %d borrows, %d returns, %d leaked, %d connections "
                + "opened%n", p.pool(), p.borrows(), p.returns(), p.leaks(), connections.opened());
        for (PoolTracker.Leak leak : connections.tracker().leaks()) {
            String at = leak.stack().stream().filter(f -> !f.startsWith(ConnectionPool.class.getName()))
                    .findFirst().orElse("?");
            System.out.println("demo: scoped-requests: leaked connection borrowed at " + at);
        }
        System.out.printf("demo: scoped-requests: %d objects tracked, %d collected%n",
                ObjectTracker.global().tracked(), ObjectTracker.global().collected());
    }
}
