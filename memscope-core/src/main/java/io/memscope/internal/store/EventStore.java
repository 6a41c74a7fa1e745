package io.memscope.internal.store;

import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;
import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.internal.error.Failures;
import io.memscope.error.MemscopeException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The memory history: every {@link MemoryEvent} the capture paths record, kept losslessly (or, in bounded mode,
 * with an exact count of what was dropped) until cleared or drained. memscope-rs's event store, improved.
 *
 * <h2>Recording</h2>
 * {@link #record(MemoryEventType, long, long, long, int, long, int, int)} writes into the calling thread's own
 * {@link ThreadBuffer} (found in a small array by thread id, else through a {@code ThreadLocal}): primitive
 * column chunks of up to 4096 events, no shared lock, queue or counter, and no allocation except a new chunk
 * once per up to 4096 events (none at all when chunks freed by {@link #drainTo}, {@link #clear} or drop-oldest
 * are reused). The thread's id and name are taken from the current thread once, at its first event in this
 * store (a later rename is not seen).
 * Strings are interned in {@link #strings()}; a stored event holds no object: 32 bytes per event (timestamp,
 * address, size: 8 bytes each; type and context index: 4; previous size: 4) plus 136 - 232 bytes per distinct
 * (thread, site, stack, type name, variable name) combination per thread (its {@link ContextTable} entry and
 * hash slots). {@code record} never throws into the caller: failures go to {@link Failures}.
 *
 * <h2>Guarantees</h2>
 * <ul>
 * <li>{@link #size()} is exact: once {@code record} returns, {@code size()} called afterwards (by any thread
 *     that sees the return, e.g. after a join) includes the event. It sums per-thread counters, so it is also
 *     exact whenever no other thread records or removes concurrently.</li>
 * <li>{@link #snapshot()} holds every event recorded before the call, merged in timestamp order (a k-way merge
 *     of the per-thread runs into compact columns), and removes nothing. Events recorded concurrently with the
 *     call may or may not be included, but always whole.</li>
 * <li>{@link #clear()} and {@link #drainTo} cannot race with {@code record}: an event counts as recorded at one
 *     instant (the release store that publishes its thread's end position); a remover reads each thread's end
 *     and removes exactly the events below it. Every event is therefore either entirely before the cut (removed,
 *     and for a drain handed to the sink exactly once) or entirely after it (kept). None is half-written, lost or
 *     duplicated, and recording threads never wait for a remover. The cut is taken thread by thread, so an event
 *     recorded on thread A while a clear is in progress may be kept although an older-by-nanoseconds event of
 *     thread B was removed; every event whose {@code record} returned before {@code clear()} was called is
 *     removed, and every event recorded after {@code clear()} returned is kept.</li>
 * <li>Bounded mode ({@link Builder#capacityEvents}, {@link Builder#capacityBytes}): at most the capacity of
 *     events is stored. Threads reserve capacity in leases of up to 1/16 of it (at most 1024 events), so drops
 *     may begin while up to one lease per live thread is reserved but unused. When full, {@link OverflowPolicy}
 *     decides which events go; {@link #dropped()} (and {@link Snapshot#dropped()}) counts every one exactly.</li>
 * <li>A thread that ends keeps its events until they are drained or cleared, but not its buffer: the store finds
 *     ended threads through a {@code WeakReference<Thread>} per buffer, and on snapshot, drain, clear and whenever
 *     the registry ({@link BufferRegistry}) is full it moves their events (up to {@value #BURY_LIMIT} per thread;
 *     32 bytes each, with their thread id and name) into one shared "graveyard" buffer and unregisters their
 *     buffers; buffers of ended threads with more events are unregistered once drained. Meanwhile {@link #size()}
 *     and {@link #dropped()} wait (a seqlock) so that they never count a moving event twice or not at all. The
 *     {@code ThreadLocal} holds only a weak reference to the buffer, so neither an ended thread's buffer nor a
 *     discarded store is kept alive by a thread.</li>
 * </ul>
 *
 * <h2>Clock</h2>
 * Timestamps are {@link System#nanoTime()} by default, paired once, at creation, with wall-clock time
 * ({@link #wallClockEpochNanos()}, {@link #nanoTimeAtEpoch()}) so that exports can show absolute time. Measured
 * here, {@code nanoTime()} costs about 24 ns and dominates {@code record()} (see docs/benchmarks.md), so
 * {@link ClockSource#COARSE} (about 1 ms resolution, about 1 ns) is offered as a cheaper option.
 */
public final class EventStore {
    private static final long UNBOUNDED = Long.MAX_VALUE;
    private static final int UNBOUNDED_POOL_CHUNKS = 64;
    /**
     * Ended threads holding at most this many events have them moved to the graveyard (their buffer's overhead
     * matters next to so few events); larger ones keep their buffer until drained.
     */
    static final int BURY_LIMIT = Chunk.MAX_CAPACITY;

    private final StringTable strings;
    private final ClockSource clock;
    private final boolean coarse;
    private final long wallClockEpochNanos;
    private final long nanoTimeAtEpoch;

    private final ThreadLocal<WeakReference<ThreadBuffer>> local = new ThreadLocal<>();
    private static final int BY_THREAD_ID_SLOTS = 256;
    private static final int BY_THREAD_ID_MASK = BY_THREAD_ID_SLOTS - 1;

    /**
     * The handle on {@link #byThreadId}'s slots, made when a thread registers its first buffer, not with this class:
     * the agent makes its stores before the application's main, where the JVM's first {@code VarHandle} costs
     * milliseconds, and a store may never register a buffer.
     */
    private static final class Slots {
        static final VarHandle BY_THREAD_ID = MethodHandles.arrayElementVarHandle(ThreadBuffer[].class);
    }
    /**
     * Registered buffers by {@code threadId & 255}, for a lookup cheaper than the {@code ThreadLocal}: a slot
     * holds the buffer of the first live thread registered with that low thread id (taken over, by CAS, once its
     * owner ends) and is cleared when that buffer is unregistered, so it keeps nothing alive that the registry
     * does not. Threads whose slot is taken use the {@code ThreadLocal}.
     */
    private final ThreadBuffer[] byThreadId = new ThreadBuffer[BY_THREAD_ID_SLOTS];
    private final BufferRegistry registry = new BufferRegistry();
    /** Held by everything that reads chunks or removes events: snapshot, drain, clear, eviction, reaping. */
    private final ReentrantLock maintenance = new ReentrantLock();
    private final ChunkPool pool;

    private final long capacity;
    private final OverflowPolicy overflow;
    private final int leaseSize;
    /** Bounded mode: capacity neither stored nor leased to a thread. */
    private final AtomicLong free;
    /** Events removed by drop-oldest since creation or the last clear (written under the lock). */
    private volatile long evicted;
    /** Drop-newest counts of buffers already unregistered (written under the lock). */
    private volatile long reapedDropped;
    /**
     * The events of ended threads, moved out of their buffers so that those can be released before the events are
     * drained. Written only under the maintenance lock (its "owner"); null while there is none.
     */
    private ThreadBuffer graveyard;
    /**
     * Seqlock for readers that sum per-buffer counters ({@link #size()}, {@link #dropped()}): odd while events or
     * counts move between buffers (compaction, reaping), so that such a sum is retried instead of seeing an event
     * twice or not at all.
     */
    private volatile long moving;

    private EventStore(Builder b) {
        this.strings = b.strings != null ? b.strings : new StringTable();
        this.clock = b.clock;
        this.coarse = b.clock == ClockSource.COARSE;
        if (coarse) {
            CoarseClock.start();
        }
        Instant wall = Instant.now();
        this.nanoTimeAtEpoch = System.nanoTime();
        this.wallClockEpochNanos = wall.getEpochSecond() * 1_000_000_000L + wall.getNano();
        this.capacity = b.capacity;
        this.overflow = b.overflow;
        boolean bounded = capacity != UNBOUNDED;
        this.leaseSize = bounded ? (int) Math.max(1, Math.min(1024, capacity / 16)) : 0;
        this.free = bounded ? new AtomicLong(capacity) : null;
        this.pool = new ChunkPool(bounded
                ? (int) Math.min(UNBOUNDED_POOL_CHUNKS * 4L, capacity / Chunk.MAX_CAPACITY + 2)
                : UNBOUNDED_POOL_CHUNKS);
    }

    /** @return a builder for a store: unbounded, {@link ClockSource#NANO_TIME} unless told otherwise */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a new unbounded store with the default clock */
    public static EventStore unbounded() {
        return builder().build();
    }

    /** @return the store's string table: names in events are interned here */
    public StringTable strings() {
        return strings;
    }

    /** @return the clock timestamps come from */
    public ClockSource clock() {
        return clock;
    }

    /** @return the capacity in events, or {@link Long#MAX_VALUE} when unbounded */
    public long capacityEvents() {
        return capacity;
    }

    public OverflowPolicy overflowPolicy() {
        return overflow;
    }

    /** @return wall-clock time at the store's creation, nanoseconds since the Unix epoch */
    public long wallClockEpochNanos() {
        return wallClockEpochNanos;
    }

    /** @return {@link System#nanoTime()} read right after {@link #wallClockEpochNanos()}: the clock pair */
    public long nanoTimeAtEpoch() {
        return nanoTimeAtEpoch;
    }

    // ------------------------------------------------------------------------------------------ recording

    /**
     * Records one event on the current thread, timestamped now.
     *
     * @param type           what happened
     * @param address        native address, or heap sample id, or 0
     * @param size           bytes (the new size for a reallocation)
     * @param previousSize   the old size for a reallocation, else 0
     * @param siteId         allocation site id, 0 if none
     * @param stackId        stack id (call-stack hash), 0 if none
     * @param typeNameId     id in {@link #strings()} of the type name, 0 if none
     * @param variableNameId id in {@link #strings()} of the variable name, 0 if none
     */
    public void record(MemoryEventType type, long address, long size, long previousSize, int siteId, long stackId,
                       int typeNameId, int variableNameId) {
        try {
            ThreadBuffer b = buffer();
            b.put(coarse ? CoarseClock.now() : System.nanoTime(), type.code(), address, size, previousSize,
                    b.threadId, b.threadNameId, siteId, stackId, typeNameId, variableNameId);
        } catch (Throwable t) {
            Failures.report("store.record", t);
        }
    }

    /**
     * Records one event on the current thread with a timestamp the caller took (on this store's clock), for a
     * caller that read the clock already. Otherwise as {@link #record(MemoryEventType, long, long, long, int, long,
     * int, int)}.
     */
    public void recordAt(long timestampNanos, MemoryEventType type, long address, long size, long previousSize,
                         int siteId, long stackId, int typeNameId, int variableNameId) {
        try {
            ThreadBuffer b = buffer();
            b.put(timestampNanos, type.code(), address, size, previousSize, b.threadId, b.threadNameId, siteId,
                    stackId, typeNameId, variableNameId);
        } catch (Throwable t) {
            Failures.report("store.record", t);
        }
    }

    /**
     * Records an event object as it is: its timestamp, thread id and thread name are kept (strings are interned
     * in {@link #strings()}). It is stored in the current thread's buffer. Allocates only when a string is new.
     */
    public void record(MemoryEvent e) {
        try {
            ThreadBuffer b = buffer();
            b.put(e.timestampNanos(), e.type().code(), e.address(), e.size(), e.previousSize(), e.threadId(),
                    strings.internName(e.threadName()), e.siteId(), e.callStackHash(), strings.internName(e.typeName()),
                    strings.internName(e.variableName()));
        } catch (Throwable t) {
            Failures.report("store.record", t);
        }
    }

    /**
     * The current thread's buffer: first looked up in {@link #byThreadId} (slot {@code threadId & mask}, valid
     * when the buffer's owner is this very thread: a few dependent loads), else through the {@code ThreadLocal}
     * (several more, about 5 ns here), else registered.
     */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    private ThreadBuffer buffer() {
        Thread t = Thread.currentThread();
        ThreadBuffer b = byThreadId[(int) t.getId() & BY_THREAD_ID_MASK]; // racy read: owner is a final field
        if (b != null && b.isOwnedBy(t)) {
            return b;
        }
        WeakReference<ThreadBuffer> ref = local.get();
        b = ref == null ? null : ref.get();
        return b != null ? b : register();
    }

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    private ThreadBuffer register() {
        Thread t = Thread.currentThread();
        ThreadBuffer b = new ThreadBuffer(t, t.getId(), strings.internName(t.getName()), pool,
                free != null ? this : null);
        if (registry.table().full() && maintenance.tryLock()) {
            try {
                reapLocked();
            } finally {
                maintenance.unlock();
            }
        }
        registry.add(b);
        local.set(new WeakReference<>(b));
        int slot = (int) t.getId() & BY_THREAD_ID_MASK;
        ThreadBuffer taken = (ThreadBuffer) Slots.BY_THREAD_ID.getVolatile(byThreadId, slot);
        if (taken == null || taken.ownerDead()) {
            Slots.BY_THREAD_ID.compareAndSet(byThreadId, slot, taken, b); // lost a race: the ThreadLocal path serves
        }
        return b;
    }

    /** Bounded mode, on the owner thread: gets a new lease, making room or counting a drop if full. */
    boolean reserve(ThreadBuffer b) {
        long got = takeFree();
        if (got == 0 && overflow == OverflowPolicy.DROP_OLDEST && maintenance.tryLock()) {
            try {
                evictOldestLocked(leaseSize);
            } finally {
                maintenance.unlock();
            }
            got = takeFree();
        }
        if (got == 0) {
            b.countDropped();
            return false;
        }
        b.grantLease(got);
        return true;
    }

    private long takeFree() {
        while (true) {
            long f = free.get();
            if (f <= 0) {
                return 0;
            }
            long take = Math.min(leaseSize, f);
            if (free.compareAndSet(f, f - take)) {
                return take;
            }
        }
    }

    /** Under the lock: removes about {@code need} of the oldest events, oldest thread head first. */
    private void evictOldestLocked(long need) {
        BufferRegistry.Table r = registry.table();
        int n = r.count;
        long removed = 0;
        while (removed < need) {
            ThreadBuffer oldest = null;
            long oldestTimestamp = Long.MAX_VALUE;
            for (int i = 0; i < n; i++) {
                ThreadBuffer b = r.slots[i];
                long s = b.start();
                if (s < b.end()) {
                    long t = b.timestampAt(s);
                    if (oldest == null || t < oldestTimestamp) {
                        oldest = b;
                        oldestTimestamp = t;
                    }
                }
            }
            if (oldest == null) {
                break;
            }
            long s = oldest.start();
            long take = Math.min(need - removed, oldest.end() - s);
            removed += oldest.removeUpTo(s + take);
        }
        if (removed > 0) {
            evicted = evicted + removed;
            free.addAndGet(removed);
        }
    }

    // ------------------------------------------------------------------------------------------ reading

    /** @return the number of events stored: exact as soon as {@code record} returns */
    public long size() {
        while (true) {
            long seq = moving;
            if ((seq & 1) == 0) {
                BufferRegistry.Table r = registry.table();
                int n = r.count;
                long sum = 0;
                for (int i = 0; i < n; i++) {
                    sum += r.slots[i].size();
                }
                if (moving == seq) {
                    return sum;
                }
            }
            Thread.yield(); // events are moving between buffers (rare, under the lock): wait for the end
        }
    }

    /**
     * @return events not stored or removed because the bounded store was full, since creation or the last
     *         {@link #clear()}; exact
     */
    public long dropped() {
        while (true) {
            long seq = moving;
            if ((seq & 1) == 0) {
                BufferRegistry.Table r = registry.table();
                int n = r.count;
                long sum = evicted + reapedDropped;
                for (int i = 0; i < n; i++) {
                    ThreadBuffer b = r.slots[i];
                    sum += b.droppedNewest() - b.droppedBaseline;
                }
                if (moving == seq) {
                    return sum;
                }
            }
            Thread.yield(); // events are moving between buffers (rare, under the lock): wait for the end
        }
    }

    /**
     * @return an immutable view of every event recorded before the call, in timestamp order; nothing is removed
     * @throws MemscopeException (analysis, recoverable) if the store holds more than {@link Snapshot#MAX_EVENTS}
     *                           events
     */
    public Snapshot snapshot() {
        maintenance.lock();
        try {
            BufferRegistry.Cut cut = registry.cut();
            EventColumns columns = EventColumns.build(cut.buffers, cut.from, cut.to, cut.n, strings,
                    dropped(), wallClockEpochNanos, nanoTimeAtEpoch);
            reapLocked();
            return new Snapshot(columns);
        } finally {
            maintenance.unlock();
        }
    }

    /**
     * Hands every event recorded before the call to {@code sink}, in timestamp order, and removes them from the
     * store (each event exactly once: see the class comment on cuts). Events recorded meanwhile stay. Runs while
     * holding the store's maintenance lock; recording threads never wait for it. If the sink throws, nothing is
     * removed and the exception propagates (the events handed out so far will be handed out again by the next
     * drain).
     *
     * <p>Order across drains: each drain is in timestamp order, but the next drain may hand out an event whose
     * timestamp is slightly older than the last one of this drain (its thread read the clock before this drain's
     * cut and published the event after it). Writers of delta-encoded timestamps must accept negative deltas.
     *
     * @return how many events were handed out and removed
     */
    public long drainTo(EventSink sink) {
        maintenance.lock();
        try {
            BufferRegistry.Cut cut = registry.cut();
            if (cut.empty()) {
                // nothing to hand out (the agent's first and last drains of a short program): the merge's classes
                // stay unloaded
                reapLocked();
                return 0;
            }
            List<Run> runs = new ArrayList<>();
            for (int i = 0; i < cut.n; i++) {
                if (cut.to[i] > cut.from[i]) {
                    ThreadBuffer b = cut.buffers[i];
                    b.contexts.size(); // acquire: entries below the size read now cover the cut
                    Run.split(b, b.contexts.entries(), 0, cut.from[i], cut.to[i], runs);
                }
            }
            // an anonymous class, not a lambda: the agent drains a store during the application's start-up, where
            // a lambda's first link costs java.lang.invoke's bootstrap
            EventView view = new EventView();
            Merge.merge(runs.toArray(new Run[0]), new Merge.Target() {
                @Override
                public void take(Run run) {
                    Chunk c = run.chunk;
                    int i = run.index;
                    int context = c.contexts[i];
                    int k = context & ContextTable.INDEX_MASK;
                    ContextTable.Entries e = run.contexts;
                    int p = c.previous[i];
                    sink.accept(view.set(c.timestamps[i], MemoryEventType.ofCode(context >>> ContextTable.TYPE_SHIFT),
                            c.addresses[i], c.sizes[i], p >= 0 ? p : e.previousSizes[k], e.threadIds[k],
                            e.threadNames[k], e.variableNames[k], e.typeNames[k], e.stacks[k], e.sites[k]));
                }
            });
            long removed = 0;
            for (int i = 0; i < cut.n; i++) {
                removed += cut.buffers[i].removeUpTo(cut.to[i]);
            }
            if (free != null && removed > 0) {
                free.addAndGet(removed);
            }
            reapLocked();
            return removed;
        } finally {
            maintenance.unlock();
        }
    }

    /**
     * Removes every event recorded before the call (see the class comment for the exact guarantee when threads
     * record concurrently) and resets {@link #dropped()} to 0. Buffers of threads that ended are released.
     */
    public void clear() {
        maintenance.lock();
        try {
            BufferRegistry.Table r = registry.table();
            int n = r.count;
            long removed = 0;
            for (int i = 0; i < n; i++) {
                ThreadBuffer b = r.slots[i];
                removed += b.removeUpTo(b.end());
                b.droppedBaseline = b.droppedNewest();
            }
            evicted = 0;
            reapedDropped = 0;
            if (free != null && removed > 0) {
                free.addAndGet(removed);
            }
            reapLocked();
        } finally {
            maintenance.unlock();
        }
    }

    /**
     * @return bytes held by the registered threads' chunks and context tables (array payloads, without headers);
     *         chunks kept in the reuse pool after a clear or drain (at most 8 MiB unbounded) are not counted
     */
    public long retainedBytes() {
        maintenance.lock();
        try {
            BufferRegistry.Table r = registry.table();
            int n = r.count;
            long sum = 0;
            for (int i = 0; i < n; i++) {
                sum += r.slots[i].payloadBytes();
            }
            return sum;
        } finally {
            maintenance.unlock();
        }
    }

    /** @return how many thread buffers are registered (live threads, and dead ones with events left) */
    int registeredBuffers() {
        return registry.table().count;
    }

    /** @return the registered buffers (for tests in this package) */
    BufferRegistry registry() {
        return registry;
    }

    int pooledChunks() {
        return pool.size();
    }

    // ------------------------------------------------------------------------------------------ internals

    /**
     * Under the lock: moves the events of ended threads into the graveyard, then unregisters the buffers of ended
     * threads (and an empty graveyard), returning their unused lease and keeping their drop counts.
     */
    private void reapLocked() {
        BufferRegistry.Table r = registry.table();
        int n = r.count;
        boolean any = false;
        for (int i = 0; i < n && !any; i++) {
            ThreadBuffer b = r.slots[i];
            any = b.ownerDead() || (b.isGraveyard() && b.size() == 0);
        }
        if (!any) {
            return;
        }
        moving++; // odd: size() and dropped() wait
        try {
            for (int i = 0; i < n; i++) {
                ThreadBuffer b = r.slots[i];
                long size = b.size();
                if (size > 0 && size <= BURY_LIMIT && b.ownerDead()) {
                    buryLocked(b);
                }
            }
            long[] dropped = {reapedDropped};
            registry.removeIf(EventStore::releasable, b -> {
                Slots.BY_THREAD_ID.compareAndSet(byThreadId, (int) b.threadId & BY_THREAD_ID_MASK, b, null);
                dropped[0] += b.droppedNewest() - b.droppedBaseline;
                if (free != null) {
                    long unused = b.takeBackLease();
                    if (unused > 0) {
                        free.addAndGet(unused);
                    }
                }
                if (b == graveyard) {
                    graveyard = null;
                }
            });
            reapedDropped = dropped[0];
        } finally {
            moving++; // even again
        }
    }

    /** A dead thread's buffer, or the graveyard, holding no events. Under the lock. */
    private static boolean releasable(ThreadBuffer b) {
        return (b.ownerDead() || b.isGraveyard()) && b.start() == b.end();
    }

    /**
     * Under the lock, inside {@code moving}: moves the events of an ended thread's buffer to the graveyard (with
     * their contexts, so thread ids and names stay), so that the buffer, its chunks and its context table can be
     * released before the events are drained.
     */
    private void buryLocked(ThreadBuffer dead) {
        ThreadBuffer g = graveyard;
        if (g == null) {
            g = new ThreadBuffer(null, 0, 0, pool, null);
            registry.add(g);
            graveyard = g;
        }
        long from = dead.start();
        long to = dead.end();
        dead.contexts.size(); // acquire: the entries cover every event below the end read above
        ContextTable.Entries e = dead.contexts.entries();
        Chunk c = dead.chunkAt(from);
        int i = (int) (from - c.base);
        long p = from;
        for (; p < to; p++, i++) {
            if (i == c.capacity) {
                c = c.next;
                i = 0;
            }
            int context = c.contexts[i];
            int k = context & ContextTable.INDEX_MASK;
            int moved = g.contexts.indexOf(e.threadIds[k], e.threadNames[k], e.sites[k], e.stacks[k],
                    e.typeNames[k], e.variableNames[k], e.previousSizes[k]);
            if (moved < 0) {
                break; // graveyard context table full: the rest stays where it is
            }
            g.append(c.timestamps[i], (context & ~ContextTable.INDEX_MASK) | moved, c.addresses[i], c.sizes[i],
                    c.previous[i]);
        }
        dead.removeUpTo(p);
    }

    /** Configures an {@link EventStore}. */
    public static final class Builder {
        private long capacity = UNBOUNDED;
        private OverflowPolicy overflow = OverflowPolicy.DROP_NEWEST;
        private ClockSource clock = ClockSource.NANO_TIME;
        private StringTable strings;

        private Builder() {
        }

        /**
         * Interns names in {@code table} instead of a table of the store's own: stores whose events go into one
         * recording share its string ids.
         */
        public Builder strings(StringTable table) {
            this.strings = Objects.requireNonNull(table, "table");
            return this;
        }

        /** Bounds the store to {@code events} stored events (at least 1). */
        public Builder capacityEvents(long events) {
            if (events < 1) {
                throw MemscopeException.configuration("event store capacity must be at least 1 event, got "
                        + events);
            }
            this.capacity = events;
            return this;
        }

        /**
         * Bounds the store to {@code bytes} of stored events at {@value Chunk#BYTES_PER_EVENT} bytes each (the
         * fixed per-event size; context tables and the unused part of each thread's last chunk come on top).
         */
        public Builder capacityBytes(long bytes) {
            if (bytes < Chunk.BYTES_PER_EVENT) {
                throw MemscopeException.configuration("event store capacity must be at least "
                        + Chunk.BYTES_PER_EVENT + " bytes (one event), got " + bytes);
            }
            this.capacity = bytes / Chunk.BYTES_PER_EVENT;
            return this;
        }

        /** What to drop when a bounded store is full; {@link OverflowPolicy#DROP_NEWEST} by default. */
        public Builder overflow(OverflowPolicy policy) {
            this.overflow = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Where timestamps come from; {@link ClockSource#NANO_TIME} by default. */
        public Builder clock(ClockSource source) {
            this.clock = Objects.requireNonNull(source, "source");
            return this;
        }

        public EventStore build() {
            return new EventStore(this);
        }
    }
}
