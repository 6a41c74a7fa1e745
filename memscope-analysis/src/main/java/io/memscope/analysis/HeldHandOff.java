package io.memscope.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Hands the heap events of a report's replay from its allocation half ({@link ReportReplay}) to its held half
 * ({@link HeldReplay}), in time order, in batches of columns ({@link Batch}): each event with its site and stack
 * already resolved to keys, each batch with the sites and stacks created since the previous one.
 *
 * <p><b>Threads.</b> Started ({@link #start}), the batches are applied on a thread of its own ("memscope-held"), so
 * that the two halves use two cores; the replaying thread hands each full batch over through a small queue
 * ({@value #IN_FLIGHT} batches in flight, reused) and no lock or shared write is on the per-event path: each half
 * owns its state (a site's allocation figures belong to the allocation half; its dead samples, lifetimes, type and
 * reference collections to the held half). The queue's hand-over orders everything the replaying thread did before
 * it (a site's tally created, its allocation window set) before the held half reads it. Not started, each batch is
 * applied on the replaying thread when it is full: the serial replay, the same operations in the same order, so the
 * same figures bit for bit. A failure of the held half is rethrown on the replaying thread at the next hand-over or at
 * the end.
 *
 * <p>Memory: the batches (about 1 MiB); never per event.
 */
final class HeldHandOff {
    /** A heap sample allocated (in or before the window). */
    static final byte ALLOC = 1;
    /** A heap sample collected. */
    static final byte FREE = 2;
    /** No sample: only the time, at which boundaries are crossed (and, past the window, the replay ends). */
    static final byte TICK = 3;
    /**
     * Events per batch, as the decoding thread's chunks ({@link EventPipe}): each hand-over may wake the other thread,
     * a system call (batches of 1,024 measured about 15% more CPU in this half; 16,384 no less than 4,096).
     */
    static final int BATCH = 4096;
    static final int IN_FLIGHT = 4;

    private final HeldReplay held;
    private Thread thread;
    private BlockingQueue<Batch> full;
    private BlockingQueue<Batch> free;
    private volatile Throwable failure;
    private Batch current = new Batch();
    private boolean finished;

    HeldHandOff(HeldReplay held) {
        this.held = held;
    }

    /** @return the held half (its figures, once {@link #finish finished}) */
    HeldReplay held() {
        return held;
    }

    /** Applies the batches on a thread of its own from now on (class comment: Threads). */
    void start() {
        full = new ArrayBlockingQueue<>(IN_FLIGHT);
        free = new ArrayBlockingQueue<>(IN_FLIGHT);
        for (int i = 1; i < IN_FLIGHT; i++) {
            free.add(new Batch());
        }
        thread = new Thread(this::drain, "memscope-held");
        thread.setDaemon(true);
        thread.start();
    }

    private void drain() {
        for (Batch b = take(full); b != Batch.END; b = take(full)) {
            if (failure == null) {
                try {
                    held.apply(b);
                } catch (RuntimeException | Error e) {
                    failure = e; // rethrown on the replaying thread; batches still go back so that it never waits
                }
            }
            b.clear();
            put(free, b);
        }
    }


    /** A site created by the allocation half: registered before the next event handed over. */
    void newSite(SiteTally a) {
        if (finished) {
            held.register(a);
        } else {
            current.sites.add(a);
        }
    }

    /** A stack created by the allocation half: registered before the next event handed over. */
    void newStack(StackTally s) {
        if (finished) {
            held.register(s);
        } else {
            current.stacks.add(s);
        }
    }

    void allocated(long t, long address, long size, int typeNameId, double p, int siteKey, int stackKey) {
        Batch b = current;
        int i = b.size++;
        b.kind[i] = ALLOC;
        b.time[i] = t;
        b.address[i] = address;
        b.size_[i] = size;
        b.p[i] = p;
        b.typeName[i] = typeNameId;
        b.site[i] = siteKey;
        b.stack[i] = stackKey;
        if (i + 1 == BATCH) {
            handOver();
        }
    }

    /** @param p the sampling probability of {@code size} (the allocation half's, computed once per size) */
    void collected(long t, long address, long size, long age, double p) {
        Batch b = current;
        int i = b.size++;
        b.kind[i] = FREE;
        b.time[i] = t;
        b.address[i] = address;
        b.size_[i] = size;
        b.age[i] = age;
        b.p[i] = p;
        if (i + 1 == BATCH) {
            handOver();
        }
    }

    void tick(long t) {
        Batch b = current;
        int i = b.size++;
        b.kind[i] = TICK;
        b.time[i] = t;
        if (i + 1 == BATCH) {
            handOver();
        }
    }

    private void handOver() {
        if (thread == null) {
            held.apply(current);
            current.clear();
            return;
        }
        rethrow();
        put(full, current);
        current = take(free);
    }

    /**
     * The events have all been handed over: the last batch is applied, the thread (if started) ends, and the
     * collections of the window not yet crossed are ({@link HeldReplay#end}); afterwards new sites and stacks are
     * registered at once.
     */
    void finish() {
        if (thread == null) {
            held.apply(current);
            current.clear();
        } else {
            put(full, current);
            current = null;
            stop();
            rethrow();
        }
        held.end();
        finished = true;
    }

    /** Ends the thread (if started and not ended yet): after a failure of the replay too. */
    void stop() {
        Thread th = thread;
        if (th == null) {
            return;
        }
        thread = null;
        put(full, Batch.END);
        boolean interrupted = false;
        while (th.isAlive()) {
            try {
                th.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void rethrow() {
        Throwable f = failure;
        if (f instanceof RuntimeException r) {
            throw r;
        }
        if (f instanceof Error e) {
            throw e;
        }
    }

    private static Batch take(BlockingQueue<Batch> q) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return q.take();
                } catch (InterruptedException e) {
                    interrupted = true; // a batch lost would stall the other side: kept for later
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void put(BlockingQueue<Batch> q, Batch b) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    q.put(b);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }


    /** Heap events in columns, and the sites and stacks created since the previous batch. */
    static final class Batch {
        static final Batch END = new Batch();
        int size;
        final byte[] kind = new byte[BATCH];
        final long[] time = new long[BATCH];
        final long[] address = new long[BATCH];
        final long[] size_ = new long[BATCH];
        /** The sample's sampling probability. */
        final double[] p = new double[BATCH];
        /** FREE: the sample's age. */
        final long[] age = new long[BATCH];
        final int[] typeName = new int[BATCH];
        final int[] site = new int[BATCH];
        final int[] stack = new int[BATCH];
        final List<SiteTally> sites = new ArrayList<>();
        final List<StackTally> stacks = new ArrayList<>();

        void clear() {
            size = 0;
            sites.clear();
            stacks.clear();
        }
    }
}
