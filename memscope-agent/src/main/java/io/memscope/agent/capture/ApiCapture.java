package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import io.memscope.accounting.Column;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.internal.error.Failures;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.internal.store.EventStore;
import io.memscope.internal.store.StringTable;
import io.memscope.recording.AccountingSnapshot;
import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one capture receives from the application's memscope API (scopes, named objects, pools, moves; see
 * {@link ApiHooks}) and moves into the recording with the rest: scope paths (SCOPE_PATHS), scope entries and exits
 * (SCOPE_EDGES), the API's memory events (API_EVENTS), and the API's anomalies (ANOMALIES).
 *
 * <p>Entries and exits go into a log per thread ({@link ScopeEdges}: a few stores per edge, no lookup, no
 * allocation once the drains keep up), with the calling thread's own timestamps; each thread's edges stay in order,
 * which is what scope edges need (a thread's exits close its entries). API events go into an {@link EventStore} as
 * what they are. Both share the recording's string table.
 */
final class ApiCapture {
    /** Named objects followed at once; more are counted ({@code namedObjectsDropped}). */
    static final int MAX_NAMED = 100_000;
    /** Borrowing stacks remembered for leak reports; beyond, a leak is reported without its stack. */
    static final int MAX_LEASES = 100_000;
    /** Anomalies kept for the recording; more are counted. */
    static final int MAX_ANOMALIES = 10_000;

    private final StringTable strings;
    private final ScopeEdges edges;
    private final EventStore events;
    private final int stackDepth;
    /** The capture's stack table (stacks of tracked objects and borrows). */
    private final StackTable stacks;
    private final Map<String, Integer> pathIds = new ConcurrentHashMap<>();
    private final AtomicInteger nextPath = new AtomicInteger();
    /**
     * Scope paths not yet in the recording, under their own lock. Rare (one per distinct path), so an
     * {@code ArrayDeque}, not a {@code ConcurrentLinkedQueue}: that class's initializer makes {@code VarHandle}s at
     * every agent start.
     */
    private final ArrayDeque<int[]> newPaths = new ArrayDeque<>();
    /** Every path's {parent, name id}, at index id - 1; under {@code pathIds}' lock. */
    private final java.util.ArrayList<int[]> paths = new java.util.ArrayList<>();
    /** The push's table, told every edge the drain moves (its scope labels); or null (no push). */
    private volatile PushTable push;
    private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
    private final Set<Named> named = ConcurrentHashMap.newKeySet();
    private final AtomicLong namedIds = new AtomicLong();
    private final AtomicLong namedDropped = new AtomicLong();
    private final Map<Long, Long> leaseStacks = new ConcurrentHashMap<>();
    /** Anomalies not yet in the recording (at most {@code MAX_ANOMALIES}), under their own lock. */
    private final ArrayDeque<Object[]> anomalies = new ArrayDeque<>();
    private final AtomicInteger anomalyCount = new AtomicInteger();
    private final AtomicLong anomaliesDropped = new AtomicLong();
    /**
     * The latest accounting snapshot not yet in the recording, or null; guarded by {@code this}. Not an
     * {@code AtomicReference}: its class initializer makes a {@code VarHandle} at every agent start, for a value set
     * every ten seconds.
     */
    private AccountingSnapshot accounting;
    /** The capture's sizes, for objects the application tracks by name. */
    private final ObjectSizes objectSizes;

    ApiCapture(StringTable strings, StackTable stacks, int stackDepth, ObjectSizes objectSizes) {
        this.objectSizes = objectSizes;
        this.stacks = stacks;
        this.strings = strings;
        this.edges = new ScopeEdges(strings);
        this.events = EventStore.builder().strings(strings).build();
        this.stackDepth = stackDepth;
    }

    /** Lets application threads that outrun the drain wake it (their scope edges pile up): see ScopeEdges. */
    void wakeDrainWith(Runnable wake) {
        edges.wakeDrainWith(wake);
    }

    /** The capture ended and its last drain ran: the scope edges' pool, logs and string table go (ScopeEdges). */
    void release() {
        edges.release();
    }

    // ------------------------------------------------------------------------------------------ application threads

    int scopePath(int parentId, String name) {
        String key = parentId + "/" + name;
        Integer id = pathIds.get(key);
        if (id != null) {
            return id;
        }
        synchronized (pathIds) {
            id = pathIds.get(key);
            if (id == null) {
                id = nextPath.incrementAndGet();
                int[] path = {id, parentId, strings.intern(name)};
                synchronized (newPaths) {
                    newPaths.add(path);
                }
                paths.add(new int[] {parentId, path[2]});
                pathIds.put(key, id);
            }
            return id;
        }
    }

    /**
     * Records a scope entry ({@code value}: the task id, 0 none) or exit ({@code value}: allocated bytes, -1
     * unknown) of the calling thread, whose state is {@code ts}.
     *
     * @return heap bytes this allocated on the thread (the thread's first edge, a new block; usually 0)
     */
    long scopeEdge(ThreadState ts, int pathId, long nanos, boolean exit, long value) {
        ScopeEdgeLog log = ts.scopeEdges;
        long allocated = 0;
        if (log == null || log.capture != edges) {
            long before = OwnBytes.before();
            log = edges.register();
            ts.scopeEdges = log;
            allocated = OwnBytes.since(before);
        }
        return allocated + log.add(nanos, (pathId & 0xFFFFFFFFL) | (exit ? ScopeEdgeLog.EXIT : 0), value);
    }

    void track(Object o, String name) {
        if (named.size() >= MAX_NAMED) {
            namedDropped.incrementAndGet();
            return;
        }
        long id = namedIds.incrementAndGet();
        long size = objectSizes.measured(o);
        String type = o.getClass().getTypeName();
        long stack = stacks.captureApiCaller(stackDepth);
        long now = System.nanoTime();
        Named n = new Named(o, collected, id, size, strings.intern(name), strings.intern(type), now);
        named.add(n);
        events.recordAt(now, MemoryEventType.ALLOCATE, id, size, 0, 0, stack, n.typeId, n.nameId);
    }

    void borrow(Object resource, String pool, long leaseId, long size) {
        long stack = stacks.captureApiCaller(stackDepth);
        if (stack != 0 && leaseStacks.size() < MAX_LEASES) {
            leaseStacks.put(leaseId, stack);
        }
        int type = resource == null ? 0 : strings.intern(resource.getClass().getTypeName());
        events.recordAt(System.nanoTime(), MemoryEventType.BORROW, leaseId, Math.max(0, size), 0, 0, stack, type,
                strings.intern(pool));
    }

    void returned(String pool, long leaseId, long size) {
        leaseStacks.remove(leaseId);
        events.recordAt(System.nanoTime(), MemoryEventType.RETURN, leaseId, Math.max(0, size), 0, 0, 0, 0,
                strings.intern(pool));
    }

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    void anomaly(String kind, long id, long size, String detail) {
        if (anomalyCount.incrementAndGet() > MAX_ANOMALIES) {
            anomaliesDropped.incrementAndGet();
            return;
        }
        Long stack = kind.startsWith("pool-") ? leaseStacks.remove(id) : null;
        Object[] a = {kind, System.nanoTime(), id, Math.max(0, size), Thread.currentThread().getId(),
            stack == null ? 0L : stack, detail};
        synchronized (anomalies) {
            anomalies.add(a);
        }
    }

    /** Keeps a snapshot of the application's accounting tables (row layout: see AgentLink), the latest only. */
    void accounting(long nanos, String[] text, long[] values) {
        Column[] columns = Column.values();
        SummaryTable[] tables = SummaryTable.values();
        int width = 2 + columns.length;
        int n = Math.min(Math.min(text.length / 4, values.length / width), AccountingSnapshot.MAX_ROWS);
        List<SummaryRow> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int at = i * width;
            long table = values[at];
            String instrument = text[i * 4 + 3];
            if (table < 0 || table >= tables.length || instrument == null) {
                continue; // not a row this agent knows: left out
            }
            rows.add(new SummaryRow(tables[(int) table], values[at + 1], text[i * 4], text[i * 4 + 1],
                    text[i * 4 + 2], instrument, Arrays.copyOfRange(values, at + 2, at + width)));
        }
        AccountingSnapshot snapshot = new AccountingSnapshot(nanos, rows);
        synchronized (this) {
            accounting = snapshot;
        }
    }

    void move(String what, long id, long size, long fromThreadId) {
        events.recordAt(System.nanoTime(), MemoryEventType.MOVE, id, Math.max(0, size), fromThreadId, 0, 0, 0,
                strings.intern(what));
    }

    // ------------------------------------------------------------------------------------------ memscope's threads

    /** Turns the named objects the collector cleared into DEALLOCATE events (memscope's background thread). */
    void poll() {
        long now = System.nanoTime();
        for (Named n = (Named) collected.poll(); n != null; n = (Named) collected.poll()) {
            if (named.remove(n)) {
                events.recordAt(now, MemoryEventType.DEALLOCATE, n.id, n.size, Math.max(0, now - n.trackedAt), 0, 0,
                        n.typeId, n.nameId);
            }
        }
    }

    /** The scope paths as the push's labels need them: parents and names by id. */
    PushScopes.Paths paths() {
        return new PushScopes.Paths() {
            @Override
            public int parent(int pathId) {
                int[] p = path(pathId);
                return p == null ? -1 : p[0];
            }

            @Override
            public String name(int pathId) {
                int[] p = path(pathId);
                return p == null ? null : strings.get(p[1]);
            }

            @Override
            public boolean any() {
                return nextPath.get() > 0;
            }
        };
    }

    private int[] path(int id) {
        synchronized (pathIds) {
            return id >= 1 && id <= paths.size() ? paths.get(id - 1) : null;
        }
    }

    /** Every scope edge the drain moves from now on goes to {@code t} too (the push's scope labels). */
    void push(PushTable t) {
        push = t;
    }

    /** Moves everything received so far into the recording (under the recording stream's lock). */
    void drainTo(RecordingStream stream, RecordingWriter w) {
        long drainStart = System.nanoTime();
        for (int[] p = poll(newPaths); p != null; p = poll(newPaths)) {
            w.scopePath(p[0], p[1], strings.get(p[2]));
        }
        // anonymous classes, not a method reference or a lambda: the first drain runs during the application's
        // start-up, where the first link of either costs java.lang.invoke's bootstrap
        PushTable push = this.push;
        if (edges.threads() > 0) {
            drainEdges(w, push);
        }
        if (push != null) {
            push.edgesDrained(drainStart);
        }
        events.drainTo(new EventSink() {
            @Override
            public void accept(EventView e) {
                stream.stack(e.stackId());
                w.apiEvent(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(), e.threadId(),
                        e.threadNameId(), e.variableNameId(), e.typeNameId(), e.stackId(), e.siteId());
            }
        });
        AccountingSnapshot snapshot;
        synchronized (this) {
            snapshot = accounting;
            accounting = null;
        }
        if (snapshot != null) {
            w.accounting(snapshot);
        }
        for (Object[] a = poll(anomalies); a != null; a = poll(anomalies)) {
            long stack = (Long) a[5];
            stream.stack(stack);
            try {
                w.anomaly((String) a[0], (Long) a[1], (Long) a[2], (Long) a[3], (Long) a[4], stack, (String) a[6]);
            } catch (RuntimeException e) {
                Failures.report("agent.api.anomaly", e);
            }
        }
    }

    private static <T> T poll(ArrayDeque<T> q) {
        synchronized (q) {
            return q.poll();
        }
    }

    private void drainEdges(RecordingWriter w, PushTable push) {
        edges.drainTo(new ScopeEdges.Sink() {
            @Override
            public void edge(long nanos, long threadId, int threadNameId, boolean exit, int pathId, long taskId,
                             long allocatedBytes) {
                w.scopeEdge(nanos, threadId, threadNameId, exit, pathId, taskId, allocatedBytes);
                if (push != null) {
                    push.scopeEdge(nanos, threadId, exit, pathId);
                }
            }
        });
    }

    /** Counts for the recording's metadata at the end. */
    void metadata(Map<String, String> into) {
        into.put("api.namedObjectsLive", Integer.toString(named.size()));
        into.put("api.namedObjectsDropped", Long.toString(namedDropped.get()));
        into.put("api.anomaliesDropped", Long.toString(anomaliesDropped.get()));
        into.put("api.scopePaths", Integer.toString(nextPath.get()));
    }

    /** @return events held, not yet in the recording */
    long pending() {
        return edges.pending() + events.size();
    }

    /** A named object: a weak reference with what its events need. */
    private static final class Named extends WeakReference<Object> {
        final long id;
        final long size;
        final int nameId;
        final int typeId;
        final long trackedAt;

        Named(Object o, ReferenceQueue<Object> q, long id, long size, int nameId, int typeId, long trackedAt) {
            super(o, q);
            this.id = id;
            this.size = size;
            this.nameId = nameId;
            this.typeId = typeId;
            this.trackedAt = trackedAt;
        }
    }
}
