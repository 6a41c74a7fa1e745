package io.memscope.accounting;

import io.memscope.error.MemscopeException;
import io.memscope.internal.error.Failures;

import java.util.concurrent.atomic.AtomicLongArray;

import static io.memscope.accounting.MemoryAccounting.MAX_SIZE;

/**
 * The operations of one {@link MemoryAccounting} registry: alloc, tryAlloc, free, realloc and claim, the carry
 * chain of watermark deltas (thread &rarr; account &rarr; user and host &rarr; global), budget charges, and the
 * anomalies of bad calls. The registry's public methods delegate here; this class holds no state of its own
 * beyond its registry and that registry's {@link ThreadRecords}, so two registries never share anything.
 *
 * <p>{@link #alloc} and {@link #free} start with a fast path kept small enough to inline (a per-owner instrument,
 * the owning thread, nothing queued, a sane size): it writes the thread's own plain statistics and touches shared
 * memory only when a watermark moves. Everything else goes through the {@code ...Slow} methods.
 *
 * <p>The fields the fast paths read (the switch, the truncate generation, the record slots) are this object's own,
 * so that an operation follows no chain of references from the registry.
 *
 * <p>Nothing here is static: accounting is called by application code (and by memscope-ffm) through a registry
 * object, never by instrumented bytecode, so no static entry point is needed.
 */
final class AccountingHotPath {
    private final MemoryAccounting registry;
    private final ThreadRecords threads;
    /** {@link ThreadRecords#slots}, held here so that the fast path reads only this object's fields. */
    private final ThreadRecord[] slots;
    /** The registry's switch ({@link MemoryAccounting#setEnabled}); here because every operation reads it. */
    volatile boolean enabled = true;
    /** The truncate generation: thread stats older than this are rebased by their thread on its next call. */
    volatile int generation;

    AccountingHotPath(MemoryAccounting registry, ThreadRecords threads) {
        this.registry = registry;
        this.threads = threads;
        this.slots = threads.slots;
    }

    /** The current thread's record (registered on first use): an array load and an identity check. */
    ThreadRecord record() {
        Thread t = Thread.currentThread();
        long id = ThreadIds.of(t);
        ThreadRecord r = slots[(int) id & (ThreadRecords.RECORD_SLOTS - 1)];
        if (r != null && r.isThread(t, id)) {
            return r;
        }
        return threads.recordSlow(id);
    }

    /**
     * Records an allocation of {@code size} bytes under {@code instrument}, charged to the current thread.
     *
     * @return the owner charged: pass it to {@link #free}; {@link Owner#GLOBAL} for a global instrument;
     *         {@link Owner#NONE} when nothing was recorded (disabled, or a bad call)
     */
    Owner alloc(Instrument instrument, long size) {
        // Fast path, kept small so that it inlines: a per-owner instrument, enabled, a sane size, nothing queued.
        if (instrument != null && instrument.registry == registry && instrument.enabled && !instrument.global
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
        if (instrument == null || instrument.registry != registry) {
            return badInstrument(instrument, "alloc");
        }
        if (!instrument.enabled || !enabled) {
            return Owner.NONE;
        }
        if (size < 0 || size > MAX_SIZE) {
            return badSize(instrument, "alloc", size);
        }
        if (instrument.global) {
            Stats.sharedAlloc(registry.globalNode.chunk(instrument.index), Node.base(instrument.index), 1, size, null);
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
    Owner tryAlloc(Instrument instrument, long size) {
        if (instrument == null || instrument.registry != registry) {
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
            Stats.sharedAlloc(registry.globalNode.chunk(instrument.index), Node.base(instrument.index), 1, size, null);
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
    void free(Instrument instrument, long size, Owner owner) {
        // Fast path: the owner thread frees under its current account, nothing queued, enough held.
        if (instrument != null && owner != null && owner.registry == registry && instrument.registry == registry
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
        if (instrument == null || instrument.registry != registry) {
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
        if (owner == null || owner.registry != registry) {
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
    Owner realloc(Instrument instrument, long oldSize, long newSize, Owner owner) {
        if (instrument == null || instrument.registry != registry) {
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
        if (owner == null || owner.registry != registry) {
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
    Owner claim(Instrument instrument, long size, Owner owner) {
        if (instrument == null || instrument.registry != registry) {
            return badInstrument(instrument, "claim");
        }
        if (instrument.global) {
            return owner == Owner.GLOBAL ? owner : badOwner(instrument, "claim", owner);
        }
        if (owner != Owner.NONE && (owner == null || owner == Owner.GLOBAL || owner.registry != registry)) {
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

    void rebaseLocal(ThreadRecord rec, Owner seg) {
        int g = generation;
        long[] s = seg.stats;
        for (int b = Stats.threadBase(0); Stats.holds(s, b); b += Stats.WIDTH) {
            Stats.rebase(s, b);
        }
        rec.generation = g;
    }

    void replay(ThreadRecord rec, Owner seg, long[] ops) {
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
            overFree(registry.instruments[index], seg, count, size, !Stats.holds(s, b) ? 0 : s[b + Stats.ALLOC_SIZE] - s[b + Stats.FREE_SIZE]);
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
        Node node = owner.account == null ? registry.globalNode : owner.account;
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
        AtomicLongArray a = registry.globalNode.chunk(instrument.index);
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
        registry.carries.increment();
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
        AtomicLongArray g = registry.globalNode.chunk(index);
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
        anomaly(registry.invalid, op + " with " + (instrument == null ? "a null instrument"
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
                : owner.registry != registry ? "an owner of another registry" : "owner " + owner;
        anomaly(instrument, op + " on " + instrument.name + " with " + what);
        return Owner.NONE;
    }

    private void overFree(Instrument instrument, Owner owner, long count, long size, long held) {
        anomaly(instrument, "free of " + size + " bytes (" + count + " block(s)) on " + instrument.name + " by "
                + owner + " which holds only " + held + " bytes");
    }

    void anomaly(Instrument instrument, String message) {
        long n = instrument.anomalies.incrementAndGet();
        if (registry.strict || Failures.isStrict()) {
            throw MemscopeException.memory("memscope accounting: " + message);
        }
        if (n == 1) {
            Failures.report("accounting", MemscopeException.memory(message + " (further anomalies on this instrument are only counted)"));
        }
    }
}
