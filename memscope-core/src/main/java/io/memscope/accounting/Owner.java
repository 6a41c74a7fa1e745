package io.memscope.accounting;

import java.util.Arrays;

/**
 * Who was charged for an allocation: returned by {@link MemoryAccounting#alloc}, to be passed back to
 * {@link MemoryAccounting#free} (from any thread), {@link MemoryAccounting#realloc} or
 * {@link MemoryAccounting#claim}, as the performance schema's {@code owner_thread}.
 *
 * <p>An owner is one thread under one account: the thread that allocated and the user@host it was working for.
 * When the thread changes account ({@link OwnerScope}) or ends, its statistics are aggregated into the account
 * and the handle keeps working: later frees are charged to that account. Keeping a handle costs a few dozen bytes;
 * it holds no reference to the thread.
 *
 * <p>{@link #NONE} means "not recorded" (instrument or thread accounting disabled, or a bad call); freeing it does
 * nothing. {@link #GLOBAL} is returned for global instruments.
 */
public final class Owner {
    /** The memory was not recorded; {@code free} with this owner records nothing. */
    public static final Owner NONE = new Owner(null, null, null);
    /** The memory was recorded on a global instrument (no owner). */
    public static final Owner GLOBAL = new Owner(null, null, null);

    private static final long[] NO_STATS = new long[0];
    /** Remote operations kept before they are folded into per-instrument sums. */
    static final int INBOX_LIMIT = 4096;

    final MemoryAccounting registry;
    final ThreadRecord record;
    /** The account charged (user@host), or null when the thread has no user and no host. */
    final Node account;
    final long threadId;
    /**
     * Thread-level ("safe") stats in {@link Stats}' thread form, {@link Stats#WIDTH} longs per instrument index at
     * {@link Stats#threadBase}, padded by {@link Stats#PAD} longs at both ends; written only by the thread,
     * which reads the field plainly; other threads read it through {@link #statsForReader()}.
     */
    long[] stats = NO_STATS;
    private static final java.lang.invoke.VarHandle STATS;

    static {
        try {
            STATS = java.lang.invoke.MethodHandles.lookup().findVarHandle(Owner.class, "stats", long[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** Set once, under this object's lock, when the stats were aggregated into the account (or global row). */
    volatile boolean retired;
    /** Set when another thread queued an operation for this owner; cleared by the owner thread when it drains. */
    volatile boolean remotePending;
    /** Operations from other threads: triples (index &lt;&lt; 1 | isAlloc, count, bytes). Guarded by this. */
    private long[] inbox;
    private int inboxLength;

    Owner(MemoryAccounting registry, ThreadRecord record, Node account) {
        this.registry = registry;
        this.record = record;
        this.account = account;
        this.threadId = record == null ? -1 : record.threadId;
    }

    /** @return the id of the thread charged ({@code Thread.threadId()}; {@code getId()} before JDK 19), or -1 for NONE and GLOBAL */
    public long threadId() {
        return threadId;
    }

    /** @return the name of the thread charged, or null for NONE and GLOBAL */
    public String threadName() {
        return record == null ? null : record.threadName();
    }

    /** @return the user charged, or null */
    public String user() {
        return account == null || account.user == null ? null : account.user.name;
    }

    /** @return the host charged, or null */
    public String host() {
        return account == null || account.host == null ? null : account.host.name;
    }

    /** @return true unless this is {@link #NONE} */
    public boolean isRecorded() {
        return this != NONE;
    }

    long[] grow(int index) {
        long[] s = stats;
        if (Stats.holds(s, Stats.threadBase(index))) {
            return s;
        }
        int held = s.length == 0 ? 0 : (s.length - 2 * Stats.PAD) / Stats.WIDTH;
        int instruments = Math.max(index + 1, Math.min(held * 2, MemoryAccounting.MAX_INSTRUMENTS));
        long[] bigger = Arrays.copyOf(s, Stats.threadLength(instruments));
        STATS.setRelease(this, bigger);
        return bigger;
    }

    /** Queues an operation from another thread; caller holds this object's lock and checked {@link #retired}. */
    void append(int index, boolean alloc, long count, long size) {
        if (inbox == null) {
            inbox = new long[3 * 16];
        } else if (inboxLength == inbox.length) {
            if (inboxLength >= 3 * INBOX_LIMIT) {
                coalesce();
            }
            if (inboxLength == inbox.length) {
                inbox = Arrays.copyOf(inbox, inbox.length * 2);
            }
        }
        inbox[inboxLength] = ((long) index << 1) | (alloc ? 1 : 0);
        inbox[inboxLength + 1] = count;
        inbox[inboxLength + 2] = size;
        inboxLength += 3;
        remotePending = true;
    }

    /**
     * Folds the queue into one alloc and one free entry per instrument (allocs first). Watermarks see the folded
     * operations as two steps instead of many, which can only widen them (HIGH up, LOW down): bounds still hold.
     */
    private void coalesce() {
        java.util.TreeMap<Long, long[]> sums = new java.util.TreeMap<>();
        for (int i = 0; i < inboxLength; i += 3) {
            long[] s = sums.computeIfAbsent(inbox[i], k -> new long[2]);
            s[0] += inbox[i + 1];
            s[1] += inbox[i + 2];
        }
        inboxLength = 0;
        for (int pass = 1; pass >= 0; pass--) {
            for (java.util.Map.Entry<Long, long[]> e : sums.entrySet()) {
                if ((e.getKey() & 1) == pass) {
                    inbox[inboxLength++] = e.getKey();
                    inbox[inboxLength++] = e.getValue()[0];
                    inbox[inboxLength++] = e.getValue()[1];
                }
            }
        }
    }

    /** Takes the queued operations (caller holds this object's lock); null when none. */
    long[] takeInbox() {
        remotePending = false;
        if (inboxLength == 0) {
            return null;
        }
        long[] taken = Arrays.copyOf(inbox, inboxLength);
        inboxLength = 0;
        if (inbox.length > 3 * 64) {
            inbox = null;
        }
        return taken;
    }

    /** Copies the queued operations without taking them (readers; caller holds this object's lock). */
    long[] peekInbox() {
        return inboxLength == 0 ? null : Arrays.copyOf(inbox, inboxLength);
    }

    void releaseStats() {
        STATS.setRelease(this, NO_STATS);
    }

    /** The stats array as last published by the owner thread (never null). */
    long[] statsForReader() {
        long[] s = (long[]) STATS.getAcquire(this);
        return s == null ? NO_STATS : s;
    }

    @Override
    public String toString() {
        if (this == NONE) {
            return "Owner[NONE]";
        }
        if (this == GLOBAL) {
            return "Owner[GLOBAL]";
        }
        return "Owner[thread " + threadId + " " + threadName() + ", user " + user() + ", host " + host()
                + (retired ? ", ended" : "") + "]";
    }
}
