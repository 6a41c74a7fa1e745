package io.memscope.accounting;

import io.memscope.internal.accounting.AccountingJmx;
import io.memscope.error.MemscopeException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * <h2>Structure</h2>
 * This class is the registry (instruments, accounts, switches, truncation) and the facade of the public API; each
 * other job is an object the registry owns: {@link ThreadRecords} (the threads it knows, their registration and
 * retirement), {@link AccountingHotPath} (the operations, the carry chain and anomalies), {@link Budgets} and
 * {@link TableReader} (one table read). Only {@link #global()} is static; any number of registries can live in one
 * JVM and share nothing.
 *
 * <p>Thread-safe. See docs/accounting.md.
 */
public final class MemoryAccounting {
    /**
     * The MBean name of the {@link #global()} registry, {@code io.memscope:type=Accounting} ({@code AccountingMBean};
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
    /**
     * The process-wide registry of {@link #global()}: the one static of accounting, because JMX, the agent link
     * and every library in the JVM must find the same registry. Every other registry is an ordinary object.
     */
    private static volatile MemoryAccounting defaultRegistry;

    /** Guards instrument registration, the thread list ({@link ThreadRecords}) and truncation. */
    final Object lock = new Object();
    final Instrument[] instruments = new Instrument[MAX_INSTRUMENTS];
    volatile int instrumentCount;
    final ConcurrentHashMap<String, Instrument> byName = new ConcurrentHashMap<>();
    final Node globalNode = new Node(Node.Kind.GLOBAL, "global", null, null);
    final ConcurrentHashMap<String, Node> users = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, Node> hosts = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, Node> accounts = new ConcurrentHashMap<>();
    final Instrument invalid;
    volatile boolean strict;
    /** Watermark deltas that left a thread stat (slow path only); for tests of the "no shared write" promise. */
    final java.util.concurrent.atomic.LongAdder carries = new java.util.concurrent.atomic.LongAdder();

    final ThreadRecords threads = new ThreadRecords(this);
    final AccountingHotPath hot = new AccountingHotPath(this, threads);
    private final Budgets budgets = new Budgets(this);

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
        hot.enabled = value;
    }

    public boolean isEnabled() {
        return hot.enabled;
    }

    /** Turns accounting for the current thread on or off; frees of memory it already recorded are still recorded. */
    public void setThreadEnabled(boolean value) {
        hot.record().enabled = value;
    }

    /**
     * Turns accounting for {@code thread} on or off, from any thread; effective for its next call. A thread this
     * registry has not seen yet starts enabled whatever this says.
     *
     * @return false if the registry does not know the thread (it never called it, or it ended)
     */
    public boolean setThreadEnabled(Thread thread, boolean value) {
        return threads.setEnabled(thread, value);
    }

    public boolean isThreadEnabled() {
        return hot.record().enabled;
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
        ThreadRecord rec = hot.record();
        Owner before = rec.segment;
        switchAccount(rec, account(user, host));
        return new OwnerScope(this, rec, before.account);
    }

    /** @return the owner the current thread charges now (its current account) */
    public Owner currentOwner() {
        return hot.record().segment;
    }

    void closeScope(ThreadRecord rec, Node previous) {
        ThreadRecord now = hot.record();
        if (now != rec) {
            hot.anomaly(invalid, "OwnerScope closed on thread " + now.threadName() + ", opened on " + rec.threadName());
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
        threads.retire(rec, old);
    }

    // ------------------------------------------------------------------------------------------- operations
    // The operations live in AccountingHotPath; these delegations are small enough for the JIT to inline.

    /**
     * Records an allocation of {@code size} bytes under {@code instrument}, charged to the current thread.
     *
     * @return the owner charged: pass it to {@link #free}; {@link Owner#GLOBAL} for a global instrument;
     *         {@link Owner#NONE} when nothing was recorded (disabled, or a bad call)
     */
    public Owner alloc(Instrument instrument, long size) {
        return hot.alloc(instrument, size);
    }

    /**
     * Like {@link #alloc} but refuses, recording nothing, when a budget of the instrument, the current user or
     * the current host would go over its limit.
     *
     * @return the owner charged, or null when a budget refused
     */
    public Owner tryAlloc(Instrument instrument, long size) {
        return hot.tryAlloc(instrument, size);
    }

    /**
     * Records a free of {@code size} bytes under {@code instrument}, charged to {@code owner} (the value
     * {@link #alloc} returned), from any thread. {@link Owner#NONE} records nothing.
     */
    public void free(Instrument instrument, long size, Owner owner) {
        hot.free(instrument, size, owner);
    }

    /**
     * Records a reallocation from {@code oldSize} to {@code newSize} bytes: a free and an alloc charged to the
     * same owner (from any thread). A {@link Owner#NONE} owner makes it an alloc by the current thread.
     *
     * @return the owner to use from now on (the same owner, or the current thread's when it was NONE)
     */
    public Owner realloc(Instrument instrument, long oldSize, long newSize, Owner owner) {
        return hot.realloc(instrument, oldSize, newSize, owner);
    }

    /**
     * Moves {@code size} bytes from {@code owner} to the current thread (the performance schema's memory_claim): a free
     * charged to the old owner and an alloc charged to the current thread, when they differ.
     *
     * @return the new owner (the current thread's)
     */
    public Owner claim(Instrument instrument, long size, Owner owner) {
        return hot.claim(instrument, size, owner);
    }

    // ------------------------------------------------------------------------------------------- budgets

    /** Limits the bytes of {@code instrument} over all owners; replaces an earlier budget. */
    public Budget setBudget(Instrument instrument, long limitBytes) {
        return budgets.set(instrument, limitBytes);
    }

    /** Limits the bytes of all per-owner instruments charged to {@code user}; replaces an earlier budget. */
    public Budget setUserBudget(String user, long limitBytes) {
        return budgets.setUser(user, limitBytes);
    }

    /** Limits the bytes of all per-owner instruments charged to {@code host}; replaces an earlier budget. */
    public Budget setHostBudget(String host, long limitBytes) {
        return budgets.setHost(host, limitBytes);
    }

    /** @return every budget set now: instruments' (in registration order), then users', then hosts' */
    public List<Budget> budgets() {
        return budgets.all();
    }

    /** Removes the budget of an instrument, user or host. */
    public void removeBudget(Budget budget) {
        budgets.remove(budget);
    }

    public void addBudgetListener(Budget.Listener listener) {
        budgets.addListener(listener);
    }

    public void removeBudgetListener(Budget.Listener listener) {
        budgets.removeListener(listener);
    }

    void budgetCrossed(Budget budget, boolean exceeded, long used) {
        budgets.crossed(budget, exceeded, used);
    }

    // ------------------------------------------------------------------------------------------- tables

    /**
     * Reads one summary table. Rows of THREAD, ACCOUNT, USER and HOST are the (owner, instrument) pairs that saw
     * any activity; GLOBAL has a row per registered instrument (plus the reserved one when it counted anomalies).
     * Reading while other threads work is safe and gives each thread's values as of some recent moment; rows read
     * while threads change account or end may briefly count a thread's values twice or not at all.
     */
    public List<SummaryRow> summary(SummaryTable table) {
        return new TableReader(this).read(table);
    }

    /**
     * MySQL's TRUNCATE of the memory summary tables: COUNT_* and SUM_* restart from a new baseline (each pair
     * ALLOC/FREE loses its common part, so CURRENT is unchanged), LOW and HIGH become CURRENT, anomaly counts
     * become 0. Memory state (what is allocated, by whom) and budgets are unchanged. Threads apply it to their
     * own stats on their next call; readers see it at once. Exact when no thread is recording meanwhile.
     */
    public void truncate() {
        synchronized (lock) {
            threads.reapLocked();
            hot.generation++;
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

    /** @return the number of live threads this registry knows (after aggregating the ended ones) */
    public int threadCount() {
        return threads.count();
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
