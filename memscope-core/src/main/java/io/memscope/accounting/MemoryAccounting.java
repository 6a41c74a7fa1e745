package io.memscope.accounting;

import io.memscope.internal.accounting.AccountingJmx;
import io.memscope.internal.error.Failures;
import io.memscope.error.MemscopeException;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.regex.Pattern;

/**
 * Memory accounting for memory the application manages itself, after MySQL's performance schema.
 *
 * <p>The application registers {@link Instrument instruments} by name, then reports each allocation and free:
 * <pre>{@code
 * MemoryAccounting acct = MemoryAccounting.global();
 * Instrument entries = acct.instrument("memory/cache/entries");
 * Owner owner = acct.alloc(entries, bytes);      // charged to the current thread (and its user@host)
 * ...
 * acct.free(entries, bytes, owner);              // from any thread: charged back to the same owner
 * }</pre>
 *
 * <h2>Cost</h2>
 * A per-owner alloc or free by the owning thread writes two longs of that thread's plain statistics (the performance
 * schema's "safe" stat, with LOW and HIGH kept directly, see {@link Stats}) and reads a few fields, finding the
 * thread's record by thread id without a ThreadLocal lookup; while the thread stays between its own low and high
 * watermarks no shared memory is written at all. Only when a thread pushes its own watermark does the delta
 * travel up the carry chain thread &rarr; account &rarr; user and host &rarr; global (CAS on shared capacities). Global
 * instruments update shared atomics on every call. Alloc and free allocate nothing.
 *
 * <h2>Threads</h2>
 * Thread rows are exact. A free from a thread other than the owner is queued to the owner and applied by it on
 * its next call (readers include the queue), so that the owner's rows stay exact. When a thread ends, its
 * statistics are aggregated into its account (or the global row when it had no user and no host); the registry
 * notices ended threads when tables are read, when truncating, and when new threads arrive.
 *
 * <h2>Bad input</h2>
 * Negative or absurd sizes (above {@link #MAX_SIZE}), freeing more than an owner holds, a null or foreign owner
 * and an instrument of another registry are never thrown into the application: the call records nothing and
 * the instrument's COUNT_ANOMALIES grows (calls with no usable instrument count on the reserved instrument
 * {@value #INVALID_INSTRUMENT}). In strict mode ({@link #setStrict(boolean)}, or {@code -Dmemscope.strict=true}
 * for the whole JVM) they throw a {@link MemscopeException} instead.
 *
 * <p>Thread-safe. See docs/accounting.md.
 */
public final class MemoryAccounting {
    /**
     * The MBean name of the {@link #global()} registry, {@code io.memscope:type=Accounting} ({@link AccountingMBean};
     * {@code memscope accounting <pid>} reads it). Joined at run time so that the agent's shading, which relocates
     * string constants starting with {@code io.memscope}, leaves it as it is.
     */
    public static final String MBEAN_NAME = String.join(".", "io", "memscope:type=Accounting");
    /** The maximum number of instruments per registry, including the reserved {@value #INVALID_INSTRUMENT}. */
    public static final int MAX_INSTRUMENTS = 1024;
    /** The largest size accepted by one call, 2^48 bytes (256 TiB); larger sizes are anomalies. */
    public static final long MAX_SIZE = 1L << 48;
    /** Reserved instrument (index 0) counting anomalies of calls that gave no usable instrument. */
    public static final String INVALID_INSTRUMENT = "memory/memscope/invalid_instrument";

    private static final Pattern PART = Pattern.compile("[A-Za-z0-9_.:$-]+");
    private static final int MAX_NAME = 192;
    private static volatile MemoryAccounting defaultRegistry;

    private final Object lock = new Object();
    private final Instrument[] instruments = new Instrument[MAX_INSTRUMENTS];
    private volatile int instrumentCount;
    private final ConcurrentHashMap<String, Instrument> byName = new ConcurrentHashMap<>();
    final Node globalNode = new Node(Node.Kind.GLOBAL, "global", null, null);
    private final ConcurrentHashMap<String, Node> users = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Node> hosts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Node> accounts = new ConcurrentHashMap<>();
    private final ThreadLocal<ThreadRecord> current = ThreadLocal.withInitial(this::register);
    /**
     * A direct-mapped cache in front of {@link #current}: slot {@code threadId & (RECORD_SLOTS - 1)} holds the record
     * of one live thread, found by {@link #record()} with an array load and an identity check instead of a
     * ThreadLocal lookup. Written only when a thread finds its slot empty (its first calls) and when the reaper
     * drops an ended thread's record, so threads only read it on the hot path; a thread whose slot is taken by
     * another live thread uses the ThreadLocal.
     */
    final ThreadRecord[] recordSlots = new ThreadRecord[RECORD_SLOTS];
    static final int RECORD_SLOTS = 512;
    private final ArrayList<ThreadRecord> records = new ArrayList<>(); // guarded by lock
    private int reapThreshold = 64;                                     // guarded by lock
    private final CopyOnWriteArrayList<BudgetListener> listeners = new CopyOnWriteArrayList<>();
    private final Instrument invalid;
    volatile int generation;
    private volatile boolean enabled = true;
    private volatile boolean strict;
    /** Watermark deltas that left a thread stat (slow path only); for tests of the "no shared write" promise. */
    final java.util.concurrent.atomic.LongAdder carries = new java.util.concurrent.atomic.LongAdder();

    /** A new, empty registry (tests, or an application that wants several). Most code uses {@link #global()}. */
    public MemoryAccounting() {
        invalid = new Instrument(this, INVALID_INSTRUMENT, 0, true);
        instruments[0] = invalid;
        byName.put(INVALID_INSTRUMENT, invalid);
        instrumentCount = 1;
    }

    /**
     * The process-wide registry. Created on first use, when it also registers its JMX MBean as
     * {@code io.memscope:type=Accounting} in the platform MBean server (so that {@code memscope accounting <pid>},
     * JConsole and VisualVM can read it); under the memscope agent, its tables also go into the recording (at the
     * end of the capture and every few seconds while it runs).
     */
    public static MemoryAccounting global() {
        MemoryAccounting r = defaultRegistry;
        if (r == null) {
            synchronized (MemoryAccounting.class) {
                r = defaultRegistry;
                if (r == null) {
                    r = new MemoryAccounting();
                    defaultRegistry = r;
                    AccountingJmx.register(r, AccountingJmx.OBJECT_NAME);
                    AccountingToAgent.register(r);
                }
            }
        }
        return r;
    }

    // ------------------------------------------------------------------------------------------- instruments

    /**
     * Registers (or returns the already registered) per-owner instrument {@code name}.
     *
     * @param name {@code memory/<component>/<what>}: parts separated by '/', each of letters, digits and
     *             {@code _ . : $ -}; at least three parts, the first {@code memory}; at most 192 characters
     * @throws MemscopeException (configuration) for a bad name, a name already registered as global, or more
     *                           than {@link #MAX_INSTRUMENTS} instruments
     */
    public Instrument instrument(String name) {
        return register(name, false);
    }

    /** Registers (or returns) a global instrument: no owner, shared atomic statistics. Same rules as {@link #instrument}. */
    public Instrument globalInstrument(String name) {
        return register(name, true);
    }

    /** @return the instrument with this name, or null */
    public Instrument find(String name) {
        Instrument i = name == null ? null : byName.get(name);
        return i == invalid ? null : i;
    }

    /** @return every registered instrument except the reserved one, in registration order */
    public List<Instrument> instruments() {
        int n = instrumentCount;
        List<Instrument> out = new ArrayList<>(n);
        for (int i = 1; i < n; i++) {
            out.add(instruments[i]);
        }
        return out;
    }

    private Instrument register(String name, boolean global) {
        validateName(name);
        Instrument existing = byName.get(name);
        if (existing == null) {
            synchronized (lock) {
                existing = byName.get(name);
                if (existing == null) {
                    int n = instrumentCount;
                    if (n >= MAX_INSTRUMENTS) {
                        throw MemscopeException.configuration("cannot register instrument " + name + ": the maximum of "
                                + MAX_INSTRUMENTS + " instruments per registry is reached");
                    }
                    Instrument created = new Instrument(this, name, n, global);
                    instruments[n] = created;
                    byName.put(name, created);
                    instrumentCount = n + 1;
                    return created;
                }
            }
        }
        if (existing.global != global || existing == invalid) {
            throw MemscopeException.configuration("instrument " + name + " is already registered as "
                    + (existing.global ? "global" : "per-owner") + "; cannot register it as "
                    + (global ? "global" : "per-owner"));
        }
        return existing;
    }

    static void validateName(String name) {
        if (name == null) {
            throw MemscopeException.configuration("instrument name is null; expected memory/<component>/<what>");
        }
        if (name.length() > MAX_NAME) {
            throw MemscopeException.configuration("instrument name is " + name.length() + " characters long, more than "
                    + MAX_NAME + ": " + name.substring(0, 40) + "...");
        }
        String[] parts = name.split("/", -1);
        if (parts.length < 3) {
            throw MemscopeException.configuration("instrument name '" + name
                    + "' has " + parts.length + " part(s); expected memory/<component>/<what>");
        }
        if (!parts[0].equals("memory")) {
            throw MemscopeException.configuration("instrument name '" + name + "' starts with '" + parts[0]
                    + "'; expected memory/<component>/<what>");
        }
        for (int i = 1; i < parts.length; i++) {
            String what = i == 1 ? "component" : "what";
            if (parts[i].isEmpty()) {
                throw MemscopeException.configuration("instrument name '" + name + "' has an empty " + what
                        + " part (part " + (i + 1) + ")");
            }
            if (!PART.matcher(parts[i]).matches()) {
                throw MemscopeException.configuration("instrument name '" + name + "': " + what + " part '" + parts[i]
                        + "' may only hold letters, digits and _ . : $ -");
            }
        }
    }

    // ------------------------------------------------------------------------------------------- switches

    /** Turns all recording of this registry on or off (off: every call is one branch and records nothing). */
    public void setEnabled(boolean value) {
        enabled = value;
    }

    public boolean isEnabled() {
        return enabled;
    }

    /** Turns accounting for the current thread on or off; frees of memory it already recorded are still recorded. */
    public void setThreadEnabled(boolean value) {
        record().enabled = value;
    }

    /**
     * Turns accounting for {@code thread} on or off, from any thread; effective for its next call. A thread this
     * registry has not seen yet starts enabled whatever this says.
     *
     * @return false if the registry does not know the thread (it never called it, or it ended)
     */
    public boolean setThreadEnabled(Thread thread, boolean value) {
        long id = ThreadIds.of(thread);
        synchronized (lock) {
            for (ThreadRecord rec : records) {
                if (rec.threadId == id && rec.thread.get() == thread) {
                    rec.enabled = value;
                    return true;
                }
            }
        }
        return false;
    }

    public boolean isThreadEnabled() {
        return record().enabled;
    }

    /** Strict mode for this registry: bad calls throw instead of being counted (also on with {@code -Dmemscope.strict=true}). */
    public void setStrict(boolean value) {
        strict = value;
    }

    // ------------------------------------------------------------------------------------------- owners

    /**
     * Sets the current thread's user and host until the returned scope is closed. Either may be null (none).
     * See {@link OwnerScope}.
     */
    public OwnerScope scope(String user, String host) {
        ThreadRecord rec = record();
        Owner before = rec.segment;
        switchAccount(rec, account(user, host));
        return new OwnerScope(this, rec, before.account);
    }

    /** @return the owner the current thread charges now (its current account) */
    public Owner currentOwner() {
        return record().segment;
    }

    void closeScope(ThreadRecord rec, Node previous) {
        ThreadRecord now = record();
        if (now != rec) {
            anomaly(invalid, "OwnerScope closed on thread " + now.threadName() + ", opened on " + rec.threadName());
            return;
        }
        switchAccount(rec, previous);
    }

    private Node account(String user, String host) {
        if (user == null && host == null) {
            return null;
        }
        String key = (user == null ? "" : user) + '\u0000' + (host == null ? "" : host);
        Node a = accounts.get(key);
        if (a != null) {
            return a;
        }
        Node u = user == null ? null : users.computeIfAbsent(user, n -> new Node(Node.Kind.USER, n, null, null));
        Node h = host == null ? null : hosts.computeIfAbsent(host, n -> new Node(Node.Kind.HOST, n, null, null));
        return accounts.computeIfAbsent(key,
                k -> new Node(Node.Kind.ACCOUNT, (user == null ? "" : user) + "@" + (host == null ? "" : host), u, h));
    }

    private void switchAccount(ThreadRecord rec, Node account) {
        Owner old = rec.segment;
        if (old.account == account) {
            return;
        }
        rec.segment = new Owner(this, rec, account);
        retire(rec, old);
    }

    /** The current thread's record (registered on first use). */
    private ThreadRecord record() {
        Thread t = Thread.currentThread();
        long id = ThreadIds.of(t);
        ThreadRecord r = recordSlots[(int) id & (RECORD_SLOTS - 1)];
        if (r != null && r.isThread(t, id)) {
            return r;
        }
        return recordSlow(id);
    }

    private ThreadRecord recordSlow(long id) {
        ThreadRecord r = current.get();
        int slot = (int) id & (RECORD_SLOTS - 1);
        if (recordSlots[slot] == null) {
            synchronized (lock) {
                if (recordSlots[slot] == null) {
                    recordSlots[slot] = r;
                }
            }
        }
        return r;
    }

    private ThreadRecord register() {
        ThreadRecord rec = new ThreadRecord(Thread.currentThread(), generation);
        rec.segment = new Owner(this, rec, null);
        synchronized (lock) {
            if (records.size() >= reapThreshold) {
                reapLocked();
                reapThreshold = Math.max(64, records.size() * 2);
            }
            records.add(rec);
        }
        return rec;
    }

    /** Aggregates the stats of ended threads into their accounts. Caller holds {@link #lock}. */
    private void reapLocked() {
        int kept = 0;
        for (int i = 0; i < records.size(); i++) {
            ThreadRecord rec = records.get(i);
            if (rec.ended()) {
                retire(rec, rec.segment);
                int slot = (int) rec.threadId & (RECORD_SLOTS - 1);
                if (recordSlots[slot] == rec) {
                    recordSlots[slot] = null;
                }
            } else {
                records.set(kept++, rec);
            }
        }
        while (records.size() > kept) {
            records.remove(records.size() - 1);
        }
    }

    /**
     * Moves an owner's thread stats into its account (or the global row): the performance schema's aggregate on thread
     * end or change of user. Run by the owner thread itself, or by a reader once the thread has ended.
     */
    private void retire(ThreadRecord rec, Owner seg) {
        // Under the owner's lock from start to end: an operation from another thread either lands in the inbox
        // before (and is replayed here) or sees the stats already in the account (never an over-free in between).
        synchronized (seg) {
            if (seg.retired) {
                return;
            }
            seg.retired = true;
            long[] pending = seg.takeInbox();
            if (rec.generation != generation) {
                rebaseLocal(rec, seg);
            }
            if (pending != null) {
                replay(rec, seg, pending);
            }
            long[] s = seg.stats;
            Node target = seg.account == null ? globalNode : seg.account;
            long[] one = new long[Stats.WIDTH];
            for (int k = 0; Stats.holds(s, Stats.threadBase(k)); k++) {
                Stats.toCapacities(s, Stats.threadBase(k), one, 0);
                target.aggregate(k, one, 0);
            }
            seg.releaseStats();
        }
    }

    // ------------------------------------------------------------------------------------------- operations

    /**
     * Records an allocation of {@code size} bytes under {@code instrument}, charged to the current thread.
     *
     * @return the owner charged: pass it to {@link #free}; {@link Owner#GLOBAL} for a global instrument;
     *         {@link Owner#NONE} when nothing was recorded (disabled, or a bad call)
     */
    public Owner alloc(Instrument instrument, long size) {
        // Fast path, kept small so that it inlines: a per-owner instrument, enabled, a sane size, nothing queued.
        if (instrument != null && instrument.registry == this && instrument.enabled && !instrument.global
                && size >= 0 && size <= MAX_SIZE && enabled) {
            ThreadRecord rec = record();
            Owner seg = rec.segment;
            if (rec.enabled && rec.generation == generation && !seg.remotePending) {
                long[] s = seg.stats;
                int index = instrument.index;
                int b = Stats.threadBase(index);
                if (Stats.holds(s, b)) {
                    long[] d = rec.delta;
                    if (Stats.countAlloc(s, b, 1, size, d) != 0) {
                        carry(seg.account, index, Stats.ALLOC_COUNT_CAP, Stats.ALLOC_SIZE_CAP, d[0], d[1], true);
                    }
                    if (instrument.budget != null || seg.account != null) {
                        charge(instrument, seg.account, size);
                    }
                    return seg;
                }
            }
        }
        return allocSlow(instrument, size);
    }

    private Owner allocSlow(Instrument instrument, long size) {
        if (instrument == null || instrument.registry != this) {
            return badInstrument(instrument, "alloc");
        }
        if (!instrument.enabled || !enabled) {
            return Owner.NONE;
        }
        if (size < 0 || size > MAX_SIZE) {
            return badSize(instrument, "alloc", size);
        }
        if (instrument.global) {
            Stats.sharedAlloc(globalNode.chunk(instrument.index), Node.base(instrument.index), 1, size, null);
            Budget b = instrument.budget;
            if (b != null) {
                b.add(size);
            }
            return Owner.GLOBAL;
        }
        ThreadRecord rec = record();
        if (!rec.enabled) {
            return Owner.NONE;
        }
        Owner seg = prologue(rec);
        localAlloc(rec, seg, instrument.index, 1, size);
        charge(instrument, seg.account, size);
        return seg;
    }

    /**
     * Like {@link #alloc} but refuses, recording nothing, when a budget of the instrument, the current user or
     * the current host would go over its limit.
     *
     * @return the owner charged, or null when a budget refused
     */
    public Owner tryAlloc(Instrument instrument, long size) {
        if (instrument == null || instrument.registry != this) {
            return badInstrument(instrument, "tryAlloc");
        }
        if (!instrument.enabled || !enabled) {
            return Owner.NONE;
        }
        if (size < 0 || size > MAX_SIZE) {
            return badSize(instrument, "tryAlloc", size);
        }
        Budget ib = instrument.budget;
        if (instrument.global) {
            if (ib != null && !ib.tryReserve(size)) {
                return null;
            }
            Stats.sharedAlloc(globalNode.chunk(instrument.index), Node.base(instrument.index), 1, size, null);
            return Owner.GLOBAL;
        }
        ThreadRecord rec = record();
        if (!rec.enabled) {
            return Owner.NONE;
        }
        Owner seg = prologue(rec);
        Node acc = seg.account;
        Budget ub = acc == null || acc.user == null ? null : acc.user.budget;
        Budget hb = acc == null || acc.host == null ? null : acc.host.budget;
        if (ib != null && !ib.tryReserve(size)) {
            return null;
        }
        if (ub != null && !ub.tryReserve(size)) {
            if (ib != null) {
                ib.add(-size);
            }
            return null;
        }
        if (hb != null && !hb.tryReserve(size)) {
            if (ib != null) {
                ib.add(-size);
            }
            if (ub != null) {
                ub.add(-size);
            }
            return null;
        }
        localAlloc(rec, seg, instrument.index, 1, size);
        return seg;
    }

    /**
     * Records a free of {@code size} bytes under {@code instrument}, charged to {@code owner} (the value
     * {@link #alloc} returned), from any thread. {@link Owner#NONE} records nothing.
     */
    public void free(Instrument instrument, long size, Owner owner) {
        // Fast path: the owner thread frees under its current account, nothing queued, enough held.
        if (instrument != null && owner != null && owner.registry == this && instrument.registry == this
                && size >= 0 && size <= MAX_SIZE && !instrument.global
                && owner.record.isCurrentThread()) {
            ThreadRecord rec = owner.record;
            if (rec.segment == owner && rec.generation == generation && !owner.remotePending) {
                long[] s = owner.stats;
                int index = instrument.index;
                int b = Stats.threadBase(index);
                if (Stats.holds(s, b) && s[b + Stats.ALLOC_COUNT] - s[b + Stats.FREE_COUNT] >= 1
                        && s[b + Stats.ALLOC_SIZE] - s[b + Stats.FREE_SIZE] >= size) {
                    long[] d = rec.delta;
                    if (Stats.countFree(s, b, 1, size, d) != 0) {
                        carry(owner.account, index, Stats.FREE_COUNT_CAP, Stats.FREE_SIZE_CAP, d[0], d[1], true);
                    }
                    if (instrument.budget != null || owner.account != null) {
                        charge(instrument, owner.account, -size);
                    }
                    return;
                }
            }
        }
        freeSlow(instrument, size, owner);
    }

    private void freeSlow(Instrument instrument, long size, Owner owner) {
        if (instrument == null || instrument.registry != this) {
            badInstrument(instrument, "free");
            return;
        }
        if (owner == Owner.NONE) {
            return;
        }
        if (size < 0 || size > MAX_SIZE) {
            badSize(instrument, "free", size);
            return;
        }
        if (owner == Owner.GLOBAL || instrument.global) {
            if (owner != Owner.GLOBAL || !instrument.global) {
                badOwner(instrument, "free", owner);
                return;
            }
            globalFree(instrument, size);
            return;
        }
        if (owner == null || owner.registry != this) {
            badOwner(instrument, "free", owner);
            return;
        }
        if (owner.record.isCurrentThread() && owner.record.segment == owner) {
            ThreadRecord rec = owner.record;
            prologue(rec);
            if (localFree(rec, owner, instrument.index, 1, size)) {
                charge(instrument, owner.account, -size);
            }
            return;
        }
        if (elsewhere(owner, instrument, false, size)) {
            charge(instrument, owner.account, -size);
        }
    }

    /**
     * Records a reallocation from {@code oldSize} to {@code newSize} bytes: a free and an alloc charged to the
     * same owner (from any thread). A {@link Owner#NONE} owner makes it an alloc by the current thread.
     *
     * @return the owner to use from now on (the same owner, or the current thread's when it was NONE)
     */
    public Owner realloc(Instrument instrument, long oldSize, long newSize, Owner owner) {
        if (instrument == null || instrument.registry != this) {
            return badInstrument(instrument, "realloc");
        }
        if (owner == Owner.NONE) {
            return alloc(instrument, newSize);
        }
        if (oldSize < 0 || oldSize > MAX_SIZE || newSize < 0 || newSize > MAX_SIZE) {
            badSize(instrument, "realloc", oldSize < 0 || oldSize > MAX_SIZE ? oldSize : newSize);
            return owner;
        }
        if (owner == Owner.GLOBAL || instrument.global) {
            if (owner != Owner.GLOBAL || !instrument.global) {
                return badOwner(instrument, "realloc", owner);
            }
            if (globalFree(instrument, oldSize)) {
                alloc(instrument, newSize);
            }
            return owner;
        }
        if (owner == null || owner.registry != this) {
            return badOwner(instrument, "realloc", owner);
        }
        if (owner.record.isCurrentThread() && owner.record.segment == owner) {
            ThreadRecord rec = owner.record;
            prologue(rec);
            if (localFree(rec, owner, instrument.index, 1, oldSize)) {
                localAlloc(rec, owner, instrument.index, 1, newSize);
                charge(instrument, owner.account, newSize - oldSize);
            }
            return owner;
        }
        if (elsewhere(owner, instrument, false, oldSize)) {
            elsewhere(owner, instrument, true, newSize);
            charge(instrument, owner.account, newSize - oldSize);
        }
        return owner;
    }

    /**
     * Moves {@code size} bytes from {@code owner} to the current thread (the performance schema's memory_claim): a free
     * charged to the old owner and an alloc charged to the current thread, when they differ.
     *
     * @return the new owner (the current thread's)
     */
    public Owner claim(Instrument instrument, long size, Owner owner) {
        if (instrument == null || instrument.registry != this) {
            return badInstrument(instrument, "claim");
        }
        if (instrument.global) {
            return owner == Owner.GLOBAL ? owner : badOwner(instrument, "claim", owner);
        }
        if (owner != Owner.NONE && (owner == null || owner == Owner.GLOBAL || owner.registry != this)) {
            return badOwner(instrument, "claim", owner);
        }
        if (size < 0 || size > MAX_SIZE) {
            return badSize(instrument, "claim", size);
        }
        ThreadRecord rec = record();
        Owner seg = prologue(rec);
        if (owner == seg) {
            return seg;
        }
        if (owner != Owner.NONE) {
            free(instrument, size, owner);
        }
        if (!rec.enabled || !instrument.enabled || !enabled) {
            return Owner.NONE;
        }
        localAlloc(rec, seg, instrument.index, 1, size);
        charge(instrument, seg.account, size);
        if (owner != Owner.NONE && io.memscope.internal.link.AgentLink.active()) {
            // ownership moved to this thread: a MOVE event in the agent's recording
            io.memscope.internal.link.AgentLink.move(instrument.name(), 0, size, owner.threadId);
        }
        return seg;
    }

    // ------------------------------------------------------------------------------------------- internals

    private Owner prologue(ThreadRecord rec) {
        if (rec.generation != generation) {
            rebaseLocal(rec, rec.segment);
        }
        Owner seg = rec.segment;
        if (seg.remotePending) {
            long[] pending;
            synchronized (seg) {
                pending = seg.takeInbox();
            }
            if (pending != null) {
                replay(rec, seg, pending);
            }
        }
        return seg;
    }

    private void rebaseLocal(ThreadRecord rec, Owner seg) {
        int g = generation;
        long[] s = seg.stats;
        for (int b = Stats.threadBase(0); Stats.holds(s, b); b += Stats.WIDTH) {
            Stats.rebase(s, b);
        }
        rec.generation = g;
    }

    private void replay(ThreadRecord rec, Owner seg, long[] ops) {
        for (int i = 0; i < ops.length; i += 3) {
            int index = (int) (ops[i] >>> 1);
            if ((ops[i] & 1) != 0) {
                localAlloc(rec, seg, index, ops[i + 1], ops[i + 2]);
            } else {
                localFree(rec, seg, index, ops[i + 1], ops[i + 2]);
            }
        }
    }

    private void localAlloc(ThreadRecord rec, Owner seg, int index, long count, long size) {
        long[] s = seg.stats;
        int b = Stats.threadBase(index);
        if (!Stats.holds(s, b)) {
            s = seg.grow(index);
        }
        long[] d = rec.delta;
        if (Stats.countAlloc(s, b, count, size, d) != 0) {
            carry(seg.account, index, Stats.ALLOC_COUNT_CAP, Stats.ALLOC_SIZE_CAP, d[0], d[1], true);
        }
    }

    /** @return false (and an anomaly) if the owner does not hold that much */
    private boolean localFree(ThreadRecord rec, Owner seg, int index, long count, long size) {
        long[] s = seg.stats;
        int b = Stats.threadBase(index);
        if (!Stats.holds(s, b) || s[b + Stats.ALLOC_COUNT] - s[b + Stats.FREE_COUNT] < count
                || s[b + Stats.ALLOC_SIZE] - s[b + Stats.FREE_SIZE] < size) {
            overFree(instruments[index], seg, count, size, !Stats.holds(s, b) ? 0 : s[b + Stats.ALLOC_SIZE] - s[b + Stats.FREE_SIZE]);
            return false;
        }
        long[] d = rec.delta;
        if (Stats.countFree(s, b, count, size, d) != 0) {
            carry(seg.account, index, Stats.FREE_COUNT_CAP, Stats.FREE_SIZE_CAP, d[0], d[1], true);
        }
        return true;
    }

    /**
     * An operation on an owner that is not the calling thread's current one: queued to the owner thread while it
     * lives, else charged to the owner's account (its stats were aggregated there).
     *
     * @return false (and an anomaly) if it was refused
     */
    private boolean elsewhere(Owner owner, Instrument instrument, boolean alloc, long size) {
        synchronized (owner) {
            if (!owner.retired) {
                owner.append(instrument.index, alloc, 1, size);
                return true;
            }
        }
        Node node = owner.account == null ? globalNode : owner.account;
        int index = instrument.index;
        AtomicLongArray a = node.chunk(index);
        int b = Node.base(index);
        long[] d = new long[2];
        if (alloc) {
            if (Stats.sharedAlloc(a, b, 1, size, d) != 0 && owner.account != null) {
                carry(owner.account, index, Stats.ALLOC_COUNT_CAP, Stats.ALLOC_SIZE_CAP, d[0], d[1], false);
            }
            return true;
        }
        long held = held(a, b, Stats.ALLOC_SIZE, Stats.FREE_SIZE);
        if (held(a, b, Stats.ALLOC_COUNT, Stats.FREE_COUNT) < 1 || held < size) {
            overFree(instrument, owner, 1, size, held);
            return false;
        }
        if (Stats.sharedFree(a, b, 1, size, d) != 0 && owner.account != null) {
            carry(owner.account, index, Stats.FREE_COUNT_CAP, Stats.FREE_SIZE_CAP, d[0], d[1], false);
        }
        return true;
    }

    /**
     * ALLOC - FREE of a shared stat, never under-estimated by a concurrent update: writers add ALLOC before FREE
     * (aggregation adds slots in order), so reading FREE first can only see ALLOC at least as new.
     */
    private static long held(AtomicLongArray a, int b, int alloc, int free) {
        long f = a.get(b + free);
        return a.get(b + alloc) - f;
    }

    private boolean globalFree(Instrument instrument, long size) {
        AtomicLongArray a = globalNode.chunk(instrument.index);
        int b = Node.base(instrument.index);
        long held = held(a, b, Stats.ALLOC_SIZE, Stats.FREE_SIZE);
        if (held(a, b, Stats.ALLOC_COUNT, Stats.FREE_COUNT) < 1 || held < size) {
            overFree(instrument, Owner.GLOBAL, 1, size, held);
            return false;
        }
        Stats.sharedFree(a, b, 1, size, null);
        Budget bud = instrument.budget;
        if (bud != null) {
            bud.add(-size);
        }
        return true;
    }

    /**
     * The performance schema's carry chain: a watermark delta that a thread stat could not absorb goes to its account,
     * then to the user (which absorbs what it can; the rest stops there) and to the host, and what the host cannot
     * absorb goes to the global row. Without an account the delta goes to the global row directly.
     *
     * @param includeAccount false when the delta comes from the account's own stat (start above it)
     */
    private void carry(Node account, int index, int countCap, int sizeCap, long countDelta, long sizeDelta,
                       boolean includeAccount) {
        carries.increment();
        int b = Node.base(index);
        if (account != null) {
            if (includeAccount) {
                AtomicLongArray a = account.chunk(index);
                countDelta = Stats.absorb(a, b + countCap, countDelta);
                sizeDelta = Stats.absorb(a, b + sizeCap, sizeDelta);
                if ((countDelta | sizeDelta) == 0) {
                    return;
                }
            }
            if (account.user != null) {
                AtomicLongArray u = account.user.chunk(index);
                Stats.absorb(u, b + countCap, countDelta);
                Stats.absorb(u, b + sizeCap, sizeDelta);
            }
            if (account.host != null) {
                AtomicLongArray h = account.host.chunk(index);
                countDelta = Stats.absorb(h, b + countCap, countDelta);
                sizeDelta = Stats.absorb(h, b + sizeCap, sizeDelta);
                if ((countDelta | sizeDelta) == 0) {
                    return;
                }
            }
        }
        AtomicLongArray g = globalNode.chunk(index);
        Stats.absorb(g, b + countCap, countDelta);
        Stats.absorb(g, b + sizeCap, sizeDelta);
    }

    private static void charge(Instrument instrument, Node account, long delta) {
        Budget b = instrument.budget;
        if (b != null) {
            b.add(delta);
        }
        if (account != null) {
            Node u = account.user;
            if (u != null && (b = u.budget) != null) {
                b.add(delta);
            }
            Node h = account.host;
            if (h != null && (b = h.budget) != null) {
                b.add(delta);
            }
        }
    }

    // ------------------------------------------------------------------------------------------- anomalies

    private Owner badInstrument(Instrument instrument, String op) {
        anomaly(invalid, op + " with " + (instrument == null ? "a null instrument"
                : "instrument " + instrument.name + " registered in another registry"));
        return Owner.NONE;
    }

    private Owner badSize(Instrument instrument, String op, long size) {
        anomaly(instrument, op + " of " + size + " bytes on " + instrument.name + ": size must be 0.." + MAX_SIZE);
        return Owner.NONE;
    }

    private Owner badOwner(Instrument instrument, String op, Owner owner) {
        String what = owner == null ? "a null owner"
                : owner == Owner.GLOBAL ? "owner GLOBAL on per-owner instrument"
                : owner.registry == null ? "a per-owner owner on global instrument"
                : owner.registry != this ? "an owner of another registry" : "owner " + owner;
        anomaly(instrument, op + " on " + instrument.name + " with " + what);
        return Owner.NONE;
    }

    private void overFree(Instrument instrument, Owner owner, long count, long size, long held) {
        anomaly(instrument, "free of " + size + " bytes (" + count + " block(s)) on " + instrument.name + " by "
                + owner + " which holds only " + held + " bytes");
    }

    private void anomaly(Instrument instrument, String message) {
        long n = instrument.anomalies.incrementAndGet();
        if (strict || Failures.isStrict()) {
            throw MemscopeException.memory("memscope accounting: " + message);
        }
        if (n == 1) {
            Failures.report("accounting", MemscopeException.memory(message + " (further anomalies on this instrument are only counted)"));
        }
    }

    // ------------------------------------------------------------------------------------------- budgets

    /** Limits the bytes of {@code instrument} over all owners; replaces an earlier budget. */
    public Budget setBudget(Instrument instrument, long limitBytes) {
        if (instrument == null || instrument.registry != this) {
            throw MemscopeException.configuration("budget on an instrument of another registry: " + instrument);
        }
        checkLimit(limitBytes, instrument.name);
        long used = 0;
        for (SummaryRow r : summary(SummaryTable.GLOBAL)) {
            if (r.eventName().equals(instrument.name)) {
                used = r.currentBytes();
            }
        }
        Budget b = new Budget(this, Budget.Kind.INSTRUMENT, instrument.name, limitBytes, used);
        instrument.budget = b;
        return b;
    }

    /** Limits the bytes of all per-owner instruments charged to {@code user}; replaces an earlier budget. */
    public Budget setUserBudget(String user, long limitBytes) {
        checkLimit(limitBytes, "user " + user);
        Node u = users.computeIfAbsent(user, n -> new Node(Node.Kind.USER, n, null, null));
        Budget b = new Budget(this, Budget.Kind.USER, user, limitBytes, usedBy(SummaryTable.USER, user));
        u.budget = b;
        return b;
    }

    /** Limits the bytes of all per-owner instruments charged to {@code host}; replaces an earlier budget. */
    public Budget setHostBudget(String host, long limitBytes) {
        checkLimit(limitBytes, "host " + host);
        Node h = hosts.computeIfAbsent(host, n -> new Node(Node.Kind.HOST, n, null, null));
        Budget b = new Budget(this, Budget.Kind.HOST, host, limitBytes, usedBy(SummaryTable.HOST, host));
        h.budget = b;
        return b;
    }

    /** @return every budget set now: instruments' (in registration order), then users', then hosts' */
    public List<Budget> budgets() {
        List<Budget> out = new java.util.ArrayList<>();
        for (Instrument i : instruments()) {
            Budget b = i.budget;
            if (b != null) {
                out.add(b);
            }
        }
        for (Node n : users.values()) {
            if (n.budget != null) {
                out.add(n.budget);
            }
        }
        for (Node n : hosts.values()) {
            if (n.budget != null) {
                out.add(n.budget);
            }
        }
        return out;
    }

    /** Removes the budget of an instrument, user or host. */
    public void removeBudget(Budget budget) {
        if (budget == null) {
            return;
        }
        switch (budget.kind()) {
            case INSTRUMENT: {
                Instrument i = byName.get(budget.target());
                if (i != null && i.budget == budget) {
                    i.budget = null;
                }
                break;
            }
            case USER: {
                Node u = users.get(budget.target());
                if (u != null && u.budget == budget) {
                    u.budget = null;
                }
                break;
            }
            default: {
                Node h = hosts.get(budget.target());
                if (h != null && h.budget == budget) {
                    h.budget = null;
                }
            }
        }
    }

    private long usedBy(SummaryTable table, String name) {
        long used = 0;
        for (SummaryRow r : summary(table)) {
            if (name.equals(table == SummaryTable.USER ? r.user() : r.host())) {
                used += r.currentBytes();
            }
        }
        return used;
    }

    private static void checkLimit(long limitBytes, String what) {
        if (limitBytes < 0 || limitBytes > MAX_SIZE) {
            throw MemscopeException.configuration("budget for " + what + " of " + limitBytes
                    + " bytes: must be 0.." + MAX_SIZE);
        }
    }

    public void addBudgetListener(BudgetListener listener) {
        listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    public void removeBudgetListener(BudgetListener listener) {
        listeners.remove(listener);
    }

    void budgetCrossed(Budget budget, boolean exceeded, long used) {
        RuntimeException first = null;
        for (BudgetListener l : listeners) {
            try {
                l.crossed(budget, exceeded, used);
            } catch (Throwable t) {
                try {
                    Failures.report("accounting.budget-listener", t);
                } catch (RuntimeException strictFailure) {
                    if (first == null) {
                        first = strictFailure;
                    }
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    // ------------------------------------------------------------------------------------------- tables

    /**
     * Reads one summary table. Rows of THREAD, ACCOUNT, USER and HOST are the (owner, instrument) pairs that saw
     * any activity; GLOBAL has a row per registered instrument (plus the reserved one when it counted anomalies).
     * Reading while other threads work is safe and gives each thread's values as of some recent moment; rows read
     * while threads change account or end may briefly count a thread's values twice or not at all.
     */
    public List<SummaryRow> summary(SummaryTable table) {
        return new TableReader().read(table);
    }

    /**
     * MySQL's TRUNCATE of the memory summary tables: COUNT_* and SUM_* restart from a new baseline (each pair
     * ALLOC/FREE loses its common part, so CURRENT is unchanged), LOW and HIGH become CURRENT, anomaly counts
     * become 0. Memory state (what is allocated, by whom) and budgets are unchanged. Threads apply it to their
     * own stats on their next call; readers see it at once. Exact when no thread is recording meanwhile.
     */
    public void truncate() {
        synchronized (lock) {
            reapLocked();
            generation++;
            for (Node n : accounts.values()) {
                n.rebaseAll();
            }
            for (Node n : users.values()) {
                n.rebaseAll();
            }
            for (Node n : hosts.values()) {
                n.rebaseAll();
            }
            globalNode.rebaseAll();
            for (int i = 0; i < instrumentCount; i++) {
                instruments[i].anomalies.set(0);
            }
        }
    }

    /** Builds tables from one consistent-enough pass over threads and nodes. */
    private final class TableReader {
        private final int n = instrumentCount;
        private final int width = n * Stats.WIDTH;

        List<SummaryRow> read(SummaryTable table) {
            List<ThreadRecord> recs;
            synchronized (lock) {
                reapLocked();
                recs = new ArrayList<>(records);
            }
            List<SummaryRow> rows = new ArrayList<>();
            Map<Node, long[]> byAccount = new IdentityHashMap<>();
            long[] noAccount = new long[width];
            for (ThreadRecord rec : recs) {
                Owner seg = rec.segment;
                long[] v = threadView(rec, seg);
                if (table == SummaryTable.THREAD) {
                    for (int k = 1; k < n; k++) {
                        if (!instruments[k].global && used(v, k * Stats.WIDTH)) {
                            rows.add(SummaryRow.of(table, rec.threadId, rec.threadName(), seg.user(), seg.host(),
                                    instruments[k].name, v, k * Stats.WIDTH, 0));
                        }
                    }
                } else if (seg.account == null) {
                    add(noAccount, v);
                } else {
                    add(byAccount.computeIfAbsent(seg.account, this::own), v);
                }
            }
            if (table == SummaryTable.THREAD) {
                return rows;
            }
            for (Node a : accounts.values()) {
                byAccount.computeIfAbsent(a, this::own);
            }
            if (table == SummaryTable.ACCOUNT) {
                for (Map.Entry<Node, long[]> e : sorted(byAccount)) {
                    Node a = e.getKey();
                    emit(rows, table, a.user == null ? null : a.user.name, a.host == null ? null : a.host.name, e.getValue(), false);
                }
                return rows;
            }
            Map<Node, long[]> byUser = new IdentityHashMap<>();
            Map<Node, long[]> byHost = new IdentityHashMap<>();
            long[] global = own(globalNode);
            add(global, noAccount);
            for (Map.Entry<Node, long[]> e : byAccount.entrySet()) {
                Node a = e.getKey();
                if (a.user != null) {
                    add(byUser.computeIfAbsent(a.user, this::own), e.getValue());
                }
                if (a.host != null) {
                    add(byHost.computeIfAbsent(a.host, this::own), e.getValue());
                } else {
                    add(global, e.getValue());
                }
            }
            for (Node u : users.values()) {
                byUser.computeIfAbsent(u, this::own);
            }
            for (Node h : hosts.values()) {
                byHost.computeIfAbsent(h, this::own);
            }
            if (table == SummaryTable.USER) {
                for (Map.Entry<Node, long[]> e : sorted(byUser)) {
                    emit(rows, table, e.getKey().name, null, e.getValue(), false);
                }
                return rows;
            }
            if (table == SummaryTable.HOST) {
                for (Map.Entry<Node, long[]> e : sorted(byHost)) {
                    emit(rows, table, null, e.getKey().name, e.getValue(), false);
                }
                return rows;
            }
            for (long[] h : byHost.values()) {
                add(global, h);
            }
            emit(rows, table, null, null, global, true);
            return rows;
        }

        private void emit(List<SummaryRow> rows, SummaryTable table, String user, String host, long[] v, boolean all) {
            for (int k = 0; k < n; k++) {
                Instrument inst = instruments[k];
                long anomalies = table == SummaryTable.GLOBAL ? inst.anomalies.get() : 0;
                boolean show = all ? (k > 0 || anomalies > 0) : (!inst.global && used(v, k * Stats.WIDTH));
                if (show) {
                    rows.add(SummaryRow.of(table, -1, null, user, host, inst.name, v, k * Stats.WIDTH, anomalies));
                }
            }
        }

        private List<Map.Entry<Node, long[]>> sorted(Map<Node, long[]> m) {
            List<Map.Entry<Node, long[]>> list = new ArrayList<>(m.entrySet());
            list.sort((x, y) -> x.getKey().name.compareTo(y.getKey().name));
            return list;
        }

        private long[] own(Node node) {
            long[] v = new long[width];
            long[] one = new long[Stats.WIDTH];
            for (int k = 0; k < n; k++) {
                java.util.Arrays.fill(one, 0);
                node.addTo(k, one);
                System.arraycopy(one, 0, v, k * Stats.WIDTH, Stats.WIDTH);
            }
            return v;
        }

        /**
         * A thread's stats as it would have them after applying a pending truncate and its queued remote ops, in
         * the capacity form of rows.
         */
        private long[] threadView(ThreadRecord rec, Owner seg) {
            long[] v = new long[width];
            long[] s = seg.statsForReader();
            for (int k = 0; k < n && Stats.holds(s, Stats.threadBase(k)); k++) {
                Stats.readThread(s, Stats.threadBase(k), v, k * Stats.WIDTH);
            }
            if (rec.generation != generation) {
                for (int b = 0; b < width; b += Stats.WIDTH) {
                    Stats.rebase(v, b);
                }
            }
            long[] pending;
            synchronized (seg) {
                pending = seg.retired ? null : seg.peekInbox();
            }
            if (pending != null) {
                long[] d = new long[2];
                for (int i = 0; i < pending.length; i += 3) {
                    int k = (int) (pending[i] >>> 1);
                    if (k >= n) {
                        continue;
                    }
                    int b = k * Stats.WIDTH;
                    if ((pending[i] & 1) != 0) {
                        Stats.countAlloc(v, b, pending[i + 1], pending[i + 2], d);
                    } else if (v[b + Stats.ALLOC_COUNT] - v[b + Stats.FREE_COUNT] >= pending[i + 1]
                            && v[b + Stats.ALLOC_SIZE] - v[b + Stats.FREE_SIZE] >= pending[i + 2]) {
                        Stats.countFree(v, b, pending[i + 1], pending[i + 2], d);
                    }
                }
            }
            for (int b = 0; b < width; b += Stats.WIDTH) {
                Stats.toCapacities(v, b, v, b);
            }
            return v;
        }

        private boolean used(long[] v, int b) {
            for (int i = 0; i < Stats.WIDTH; i++) {
                if (v[b + i] != 0) {
                    return true;
                }
            }
            return false;
        }

        private void add(long[] into, long[] v) {
            for (int i = 0; i < width; i++) {
                into[i] += v[i];
            }
        }
    }

    /** @return the number of live threads this registry knows (after aggregating the ended ones) */
    public int threadCount() {
        synchronized (lock) {
            reapLocked();
            return records.size();
        }
    }

    /** @return all five tables, keyed by table */
    public Map<SummaryTable, List<SummaryRow>> summaries() {
        Map<SummaryTable, List<SummaryRow>> all = new java.util.EnumMap<>(SummaryTable.class);
        for (SummaryTable t : SummaryTable.values()) {
            all.put(t, summary(t));
        }
        return all;
    }
}
