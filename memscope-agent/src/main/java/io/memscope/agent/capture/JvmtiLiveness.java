package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import io.memscope.agent.boot.SamplerNatives;

/**
 * The JVMTI sampler's liveness, collection by collection: takes the collections the library logged (JVMTI
 * {@code GarbageCollectionStart/Finish}, numbered 1, 2, ... in the order they start, timed on
 * {@link System#nanoTime()}'s clock) and, after each, checks every tracked sample's weak reference ({@link #scan}).
 * A sample seen alive after collection k-1 and cleared after collection k was collected by collection k: its
 * DEALLOCATE gets the end of collection k. When several collections happened between two checks of a sample, it is
 * attributed to the first of them and counted in {@link #ambiguous()}; a sample cleared concurrently (ZGC,
 * Shenandoah: no pause began since it was seen alive) gets the time it was seen collected. See
 * {@link JvmtiHeapSampler} for when this is exact.
 *
 * <p>Samples seen alive move between the {@link LiveSites} states (new, unconfirmed, confirmed by a collection that
 * examined the whole heap: {@link #judge}). Drain thread only, under the sampler's lock.
 */
final class JvmtiLiveness {
    /** Longs per entry of the library's scan0 output. */
    static final int SCAN_LONGS = 7;
    /** Collections remembered for attribution (the library keeps as many). */
    private static final int GC_SLOTS = 4096;
    /** Cuts of the collection log are made after collections, and at most every 50 ms else. */
    private static final long CUT_NANOS = 50_000_000L;
    private static final int DEALLOCATE = MemoryEventType.DEALLOCATE.code();

    private final SampleWeights weights;
    private final LiveSites liveSites;
    /** The collections as JVMTI reports them, handed on for the GC records; null when there are none. */
    private final CollectionLog pauses;
    private final SampleBatch batch;

    private final long[] scanOut = new long[512 * SCAN_LONGS];
    private final long[] gcOut = new long[64 * 3];
    private final long[] gcStart = new long[GC_SLOTS];
    private final long[] gcEnd = new long[GC_SLOTS];
    private final int[] gcOrdinal = new int[GC_SLOTS];
    /** The first collection whose end is not known yet. */
    private int nextCollection;
    /** {@link System#nanoTime()} of the last cut. */
    private long lastCut;
    /** The drain thread: the thread of DEALLOCATEs. */
    private volatile int ownNameId;
    private volatile long ownTid = -1;

    private long ambiguous;
    private long collected;
    /**
     * A test hook: with {@code MEMSCOPE_TEST_DRAIN_STALL_MS=N} in the environment, the drain thread stalls once, when
     * it has read {@code MEMSCOPE_TEST_DRAIN_STALL_AFTER} collections (100 when not set; 0: before its first read),
     * until the library's log of the latest {@value #LIBRARY_GC_LOG} collections has moved past 100 it did not read,
     * or N ms have passed.
     */
    private static final long STALL_MILLIS = testSetting("MEMSCOPE_TEST_DRAIN_STALL_MS", 0);
    private static final long STALL_AFTER = testSetting("MEMSCOPE_TEST_DRAIN_STALL_AFTER", 100);
    private boolean stalled;

    JvmtiLiveness(SampleWeights weights, LiveSites liveSites, CollectionLog pauses, SampleBatch batch) {
        this.weights = weights;
        this.liveSites = liveSites;
        this.pauses = pauses;
        this.batch = batch;
        this.nextCollection = 0; // the library's first collection of this capture
    }

    /** Declares the drain thread, the thread of the DEALLOCATEs. */
    void drainThread(long tid, int nameId) {
        ownNameId = nameId;
        ownTid = tid;
    }

    /** Takes the collections the library logged since the last call; @return whether any ended */
    boolean collections() {
        boolean ended = false;
        for (;;) {
            int n = SamplerNatives.collections(gcOut, nextCollection);
            for (int i = 0; i < n; i++) {
                int ordinal = (int) gcOut[3 * i];
                if (pauses != null) {
                    // the library's log keeps the latest 4,096: those between were overwritten before this read
                    int expected = nextCollection > 0 ? nextCollection : captureFirstCollection();
                    if (ordinal > expected) {
                        pauses.untimed(ordinal - expected);
                    }
                }
                long start = gcOut[3 * i + 1];
                long end = gcOut[3 * i + 2];
                gcStart[ordinal & (GC_SLOTS - 1)] = start;
                gcEnd[ordinal & (GC_SLOTS - 1)] = end;
                gcOrdinal[ordinal & (GC_SLOTS - 1)] = ordinal;
                nextCollection = ordinal + 1;
                ended = true;
                if (pauses != null) {
                    pauses.pause(ordinal, start, end);
                }
            }
            if (n < gcOut.length / 3) {
                if (STALL_MILLIS > 0 && !stalled && nextCollection >= STALL_AFTER) {
                    stalled = true;
                    stall();
                }
                return ended;
            }
        }
    }

    /** @return the ordinal of the capture's first collection in the library's log (read once, at the first read) */
    private int captureFirstCollection() {
        long[] c = new long[SamplerCounter.COUNT];
        SamplerNatives.counters(c);
        long first = c[SamplerCounter.CAPTURE_FIRST_COLLECTION.ordinal()];
        return first > 0 ? (int) first : Integer.MAX_VALUE; // an older library without the counter: nothing counted
    }

    private static long testSetting(String name, long otherwise) {
        try {
            String v = System.getenv(name);
            return v == null ? otherwise : Long.parseLong(v.trim());
        } catch (RuntimeException e) {
            return otherwise;
        }
    }

    /** The collections the sampler library logs (live_table.h's GC_LOG_SLOTS). */
    static final int LIBRARY_GC_LOG = 4096;

    private void stall() {
        long[] counts = new long[SamplerCounter.GC_FINISHED.ordinal() + 1];
        long until = System.nanoTime() + STALL_MILLIS * 1_000_000L;
        try {
            while (System.nanoTime() < until) {
                SamplerNatives.counters(counts);
                if (counts[SamplerCounter.GC_FINISHED.ordinal()] > nextCollection + LIBRARY_GC_LOG + 100L) {
                    return;
                }
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The next {@link #judge} cuts whatever the time since the last one. */
    void cutNext() {
        lastCut = 0;
    }

    /**
     * Reads the GC beans after collections ended (and now and then: a concurrent cycle ends between pauses) and, when
     * a collection that examined the whole heap was decided, confirms the samples it judged.
     */
    void judge(boolean ended) throws Throwable {
        if (pauses == null) {
            return;
        }
        long now = System.nanoTime();
        if (!ended && now - lastCut < CUT_NANOS) {
            return;
        }
        lastCut = now;
        collections(); // every pause ended so far is known to the log: the cut covers them
        pauses.cut();
        long verdict = pauses.takeVerdict();
        if (verdict != CollectionLog.NO_VERDICT) {
            scan(verdict);
            liveSites.heldAsOf(verdict);
        }
    }

    /**
     * Checks every tracked sample; each one collected becomes a DEALLOCATE at the end of its collection, each one
     * seen alive after a collection that started after it was taken becomes unconfirmed, and, with a verdict, each
     * one sampled before {@code confirmBefore} and alive becomes held ({@link LiveSites#moved}).
     *
     * @param confirmBefore the snapshot of a collection that examined the whole heap, or
     *                      {@link CollectionLog#NO_VERDICT}
     */
    void scan(long confirmBefore) throws Throwable {
        boolean begin = true;
        long now = System.nanoTime();
        // every collection ended before this pass is judged by it: the survivors are as of the latest one
        int judged = nextCollection - 1;
        for (;;) {
            int rc = SamplerNatives.scan(scanOut, begin, confirmBefore);
            begin = false;
            int n = rc >>> 1;
            try {
                for (int i = 0; i < n; i++) {
                    scanned(i * SCAN_LONGS, now); // a method per entry, compiled early (see SampleDrain.process)
                }
            } finally {
                batch.handOver();
            }
            if ((rc & 1) != 0) {
                break;
            }
        }
        int slot = judged & (GC_SLOTS - 1);
        if (judged > 0 && gcOrdinal[slot] == judged) {
            liveSites.survivorsAsOf(gcStart[slot]);
        }
    }

    /** @return the {@link LiveSites} state of the library's held bits ({@code HELD_SURVIVOR}, {@code HELD_CONFIRMED}) */
    static int state(long heldBits) {
        return (heldBits & 2) != 0 ? LiveSites.CONFIRMED : (heldBits & 1) != 0 ? LiveSites.UNCONFIRMED : LiveSites.NEW;
    }

    /** Settles the scan output entry at {@code s} in {@link #scanOut}: held, or collected (a DEALLOCATE). */
    private void scanned(int s, long now) {
        long id = scanOut[s];
        int site = (int) scanOut[s + 1];
        long size = scanOut[s + 2];
        long time = scanOut[s + 3];
        long checked = scanOut[s + 4];
        long collectedBy = scanOut[s + 5]; // 0: not collected, it moved
        long held = scanOut[s + 6];
        double w = weights.weight(size);
        if (collectedBy == 0) {
            liveSites.moved(site, size, w, state(held & 0xFF), state(held >>> 8 & 0xFF));
            return;
        }
        long at;
        if (collectedBy > checked) {
            int ordinal = (int) (checked + 1);
            int slot = ordinal & (GC_SLOTS - 1);
            if (gcOrdinal[slot] != ordinal) {
                collections(); // collections that ended after this round's first look
            }
            // the end of the collection that freed it: after its start, before the next one's (the
            // recording's rule: a DEALLOCATE belongs to the last collection that started before it)
            at = gcOrdinal[slot] != ordinal ? now : gcEnd[slot] > gcStart[slot] ? gcEnd[slot]
                    : gcStart[slot] + 1;
            if (collectedBy > checked + 1) {
                ambiguous++;
            } else if (pauses != null) {
                pauses.freed(ordinal, time); // evidence for the collection log of what that pause examined
            }
        } else {
            at = now; // cleared concurrently (ZGC, Shenandoah): no pause began since it was seen alive
        }
        if (at < time) {
            at = time;
        }
        liveSites.collected(site, size, w, state(held));
        batch.events.add(at, DEALLOCATE, id, size, at - time, ownTid, ownNameId, 0, 0, 0, site);
        collected++;
    }

    /** @return samples collected by one of several collections that ended between two checks */
    long ambiguous() {
        return ambiguous;
    }

    /** @return tracked samples seen collected */
    long collected() {
        return collected;
    }

    /** @return the drain thread's name id (the thread of DEALLOCATE events) */
    int ownNameId() {
        return ownNameId;
    }

    /** @return the drain thread's id */
    long ownTid() {
        return ownTid;
    }
}
