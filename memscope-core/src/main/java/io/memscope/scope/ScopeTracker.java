package io.memscope.scope;

import io.memscope.internal.error.Failures;
import io.memscope.events.RuntimeEvents;
import io.memscope.internal.link.AgentLink;
import io.memscope.internal.scope.OwnAllocations;

import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * memscope-rs's scope tracker for the JVM: per-thread stacks of named scopes, aggregated by path.
 *
 * <h2>What is measured</h2>
 * For each path ({@code request/parse}), over all threads: entries, total and longest duration, self time, and
 * the heap bytes allocated while the scope was open on its thread, with and without its children
 * ({@link ScopeStats}). Allocated bytes are exact without any agent: the thread's allocated-bytes counter
 * ({@code com.sun.management.ThreadMXBean.getCurrentThreadAllocatedBytes()}) read at entry and exit. That counter
 * covers every heap object the thread allocates (its TLABs and outside them; JDK, reflection and JNI code
 * included), not objects eliminated by escape analysis, not native memory, not work other threads do for it;
 * virtual threads have no such counter (see {@link ThreadAllocation}). memscope's own allocations while a scope
 * is open (the scope handles, growing tables, the agent's buffers) are measured and left out, so a scope that
 * allocates nothing reports 0 bytes.
 *
 * <h2>Cost</h2>
 * Entering and exiting read the clock and the allocated-bytes counter once each and allocate one small handle;
 * no lock and no shared write: the stack and the statistics are the thread's own (a {@link StatsShard}), summed
 * when read. A new path, a deeper stack than before, or a new thread takes a lock once. The thread's state is found
 * through a slot by thread id. With the memscope agent capturing, each entry and exit is also handed to it (three
 * stores into the thread's log there); the agent returns what it allocated for that (a new block, now and then),
 * so that no further counter read is needed. See docs/benchmarks.md.
 *
 * <h2>Bounded memory</h2>
 * At most {@code maxPaths} distinct paths; scopes whose path does not fit are counted under the single path
 * {@code "(other)"} (with their children), with an exact count of entries and of distinct refused names
 * ({@link ScopeSnapshot}). Per thread at most {@value ThreadScopes#MAX_DEPTH} open scopes.
 *
 * <h2>Misuse</h2>
 * Never thrown into the application: an exit out of order is repaired (inner scopes still open are exited first),
 * a second close or a close on another thread is ignored, bad names are replaced; all are counted
 * ({@link ScopeSnapshot}).
 *
 * <p>Thread-safe. {@link #global()} is the tracker behind {@code Memscope.scope}; it also forwards its scopes to
 * the memscope agent when one captures ({@link AgentLink}) and to the event rings as spans when they run.
 */
public final class ScopeTracker {
    /** The path under which scopes are counted whose path did not fit the bound: {@code (other)}. */
    public static final String OTHER = ScopeText.OTHER;
    /** Names longer than this many characters are truncated. */
    public static final int MAX_NAME = 200;
    /** The default bound on distinct paths; the global tracker's is {@code -Dmemscope.scopes.maxPaths=N}. */
    public static final int DEFAULT_MAX_PATHS = 1024;
    private static final int IDLE_SLOTS = 64;
    private static final int BY_ID_SLOTS = 1024;

    /** Heap bytes of one {@link MemoryScope} handle, measured once (0 when allocation cannot be measured). */
    static final long HANDLE_BYTES = measureHandleBytes();
    private static final MethodHandle IS_VIRTUAL = ScopeText.isVirtualHandle();

    static {
        ScopeText.warmUp(new ScopeTracker(2, false));
        // the JDK customizes a method handle at its 128th call, spinning a class on the calling thread: here, not in
        // an application's scope
        for (int i = 0; i < AgentLink.WARM_UP_CALLS; i++) {
            isVirtual(Thread.currentThread());
        }
    }
    private static volatile ScopeTracker global;

    private final int maxPaths;
    private final boolean linked;
    private final Object lock = new Object();
    private final PathNode root = new PathNode(0, ScopeText.EMPTY, null);
    final PathNode other = new PathNode(1, OTHER, root);
    private volatile PathNode[] nodes = {root, other, null, null, null, null, null, null};
    /** Nodes in {@link #nodes}: root and other, then real paths. */
    private volatile int nodeCount = 2;
    /** Keys mapped to {@link #other} in some node's table (bounded by {@link #foldCap}). */
    private volatile int foldedKeys;
    private final int foldCap;
    private volatile boolean foldOverflow;
    private final ThreadLocal<ThreadScopes> local = new ThreadLocal<>();
    /**
     * The hot-path lookup of a thread's state: slot {@code threadId & (BY_ID_SLOTS - 1)}, valid when the state's
     * owner is the current thread (a few dependent loads, against several more for the {@link #local} lookup, which
     * stays the fallback for threads whose slot another holds). Cleared when a state is released or reaped.
     */
    private final ThreadScopes[] byId = new ThreadScopes[BY_ID_SLOTS];
    private final AtomicReferenceArray<ThreadScopes> idle = new AtomicReferenceArray<>(IDLE_SLOTS);
    /** Every thread's state, bound or idle (guarded by {@link #lock}); retired ones are folded into {@link #retired}. */
    private final ArrayList<ThreadScopes> all = new ArrayList<>();
    private int scanAt = 64;
    /** Sums (and maxima) of retired shards, per path id; guarded by {@link #lock}. */
    private long[] retired = new long[0];

    private final LongAdder outOfOrder = new LongAdder();
    private final LongAdder stale = new LongAdder();
    private final LongAdder foreign = new LongAdder();
    private final LongAdder invalidNames = new LongAdder();
    private final LongAdder tooDeep = new LongAdder();
    private final LongAdder abandoned = new LongAdder();

    private ScopeTracker(int maxPaths, boolean linked) {
        if (maxPaths < 1) {
            throw ScopeText.badMaxPaths(maxPaths);
        }
        this.maxPaths = maxPaths;
        this.linked = linked;
        this.foldCap = Math.max(1024, Math.min(1 << 20, 4 * maxPaths));
    }

    /**
     * A tracker of its own (tests, or an application that wants separate figures). Its scopes are not forwarded to
     * an agent or the event rings.
     *
     * @param maxPaths the bound on distinct paths, at least 1
     */
    public static ScopeTracker create(int maxPaths) {
        return new ScopeTracker(maxPaths, false);
    }

    /**
     * The process-wide tracker behind {@code Memscope.scope(name)}, created on first use; its bound on distinct
     * paths is the system property {@code memscope.scopes.maxPaths} (default {@value #DEFAULT_MAX_PATHS}).
     */
    public static ScopeTracker global() {
        ScopeTracker t = global;
        if (t == null) {
            synchronized (ScopeTracker.class) {
                t = global;
                if (t == null) {
                    t = new ScopeTracker(maxPathsProperty(), true);
                    OwnAllocations.install(new OwnCounter(t));
                    global = t;
                }
            }
        }
        return t;
    }

    private static int maxPathsProperty() {
        return ScopeText.maxPathsProperty(DEFAULT_MAX_PATHS);
    }

    /** @return the bound on distinct paths */
    public int maxPaths() {
        return maxPaths;
    }

    // ------------------------------------------------------------------------------------------------ enter

    /**
     * Enters a scope named {@code name} on the current thread, nested in the thread's innermost open scope.
     * Never throws.
     *
     * @param name the scope's name: not null or empty, at most {@value #MAX_NAME} characters, without {@code /}
     *             (otherwise it is replaced and counted, see {@link ScopeSnapshot#invalidNames()})
     */
    public MemoryScope enter(String name) {
        try {
            ThreadScopes ts = state();
            if (ts == null) {
                ts = bind();
            }
            int d = ts.depth;
            PathNode parent = d == 0 ? root : ts.paths[d - 1];
            PathNode node = name == null ? null : parent.child(name);
            if (node == null) {
                node = newChild(ts, parent, name);
            }
            return push(ts, node, null);
        } catch (Throwable t) {
            Failures.report(ScopeText.ENTER, t);
            return MemoryScope.NONE;
        }
    }

    /** @return the current thread's state, or null when it has none bound */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    private ThreadScopes state() {
        Thread t = Thread.currentThread();
        int slot = (int) t.getId() & (BY_ID_SLOTS - 1);
        ThreadScopes ts = byId[slot];
        if (ts != null && ts.owner == t) {
            return ts;
        }
        ts = local.get();
        if (ts != null) {
            ThreadScopes held = byId[slot];
            if (held == null || held.owner == null) {
                byId[slot] = ts;
                ts.slot = slot;
            }
        }
        return ts;
    }

    /** Forgets {@code ts} in its thread's slot (released or reaped: its owner is about to change). */
    private void unslot(ThreadScopes ts) {
        int slot = ts.slot;
        if (slot >= 0 && byId[slot] == ts) {
            byId[slot] = null;
        }
        ts.slot = -1;
    }

    /** The current thread runs a wrapped task: enters the task's path (nested below whatever is open). */
    MemoryScope enterTask(ScopedTask task) {
        try {
            ThreadScopes ts = state();
            if (ts == null) {
                ts = bind();
            }
            int d = ts.depth;
            if (d > 0 && ts.paths[d - 1] == task.node) {
                return MemoryScope.NONE; // already inside this very path on this thread (caller-runs): just run
            }
            return push(ts, task.node, task);
        } catch (Throwable t) {
            Failures.report(ScopeText.ENTER, t);
            return MemoryScope.NONE;
        }
    }

    /** @return the current thread's innermost open scope path, or null (for the scoped executors) */
    PathNode currentNode() {
        ThreadScopes ts = state();
        if (ts == null || ts.depth == 0) {
            return null;
        }
        return ts.paths[ts.depth - 1];
    }

    private MemoryScope push(ThreadScopes ts, PathNode node, ScopedTask task) {
        int d = ts.depth;
        if (d >= ts.paths.length) {
            long b = d > 0 ? ThreadAllocation.current() : -1;
            boolean room = ts.ensureRoom();
            own(ts, b);
            if (!room) {
                tooDeep.increment();
                return MemoryScope.NONE;
            }
        }
        boolean toAgent = linked && AgentLink.active();
        boolean spans = linked && RuntimeEvents.enabled();
        int agentPath = toAgent ? agentPath(ts, node) : 0;
        MemoryScope h = new MemoryScope(this, ts, d, node);
        ts.ownBytes += HANDLE_BYTES;
        ts.paths[d] = node;
        ts.handles[d] = h;
        ts.task[d] = (byte) (task == null ? 0 : 1);
        ts.childNanos[d] = 0;
        ts.childBytes[d] = 0;
        long now = System.nanoTime();
        // What the agent and the event rings allocate on this thread belongs to the frames already open: the agent
        // measures what it allocates for an edge and returns it; anything else is measured by a read here (a task's
        // move, the rings, an agent that does not measure), ended by the read that starts the frame.
        boolean measure = d > 0 && (spans || toAgent && (task != null || !AgentLink.edgesMeasured()));
        long before = measure ? ThreadAllocation.current() : -1;
        if (toAgent) {
            if (task != null) {
                AgentLink.move(node.path, task.id, 0, task.fromThreadId);
            }
            long agentBytes = AgentLink.scopeEntered(agentPath, now, task == null ? 0 : task.id);
            if (!measure) {
                ts.ownBytes += agentBytes;
            }
            agentOwn(ts); // the agent's samples so far belong to the frames already open
        }
        if (spans) {
            node.span().begin(now);
        }
        long start = ThreadAllocation.current();
        if (before >= 0 && start >= before) {
            ts.ownBytes += start - before;
        }
        ts.ownAtStart[d] = ts.ownBytes;
        ts.startBytes[d] = start;
        ts.start[d] = now;
        ts.depth = d + 1;
        return h;
    }

    /** @return the agent's id of the path; registering it with the agent is memscope's own allocation */
    private static int agentPath(ThreadScopes ts, PathNode node) {
        if (node.agentIdKnown()) {
            return node.agentId();
        }
        long b = ThreadAllocation.current();
        int id = node.agentId();
        own(ts, b);
        return id;
    }

    /** The global tracker behind {@link OwnAllocations} (memscope's pools and tracked objects). */
    private static final class OwnCounter implements OwnAllocations.Counter {
        private final ScopeTracker tracker;

        OwnCounter(ScopeTracker tracker) {
            this.tracker = tracker;
        }

        @Override
        public long begin() {
            return tracker.ownBegin();
        }

        @Override
        public void end(long token) {
            tracker.ownEnd(token);
        }
    }

    /** @return the thread's allocated bytes when it has a scope open here, else -1 ({@link OwnAllocations}) */
    long ownBegin() {
        ThreadScopes ts = state();
        return ts == null || ts.depth == 0 ? -1 : ThreadAllocation.current();
    }

    /** Counts the thread's allocations since {@code before} as memscope's own ({@link OwnAllocations}). */
    void ownEnd(long before) {
        ThreadScopes ts = state();
        if (ts != null) {
            own(ts, before);
        }
    }

    /** Adds what memscope allocated on this thread since {@code before} (-1: nothing to add) to its own bytes. */
    private static void own(ThreadScopes ts, long before) {
        if (before >= 0) {
            long after = ThreadAllocation.current();
            if (after >= before) {
                ts.ownBytes += after - before;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ exit

    void exit(MemoryScope h) {
        try {
            ThreadScopes ts = h.frames;
            Thread owner = ts.owner;
            if (owner != Thread.currentThread()) {
                // null: the state went back to the pool (a second close after the virtual thread's last scope)
                misuse(owner == null ? stale : foreign, owner == null ? ScopeText.STALE : ScopeText.FOREIGN, h);
                return;
            }
            int d = h.depth;
            if (d >= ts.depth || ts.handles[d] != h) {
                misuse(stale, ScopeText.STALE, h);
                return;
            }
            long now = System.nanoTime();
            long bytes = ThreadAllocation.current();
            boolean toAgent = linked && AgentLink.active();
            if (toAgent) {
                agentOwn(ts); // the agent's samples inside the frames being closed are left out of them
            }
            // the event rings, an agent that does not measure its own bytes, a repair: measured by a read below
            boolean measureAfter = toAgent && !AgentLink.edgesMeasured() || linked && RuntimeEvents.enabled();
            while (ts.depth - 1 > d) {
                outOfOrder.increment();
                measureAfter = true;
                pop(ts, now, bytes, true, true);
                if (linked && AgentLink.active()) {
                    AgentLink.anomaly(ScopeText.OUT_OF_ORDER, 0, 0, ts.paths[ts.depth].path);
                }
            }
            measureAfter |= pop(ts, now, bytes, false, measureAfter);
            if (measureAfter && ts.depth > 0 && bytes >= 0) {
                // the agent, the event rings, a growing table: memscope's own bytes since the frame ended
                long after = ThreadAllocation.current();
                if (after >= bytes) {
                    ts.ownBytes += after - bytes;
                }
            }
            if (ts.depth == 0 && ts.virtual) {
                release(ts);
            }
        } catch (Throwable t) {
            Failures.report(ScopeText.EXIT, t);
        }
    }

    /** Adds what the agent allocated on this thread in its own work (samples) since the last look to its own bytes. */
    private static void agentOwn(ThreadScopes ts) {
        long a = AgentLink.ownBytes();
        if (a > ts.agentOwnSeen) {
            ts.ownBytes += a - ts.agentOwnSeen;
        }
        ts.agentOwnSeen = a;
    }

    /** A close that was ignored: counted, and told to the agent (measured as memscope's own allocation). */
    private void misuse(LongAdder counter, String kind, MemoryScope h) {
        counter.increment();
        if (linked && AgentLink.active()) {
            long before = ownBegin();
            AgentLink.anomaly(kind, 0, 0, h.node.path);
            ownEnd(before);
        }
    }

    /**
     * Exits the innermost frame at {@code now}, the thread having allocated {@code endBytes} so far.
     *
     * @param measured whether the caller measures what memscope allocates from here on (then the bytes the agent
     *                 reports for the edge are not added again)
     * @return whether a table grew (allocated): the caller measures
     */
    private boolean pop(ThreadScopes ts, long now, long endBytes, boolean forced, boolean measured) {
        int d = ts.depth - 1;
        ts.depth = d;
        PathNode node = ts.paths[d];
        ts.handles[d] = null;
        long nanos = now - ts.start[d];
        long start = ts.startBytes[d];
        long bytes = start < 0 || endBytes < 0 ? -1 : Math.max(0, endBytes - start - (ts.ownBytes - ts.ownAtStart[d]));
        boolean counts = node != other || d == 0 || ts.paths[d - 1] != other;
        StatsShard shard = ts.shard;
        boolean allocated = false;
        if (!shard.fits(node.id)) {
            shard.grow(node.id);
            allocated = true;
        }
        shard.add(node.id, ts.task[d] != 0, nanos, nanos - ts.childNanos[d], bytes,
                bytes - ts.childBytes[d], forced, counts);
        if (d > 0 && counts) {
            ts.childNanos[d - 1] += nanos;
            if (bytes > 0) {
                ts.childBytes[d - 1] += bytes;
            }
        }
        if (linked) {
            if (AgentLink.active()) {
                long agentBytes = AgentLink.scopeExited(agentPath(ts, node), now, bytes);
                if (!measured && !allocated) {
                    ts.ownBytes += agentBytes; // after this frame's end: the enclosing frames' own bytes
                }
            }
            if (RuntimeEvents.enabled()) {
                node.span().end(now);
            }
        }
        return allocated;
    }

    // ------------------------------------------------------------------------------------------------ paths

    /** The slow path of {@link #enter}: a key not in the parent's table yet. */
    private PathNode newChild(ThreadScopes ts, PathNode parent, String key) {
        if (parent == other) {
            return other; // below a folded scope everything stays folded
        }
        long before = ts.depth > 0 ? ThreadAllocation.current() : -1;
        try {
            boolean wasNull = key == null;
            if (wasNull) {
                key = ScopeText.INVALID; // null cannot be a key: it shares the node of (invalid)
                PathNode n = parent.child(key);
                if (n != null) {
                    return n;
                }
            }
            boolean bad = wasNull || key.isEmpty() || key.length() > MAX_NAME || key.indexOf('/') >= 0;
            String name = !bad ? key : wasNull || key.isEmpty() ? ScopeText.INVALID
                    : (key.length() > MAX_NAME ? key.substring(0, MAX_NAME) : key).replace('/', '_');
            if (nodeCount - 2 >= maxPaths && (foldOverflow || foldedKeys >= foldCap)) {
                foldOverflow = true;
                return other; // full, and no more room to remember folded names: no lock
            }
            synchronized (lock) {
                PathNode n = parent.child(key);
                if (n != null) {
                    return n;
                }
                if (bad) {
                    invalidNames.increment();
                }
                if (!name.equals(key)) {
                    n = parent.child(name); // the replaced name may be known already
                    if (n != null) {
                        parent.addChild(key, n);
                        return n;
                    }
                }
                if (nodeCount - 2 >= maxPaths) {
                    if (foldedKeys >= foldCap) {
                        foldOverflow = true;
                        return other;
                    }
                    foldedKeys++;
                    parent.addChild(key, other);
                    return other;
                }
                PathNode created = new PathNode(nodeCount, name, parent);
                PathNode[] all = nodes;
                if (nodeCount == all.length) {
                    all = java.util.Arrays.copyOf(all, all.length * 2);
                }
                all[nodeCount] = created;
                nodes = all;
                nodeCount = nodeCount + 1;
                parent.addChild(key, created);
                if (!name.equals(key)) {
                    parent.addChild(name, created);
                }
                return created;
            }
        } finally {
            own(ts, before);
        }
    }

    // ------------------------------------------------------------------------------------------------ threads

    /** Binds a thread state to the current thread: an idle one if any, else a new one. */
    private ThreadScopes bind() {
        Thread t = Thread.currentThread();
        boolean v = isVirtual(t);
        ThreadScopes ts = takeIdle(t);
        if (ts == null) {
            synchronized (lock) {
                if (all.size() >= scanAt) {
                    reapLocked();
                    scanAt = Math.max(64, all.size() * 2);
                }
                ts = takeIdle(t);
                if (ts == null) {
                    ts = new ThreadScopes(nodeCount);
                    all.add(ts);
                }
            }
        }
        ts.bind(t, v);
        local.set(ts);
        return ts;
    }

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    private ThreadScopes takeIdle(Thread t) {
        int start = (int) t.getId() & (IDLE_SLOTS - 1);
        for (int i = 0; i < IDLE_SLOTS; i++) {
            int slot = (start + i) & (IDLE_SLOTS - 1);
            ThreadScopes ts = idle.get(slot);
            if (ts != null && idle.compareAndSet(slot, ts, null)) {
                return ts;
            }
        }
        return null;
    }

    /** A virtual thread closed its last scope: its state goes back to the pool (or is retired when it is full). */
    private void release(ThreadScopes ts) {
        local.remove();
        unslot(ts);
        ts.owner = null;
        ts.ownerRef = null;
        if (!offerIdle(ts)) {
            synchronized (lock) {
                retireLocked(ts);
            }
        }
    }

    @SuppressWarnings("deprecation")
    private boolean offerIdle(ThreadScopes ts) {
        int start = (int) Thread.currentThread().getId() & (IDLE_SLOTS - 1);
        for (int i = 0; i < IDLE_SLOTS; i++) {
            int slot = (start + i) & (IDLE_SLOTS - 1);
            if (idle.get(slot) == null && idle.compareAndSet(slot, null, ts)) {
                return true;
            }
        }
        return false;
    }

    /** Threads that ended: their open scopes are abandoned, their state becomes idle (or retired). */
    private void reapLocked() {
        List<ThreadScopes> dead = new ArrayList<>();
        for (ThreadScopes ts : all) {
            java.lang.ref.WeakReference<Thread> r = ts.ownerRef;
            Thread t = r == null ? null : r.get();
            if (r != null && (t == null || !t.isAlive())) {
                dead.add(ts);
            }
        }
        for (ThreadScopes ts : dead) {
            // the thread has ended: everything it wrote happens-before isAlive() returned false
            abandoned.add(ts.abandon());
            unslot(ts);
            ts.owner = null;
            ts.ownerRef = null;
            if (!offerIdle(ts)) {
                retireLocked(ts);
            }
        }
    }

    private void retireLocked(ThreadScopes ts) {
        int n = nodeCount;
        if (retired.length < n * StatsShard.STRIDE) {
            retired = java.util.Arrays.copyOf(retired, n * StatsShard.STRIDE);
        }
        long[] row = new long[StatsShard.STRIDE];
        for (int id = 1; id < n; id++) {
            java.util.Arrays.fill(row, 0);
            ts.shard.addTo(id, row);
            merge(row, retired, id * StatsShard.STRIDE);
        }
        all.remove(ts);
    }

    private static void merge(long[] row, long[] into, int offset) {
        for (int f = 0; f < StatsShard.STRIDE; f++) {
            if (f == StatsShard.MAX_NS || f == StatsShard.MAX_ALLOCATED) {
                into[offset + f] = Math.max(into[offset + f], row[f]);
            } else {
                into[offset + f] += row[f];
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ reading

    /** @return the figures of every path now (see {@link ScopeSnapshot} for their consistency) */
    public ScopeSnapshot snapshot() {
        List<ScopeStats> rows = new ArrayList<>();
        int n;
        int distinct;
        long folded;
        boolean exact;
        synchronized (lock) {
            reapLocked();
            n = nodeCount;
            PathNode[] all = nodes;
            long[][] sums = new long[n][StatsShard.STRIDE];
            for (int id = 1; id < n; id++) {
                if (retired.length >= (id + 1) * StatsShard.STRIDE) {
                    System.arraycopy(retired, id * StatsShard.STRIDE, sums[id], 0, StatsShard.STRIDE);
                }
                for (ThreadScopes ts : this.all) {
                    ts.shard.addTo(id, sums[id]);
                }
            }
            // parents before children: ids grow in creation order and a parent is always created first
            for (int id = 2; id < n; id++) {
                addRow(rows, all[id], sums[id]);
            }
            addRow(rows, other, sums[1]);
            distinct = n - 2;
            folded = foldedKeys;
            exact = !foldOverflow;
        }
        long foldedEntries = 0;
        for (ScopeStats s : rows) {
            if (s.path().equals(OTHER)) {
                foldedEntries = s.entries();
            }
        }
        return new ScopeSnapshot(List.copyOf(rows), maxPaths, distinct, foldedEntries, folded, exact,
                outOfOrder.sum(), stale.sum(), foreign.sum(), invalidNames.sum(), tooDeep.sum(), abandoned.sum(),
                ThreadAllocation.supported());
    }

    private static void addRow(List<ScopeStats> rows, PathNode node, long[] v) {
        if (v[StatsShard.ENTRIES] == 0) {
            return;
        }
        rows.add(new ScopeStats(node.path, node.name, node.parent == null ? ScopeText.EMPTY : node.parent.path, node.depth,
                v[StatsShard.ENTRIES], v[StatsShard.TASKS], v[StatsShard.TOTAL_NS], v[StatsShard.MAX_NS],
                v[StatsShard.SELF_NS], v[StatsShard.ALLOCATED], v[StatsShard.SELF_ALLOCATED],
                v[StatsShard.MAX_ALLOCATED], v[StatsShard.NO_ALLOCATION], v[StatsShard.FORCED]));
    }

    /** @return thread states held for threads (bound, idle or of ended threads not yet reaped); for tests */
    int threadStates() {
        synchronized (lock) {
            return all.size();
        }
    }

    /** @return the current thread's open scope paths, outermost first (empty when none) */
    public List<String> openPaths() {
        ThreadScopes ts = state();
        List<String> l = new ArrayList<>();
        if (ts != null) {
            for (int i = 0; i < ts.depth; i++) {
                l.add(ts.paths[i].path);
            }
        }
        return l;
    }

    // ------------------------------------------------------------------------------------------------ wrapping

    /**
     * @return {@code task} running inside the current thread's innermost open scope path wherever it runs
     *         (see {@link MemoryScope#wrap(Runnable)}); {@code task} itself when no scope is open
     */
    public Runnable wrap(Runnable task) {
        PathNode node = currentNode();
        return node == null || task == null ? task : new ScopedTask.OfRunnable(this, node, task);
    }

    /** @return {@code task} inside the current scope path, as {@link #wrap(Runnable)} */
    public <V> java.util.concurrent.Callable<V> wrap(java.util.concurrent.Callable<V> task) {
        PathNode node = currentNode();
        return node == null || task == null ? task : new ScopedTask.OfCallable<>(this, node, task);
    }

    // ------------------------------------------------------------------------------------------------ setup

    private static boolean isVirtual(Thread t) {
        MethodHandle h = IS_VIRTUAL;
        if (h == null) {
            return false;
        }
        try {
            return (boolean) h.invokeExact(t);
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * Measures the heap bytes of one handle: 64 of them into an array, in five rounds (the first warms up), the
     * agent's own work on the thread meanwhile (a sample) left out; the smallest round counts.
     */
    private static long measureHandleBytes() {
        MemoryScope[] keep = new MemoryScope[64];
        long size = Long.MAX_VALUE;
        AgentLink.ownBytes(); // the link connects first, outside the measure
        for (int round = 0; round < 5; round++) {
            long agent = AgentLink.ownBytes();
            long before = ThreadAllocation.current();
            for (int i = 0; i < keep.length; i++) {
                keep[i] = new MemoryScope(null, null, i, null);
            }
            long after = ThreadAllocation.current();
            if (before < 0 || after < 0) {
                return 0;
            }
            if (round > 0) {
                size = Math.min(size, (after - before - (AgentLink.ownBytes() - agent)) / keep.length);
            }
        }
        return Math.max(0, size);
    }

    @Override
    public String toString() {
        return ScopeText.describeTracker(nodeCount - 2, maxPaths);
    }
}
