package io.memscope.accounting;

import java.util.ArrayList;
import java.util.List;

/**
 * The threads one {@link MemoryAccounting} registry knows: each thread's {@link ThreadRecord}, found on the hot
 * path by thread id, registered on a thread's first call, and retired (its statistics aggregated into its account,
 * the performance schema's aggregate on thread end) once the thread has ended.
 *
 * <p>Ended threads are noticed when tables are read, when truncating, and when new threads arrive (the list is
 * reaped when it doubles), so a registry never runs a thread of its own.
 *
 * <p>Shares the registry's lock ({@link MemoryAccounting#lock}): truncation reaps and moves the generation under
 * it, so a thread registering meanwhile is either reaped with the old generation or sees the new one.
 */
final class ThreadRecords {
    /** Size of the direct-mapped cache {@link #slots} (a power of two). */
    static final int RECORD_SLOTS = 512;

    private final MemoryAccounting registry;
    private final ThreadLocal<ThreadRecord> current = ThreadLocal.withInitial(this::register);
    /**
     * A direct-mapped cache in front of {@link #current}: slot {@code threadId & (RECORD_SLOTS - 1)} holds the record
     * of one live thread, found by {@link AccountingHotPath#record()} with an array load and an identity check instead of a
     * ThreadLocal lookup. Written only when a thread finds its slot empty (its first calls) and when the reaper
     * drops an ended thread's record, so threads only read it on the hot path; a thread whose slot is taken by
     * another live thread uses the ThreadLocal.
     */
    final ThreadRecord[] slots = new ThreadRecord[RECORD_SLOTS];
    private final ArrayList<ThreadRecord> records = new ArrayList<>(); // guarded by registry.lock
    private int reapThreshold = 64;                                     // guarded by registry.lock

    ThreadRecords(MemoryAccounting registry) {
        this.registry = registry;
    }

    /** The current thread's record when its slot did not hold it: the ThreadLocal, then the slot if free. */
    ThreadRecord recordSlow(long id) {
        ThreadRecord r = current.get();
        int slot = (int) id & (RECORD_SLOTS - 1);
        if (slots[slot] == null) {
            synchronized (registry.lock) {
                if (slots[slot] == null) {
                    slots[slot] = r;
                }
            }
        }
        return r;
    }

    private ThreadRecord register() {
        ThreadRecord rec = new ThreadRecord(Thread.currentThread(), registry.hot.generation);
        rec.segment = new Owner(registry, rec, null);
        synchronized (registry.lock) {
            if (records.size() >= reapThreshold) {
                reapLocked();
                reapThreshold = Math.max(64, records.size() * 2);
            }
            records.add(rec);
        }
        return rec;
    }

    /**
     * Turns accounting for {@code thread} on or off, from any thread.
     *
     * @return false if no record of that thread is listed
     */
    boolean setEnabled(Thread thread, boolean value) {
        long id = ThreadIds.of(thread);
        synchronized (registry.lock) {
            for (ThreadRecord rec : records) {
                if (rec.threadId == id && rec.thread.get() == thread) {
                    rec.enabled = value;
                    return true;
                }
            }
        }
        return false;
    }

    /** @return the records of the live threads, after aggregating the ended ones (a copy) */
    List<ThreadRecord> live() {
        synchronized (registry.lock) {
            reapLocked();
            return new ArrayList<>(records);
        }
    }

    /** @return the number of live threads, after aggregating the ended ones */
    int count() {
        synchronized (registry.lock) {
            reapLocked();
            return records.size();
        }
    }

    /** Aggregates the stats of ended threads into their accounts. Caller holds the registry's lock. */
    void reapLocked() {
        int kept = 0;
        for (int i = 0; i < records.size(); i++) {
            ThreadRecord rec = records.get(i);
            if (rec.ended()) {
                retire(rec, rec.segment);
                int slot = (int) rec.threadId & (RECORD_SLOTS - 1);
                if (slots[slot] == rec) {
                    slots[slot] = null;
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
    void retire(ThreadRecord rec, Owner seg) {
        AccountingHotPath hot = registry.hot;
        // Under the owner's lock from start to end: an operation from another thread either lands in the inbox
        // before (and is replayed here) or sees the stats already in the account (never an over-free in between).
        synchronized (seg) {
            if (seg.retired) {
                return;
            }
            seg.retired = true;
            long[] pending = seg.takeInbox();
            if (rec.generation != registry.hot.generation) {
                hot.rebaseLocal(rec, seg);
            }
            if (pending != null) {
                hot.replay(rec, seg, pending);
            }
            long[] s = seg.stats;
            Node target = seg.account == null ? registry.globalNode : seg.account;
            long[] one = new long[Stats.WIDTH];
            for (int k = 0; Stats.holds(s, Stats.threadBase(k)); k++) {
                Stats.toCapacities(s, Stats.threadBase(k), one, 0);
                target.aggregate(k, one, 0);
            }
            seg.releaseStats();
        }
    }
}
