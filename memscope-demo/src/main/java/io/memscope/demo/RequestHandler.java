package io.memscope.demo;

import io.memscope.Memscope;
import io.memscope.scope.MemoryScope;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The request handler of {@link ScopedRequestsWorkload}. {@code memscope run --demo} profiles its methods
 * ({@code --functions io.memscope.demo.RequestHandler.*}): calls, time, allocated and held bytes per method.
 *
 * <p>No string literal here: scope names come from {@link Names} (the first use of a literal creates its String,
 * inside the scope that runs it).
 */
final class RequestHandler {
    /** Every this many requests, one is audited (writes to a pooled connection). */
    static final int AUDIT_EVERY = 20;
    /** The request whose audit is skipped: it returns without closing its connection. */
    static final int SKIPPED_AUDIT = 120;
    static final int BODY = 4096;
    static final int PAGE = 64 * 1024;
    static final int SESSION = 1024;

    static volatile Object sink;

    private final ConnectionPool connections;
    /** Sessions, kept to the end: tracked by name as {@code sessions}. */
    final Map<Integer, byte[]> sessions = new ConcurrentHashMap<>();

    RequestHandler(ConnectionPool connections) {
        this.connections = connections;
    }

    /** One request, in the caller's scope {@code request}: parse and render run on workers, in its child scopes. */
    void handle(int id, ExecutorService workers) throws Exception {
        Future<byte[]> parsed = workers.submit(() -> parse(id));
        byte[] body = parsed.get();
        Future<Integer> rendered = workers.submit(() -> render(body));
        sink = rendered.get();
        if (id % AUDIT_EVERY == 0) {
            audit(id);
        }
        sessions.put(id % 100, new byte[SESSION]);
    }

    /** {@code request/parse}: reads the request body (4 KiB). */
    byte[] parse(int id) {
        try (MemoryScope s = Memscope.scope(Names.PARSE)) {
            byte[] body = new byte[BODY];
            body[id % BODY] = (byte) id;
            return body;
        }
    }

    /** {@code request/render}: renders a 64 KiB page for every request, the scope that allocates the most. */
    int render(byte[] body) {
        try (MemoryScope s = Memscope.scope(Names.RENDER)) {
            byte[] page = new byte[PAGE]; // the render buffer
            for (int i = 0; i < body.length; i++) {
                page[i * 16] = body[i];
            }
            sink = page;
            return page.length;
        }
    }

    /** Audits the request through a pooled connection. */
    void audit(int id) {
        ConnectionPool.Connection c = connections.borrow(); // the forgotten connection
        if (id == SKIPPED_AUDIT) {
            return; // the bug: leaves without closing the connection
        }
        try (c) {
            c.write(id);
        }
    }

    /** The names used by the workload. */
    static final class Names {
        static final String REQUEST;
        static final String PARSE;
        static final String RENDER;
        static final String SESSIONS;
        static final String UPLOAD;
        static final String POOL;

        static {
            REQUEST = "request";
            PARSE = "parse";
            RENDER = "render";
            SESSIONS = "sessions";
            UPLOAD = "upload";
            POOL = "demo-connections";
        }

        private Names() {
        }
    }
}
