package io.memscope.internal.store;

import io.memscope.recording.EventSink;
import io.memscope.recording.EventView;
import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.internal.error.Failures;
import io.memscope.error.MemscopeException;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The memory history: every {@link MemoryEvent} the capture paths record, kept losslessly (or, in bounded mode,
 * with an exact count of what was dropped) until cleared or drained. memscope-rs's event store, improved.
 *
 * <h2>Recording</h2>
 * {@link #record(MemoryEventType, long, long, long, int, long, int, int)} writes into the calling thread's own
 * {@link ThreadBuffer} (found in a small array by thread id, else through a {@code ThreadLocal}:
 * {@link BufferLookup}): primitive column chunks of up to 4096 events, no shared lock, queue or counter, and no
 * allocation except a new chunk once per up to 4096 events (none at all when chunks freed by {@link #drainTo}, {@link #clear} or drop-oldest
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
 *     decides which events go ({@link StoreCapacity}); {@link #dropped()} (and {@link Snapshot#dropped()})
 *     counts every one exactly.</li>
 * <li>A thread that ends keeps its events until they are drained or cleared, but not its buffer: the store finds
 *     ended threads through a {@code WeakReference<Thread>} per buffer, and on snapshot, drain, clear and whenever
 *     the registry ({@link BufferRegistry}) is full it moves their events ({@link EndedThreads}: up to
 *     {@value #BURY_LIMIT} per thread; 32 bytes each, with their thread id and name) into one shared "graveyard"
 *     buffer and unregisters their buffers; buffers of ended threads with more events are unregistered once drained. Meanwhile {@link #size()}
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
    /** See {@link EndedThreads#BURY_LIMIT}. */
    static final int BURY_LIMIT = EndedThreads.BURY_LIMIT;

    private final StringTable strings;
    private final ClockSource clock;
    private final boolean coarse;
    private final long wallClockEpochNanos;
    private final long nanoTimeAtEpoch;

    private final BufferLookup lookup = new BufferLookup();
    private final BufferRegistry registry = new BufferRegistry();
    /** Held by everything that reads chunks or removes events: snapshot, drain, clear, eviction, reaping. */
    private final ReentrantLock maintenance = new ReentrantLock();
    private final ChunkPool pool;

    private final long capacity;
    private final OverflowPolicy overflow;
    /** Bounded mode's capacity; null when unbounded. */
    private final StoreCapacity bounded;
    private final EndedThreads ended;

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
        boolean isBounded = capacity != UNBOUNDED;
        this.bounded = isBounded ? new StoreCapacity(capacity, overflow, registry, maintenance) : null;
        this.pool = new ChunkPool(isBounded
                ? (int) Math.min(UNBOUNDED_POOL_CHUNKS * 4L, capacity / Chunk.MAX_CAPACITY + 2)
                : UNBOUNDED_POOL_CHUNKS);
        this.ended = new EndedThreads(registry, lookup, pool, bounded);
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

    /** The current thread's buffer ({@link BufferLookup}), registered at its first event. */
    private ThreadBuffer buffer() {
        Thread t = Thread.currentThread();
        ThreadBuffer b = lookup.find(t);
        return b != null ? b : register(t);
    }

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19+
    private ThreadBuffer register(Thread t) {
        ThreadBuffer b = new ThreadBuffer(t, t.getId(), strings.internName(t.getName()), pool, bounded);
        if (registry.table().full() && maintenance.tryLock()) {
            try {
                ended.reapLocked();
            } finally {
                maintenance.unlock();
            }
        }
        registry.add(b);
        lookup.remember(b);
        return b;
    }

    // ------------------------------------------------------------------------------------------ reading

    /** @return the number of events stored: exact as soon as {@code record} returns */
    public long size() {
        return ended.size();
    }

    /**
     * @return events not stored or removed because the bounded store was full, since creation or the last
     *         {@link #clear()}; exact
     */
    public long dropped() {
        return ended.dropped(bounded == null ? 0 : bounded.evicted());
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
            ended.reapLocked();
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
                ended.reapLocked();
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
            if (bounded != null) {
                bounded.release(removed);
            }
            ended.reapLocked();
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
            if (bounded != null) {
                bounded.resetEvicted();
            }
            ended.resetDropped();
            if (bounded != null) {
                bounded.release(removed);
            }
            ended.reapLocked();
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
