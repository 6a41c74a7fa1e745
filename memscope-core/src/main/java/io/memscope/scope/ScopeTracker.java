package io.memscope.scope;

import io.memscope.internal.error.Failures;
import io.memscope.events.RuntimeEvents;
import io.memscope.internal.link.AgentLink;
import io.memscope.internal.scope.OwnAllocations;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * memscope-rs's scope tracker for the JVM: per-thread stacks of named scopes, aggregated by path.
 *
 * <h2>What is measured</h2>
 * For each path ({@code request/parse}), over all threads: entries, total and longest duration, self time, and
 * the heap bytes allocated while the scope was open on its thread, with and without its children
 * ({@link ScopeSnapshot.PathStats}). Allocated bytes are exact without any agent: the thread's allocated-bytes counter
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
 *
 * <p>This class is the entry and exit of scopes and the snapshot of their figures; the paths are a
 * {@link PathTable}, the threads' states a {@link ScopeThreads}.
 */
public final class ScopeTracker {
    /** The path under which scopes are counted whose path did not fit the bound: {@code (other)}. */
    public static final String OTHER = ScopeText.OTHER;
    /** Names longer than this many characters are truncated. */
    public static final int MAX_NAME = 200;
    /** The default bound on distinct paths; the global tracker's is {@code -Dmemscope.scopes.maxPaths=N}. */
    public static final int DEFAULT_MAX_PATHS = 1024;

    /** Heap bytes of one {@link MemoryScope} handle, measured once (0 when allocation cannot be measured). */
    static final long HANDLE_BYTES = measureHandleBytes();

    static {
        ScopeText.warmUp(new ScopeTracker(2, false));
    }
    private static volatile ScopeTracker global;

    private final boolean linked;
    /** Guards the creation of paths and of thread states, and the snapshot that reads both. */
    private final Object lock = new Object();
    private final PathTable paths;
    private final ScopeThreads threads;
    private final PathNode root;
    final PathNode other;

    private final LongAdder outOfOrder = new LongAdder();
    private final LongAdder stale = new LongAdder();
    private final LongAdder foreign = new LongAdder();
    private final LongAdder tooDeep = new LongAdder();

    private ScopeTracker(int maxPaths, boolean linked) {
        if (maxPaths < 1) {
            throw ScopeText.badMaxPaths(maxPaths);
        }
        this.linked = linked;
        this.paths = new PathTable(maxPaths, lock);
        this.threads = new ScopeThreads(lock, paths);
        this.root = paths.root;
        this.other = paths.other;
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
        return paths.maxPaths();
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
            ThreadScopes ts = threads.stateOrBind();
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

    /** The current thread runs a wrapped task: enters the task's path (nested below whatever is open). */
    MemoryScope enterTask(ScopedTask task) {
        try {
            ThreadScopes ts = threads.stateOrBind();
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
        ThreadScopes ts = threads.state();
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
        ThreadScopes ts = threads.state();
        return ts == null || ts.depth == 0 ? -1 : ThreadAllocation.current();
    }

    /** Counts the thread's allocations since {@code before} as memscope's own ({@link OwnAllocations}). */
    void ownEnd(long before) {
        ThreadScopes ts = threads.state();
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
                threads.release(ts);
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

    /** The slow path of {@link #enter}: a key not in the parent's table yet; what it allocates is memscope's own. */
    private PathNode newChild(ThreadScopes ts, PathNode parent, String key) {
        if (parent == other) {
            return other; // below a folded scope everything stays folded
        }
        long before = ts.depth > 0 ? ThreadAllocation.current() : -1;
        try {
            return paths.add(parent, key);
        } finally {
            own(ts, before);
        }
    }

    // ------------------------------------------------------------------------------------------------ reading

    /** @return the figures of every path now (see {@link ScopeSnapshot} for their consistency) */
    public ScopeSnapshot snapshot() {
        List<ScopeSnapshot.PathStats> rows = new ArrayList<>();
        int n;
        int distinct;
        long folded;
        boolean exact;
        synchronized (lock) {
            threads.reapLocked();
            n = paths.count();
            PathNode[] all = paths.nodes();
            long[][] sums = threads.sumsLocked(n);
            // parents before children: ids grow in creation order and a parent is always created first
            for (int id = 2; id < n; id++) {
                addRow(rows, all[id], sums[id]);
            }
            addRow(rows, other, sums[1]);
            distinct = n - 2;
            folded = paths.foldedKeys();
            exact = paths.foldExact();
        }
        long foldedEntries = 0;
        for (ScopeSnapshot.PathStats s : rows) {
            if (s.path().equals(OTHER)) {
                foldedEntries = s.entries();
            }
        }
        return new ScopeSnapshot(List.copyOf(rows), paths.maxPaths(), distinct, foldedEntries, folded, exact,
                outOfOrder.sum(), stale.sum(), foreign.sum(), paths.invalidNames(), tooDeep.sum(), threads.abandoned(),
                ThreadAllocation.supported());
    }

    private static void addRow(List<ScopeSnapshot.PathStats> rows, PathNode node, long[] v) {
        if (v[StatsShard.ENTRIES] == 0) {
            return;
        }
        rows.add(new ScopeSnapshot.PathStats(node.path, node.name, node.parent == null ? ScopeText.EMPTY : node.parent.path, node.depth,
                v[StatsShard.ENTRIES], v[StatsShard.TASKS], v[StatsShard.TOTAL_NS], v[StatsShard.MAX_NS],
                v[StatsShard.SELF_NS], v[StatsShard.ALLOCATED], v[StatsShard.SELF_ALLOCATED],
                v[StatsShard.MAX_ALLOCATED], v[StatsShard.NO_ALLOCATION], v[StatsShard.FORCED]));
    }

    /** @return thread states held for threads (bound, idle or of ended threads not yet reaped); for tests */
    int threadStates() {
        return threads.count();
    }

    /** @return the current thread's open scope paths, outermost first (empty when none) */
    public List<String> openPaths() {
        ThreadScopes ts = threads.state();
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

    /**
     * @return {@code executor} whose tasks run inside the scope path that was open on the submitting thread when each
     *         was submitted (as {@link #wrap(Runnable)}); tasks submitted with no scope open run as they are, and every
     *         other method is {@code executor}'s
     */
    public java.util.concurrent.ExecutorService scoped(java.util.concurrent.ExecutorService executor) {
        return new ScopedExecutorService(executor, this);
    }

    /** @return {@code task} inside the current scope path, as {@link #wrap(Runnable)} */
    public <V> java.util.concurrent.Callable<V> wrap(java.util.concurrent.Callable<V> task) {
        PathNode node = currentNode();
        return node == null || task == null ? task : new ScopedTask.OfCallable<>(this, node, task);
    }

    // ------------------------------------------------------------------------------------------------ setup

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
        return ScopeText.describeTracker(paths.count() - 2, paths.maxPaths());
    }
}
