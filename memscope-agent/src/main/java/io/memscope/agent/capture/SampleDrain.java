package io.memscope.agent.capture;

import io.memscope.MemoryEventType;
import io.memscope.agent.boot.SamplerNatives;

/**
 * Moves the JVMTI sampler library's queued samples out ({@code drain0}) and records them: each record's thread,
 * class and stack resolved ({@link SampleResolver}), the sample left out when it is memscope's own, a class mirror,
 * a JMX connector's work, outside include/exclude or unresolvable (each counted), else given its site and
 * Horvitz-Thompson weight ({@link SampleWeights}), recorded as an ALLOCATE and counted in {@link LiveSites}. The
 * library then learns which samples are kept and tracked ({@code commit0}). Drain thread only, under the sampler's
 * lock.
 *
 * <pre>
 *  records, RECORD_LONGS longs per sample (drain0; the native side draws it in sample_record.h):
 *   long  0        1        2        3        4        5              6                 7
 *        +--------+--------+--------+--------+--------+--------------+-----------------+-----------------+
 *        | index  | size   | time   | tid    | stack  | thread ref   | gc_epoch &lt;&lt; 32 | frame_pos &lt;&lt; 32 |
 *        |        |        |        |        | hash   | (jobject, 0) | | class_id      | | frames        |
 *        +--------+--------+--------+--------+--------+--------------+-----------------+-----------------+
 *   index: the live-table entry, -1 when the table is full (not tracked); frame_pos: where the stack's
 *   (jmethodID, bytecode index) pairs start in frames (in longs), frames: how many (0: the stack was sent before)
 *
 *  commit, COMMIT_LONGS longs per sample (commit0):
 *        +--------+-----------+---------+----------+
 *        | index  | sample id | site    | stack id |   site &lt; 0: not kept (the library drops the entry)
 *        +--------+-----------+---------+----------+
 * </pre>
 */
final class SampleDrain {
    /** Longs per record of the library's drain (see memscope_sampler.c, drain0). */
    static final int RECORD_LONGS = 8;
    /** Longs per entry of the library's commit0 input. */
    static final int COMMIT_LONGS = 4;
    /** Records moved per drain call. */
    static final int BATCH = 512;
    /** Drain calls per round of the drain thread at most. */
    private static final int ROUNDS = 64;
    private static final int ALLOCATE = MemoryEventType.ALLOCATE.code();

    private final SampleResolver resolver;
    private final SiteFilter filter;
    private final SampleWeights weights;
    private final LiveSites liveSites;
    /** The collection log, whose notification thread's samples are memscope's own; null when there is none. */
    private final CollectionLog pauses;
    private final SampleBatch batch;

    private final long[] records = new long[BATCH * RECORD_LONGS];
    private final long[] frames = new long[2 * 8192];
    private final long[] commit = new long[BATCH * COMMIT_LONGS];
    /** Entries of {@link #commit} filled by the batch being processed. */
    private int commits;

    private long sampleIds;
    private long kept;
    private long ownSamples;
    private long filtered;
    /** Samples of {@code java.lang.Class} objects (mirrors the JVM allocates while it loads a class), left out. */
    private long classMirrors;
    /** Samples of a JMX connector's work on JDK frames alone ({@link StackTable.JvmStack#jmxConnector}), left out. */
    private long jmxConnector;
    private long unresolved;
    private long untracked;

    SampleDrain(SampleResolver resolver, SiteFilter filter, SampleWeights weights, LiveSites liveSites,
                CollectionLog pauses, SampleBatch batch) {
        this.resolver = resolver;
        this.filter = filter;
        this.weights = weights;
        this.liveSites = liveSites;
        this.pauses = pauses;
        this.batch = batch;
    }

    /**
     * Moves queued samples out of the library and records them.
     *
     * @param all until the queue is empty (after {@link JvmtiHeapSampler#pause}: nothing is added any more); else at
     *            most {@value #ROUNDS} batches, what producers add meanwhile is taken next round
     * @return samples moved
     */
    long drainQueue(boolean all) throws Throwable {
        long total = 0;
        for (int round = 0; all || round < ROUNDS; round++) {
            int n = SamplerNatives.drain(records, frames, all);
            if (n <= 0) {
                break;
            }
            process(n);
            total += n;
        }
        return total;
    }

    /**
     * Records one batch of the library's drain ({@link #records}, {@link #frames}: see the class comment). The library
     * then learns which samples are kept ({@code commit0}).
     *
     * <p>The loop only calls {@link #record} per record: this method runs a few hundred times per capture, too few
     * for the JIT to compile it early (a loop body here would run interpreted for much of a short program), while
     * a method called per sample is compiled after a few thousand samples.
     */
    private void process(int n) {
        commits = 0;
        int i = 0;
        try {
            for (; i < n; i++) {
                record(i * RECORD_LONGS);
            }
            if (commits > 0) {
                SamplerNatives.commit(commit, commits);
            }
        } finally {
            batch.handOver(); // also those of the samples before a failure, as when each was recorded at once
            for (int j = i + 1; j < n; j++) {
                // records a failure left unread: their announcements' global references are still deleted
                long announce = records[j * RECORD_LONGS + 5];
                if (announce != 0) {
                    SamplerNatives.thread(announce);
                }
            }
        }
    }

    /** Records the sample of the record at {@code r} in {@link #records} (see {@link #process}). */
    private void record(int r) {
        long index = records[r];
        long tid = records[r + 3];
        long announce = records[r + 5];
        int classId = (int) records[r + 6];
        // the announcement first, whatever becomes of the sample: its global reference is deleted only by this call
        SampleResolver.ThreadInfo thread = announce != 0
                ? resolver.announce(tid, SamplerNatives.thread(announce))
                : resolver.thread(tid);
        if (classId != 0 && resolver.isClassMirror(classId, resolver.knows(classId) ? null
                : SamplerNatives.className(classId))) {
            // the JVM's class mirrors, allocated while a class loads: not the application's allocations
            classMirrors++;
            // Its stack is learnt all the same when its frames came with it: the library now names that stack by its
            // key alone, and the next sample there (the instance whose allocation loaded the class, at the same
            // bytecode) would otherwise be unresolvable and lost.
            long frameWord = records[r + 7];
            resolver.stack(records[r + 4], frames, (int) frameWord, (int) (frameWord >>> 32));
            if (index >= 0) {
                commit(index, 0, -1, 0);
            }
            return;
        }
        long frameWord = records[r + 7];
        StackTable.JvmStack js = resolver.stack(records[r + 4], frames, (int) frameWord, (int) (frameWord >>> 32));
        if (js == null) {
            unresolved++;
        } else if (js == StackTable.OWN || js.jdkOnly && thread != null && thread.notifications
                && pauses != null && pauses.listening()) {
            ownSamples++;
        } else if (js.jmxConnector || js.jdkOnly && thread != null && thread.jmxConnector) {
            jmxConnector++; // a JMX connector's work: memscope's own queries (live, top, accounting), or a tool's
        } else if (!filter.acceptsAll() && !js.accepted(filter)) {
            filtered++;
        } else {
            keep(r, index, tid, thread, js, classId);
            return;
        }
        if (index >= 0) {
            commit(index, 0, -1, 0);
        }
    }

    /** Records a sample that is kept: its site, weight, event and (when tracked) its live-table entry. */
    private void keep(int r, long index, long tid, SampleResolver.ThreadInfo thread, StackTable.JvmStack js,
                      int classId) {
        long size = records[r + 1];
        String typeName = resolver.typeName(classId, classId == 0 || resolver.knows(classId) ? null
                : SamplerNatives.className(classId));
        int site = js.site(classId, typeName);
        long id = ++sampleIds;
        double w = weights.weight(size);
        boolean tracked = index >= 0;
        if (tracked) {
            liveSites.sampled(site, size, w);
        } else {
            liveSites.allocatedOnly(site, size, w);
            untracked++;
        }
        batch.events.add(records[r + 2], ALLOCATE, tracked ? id : 0, size, 0, tid,
                thread == null ? 0 : thread.nameId, 0, resolver.typeNameId(classId), js.id, site);
        kept++;
        if (tracked) {
            commit(index, id, site, js.id);
        }
    }

    private void commit(long index, long id, int site, long stackId) {
        int c = commits++ * COMMIT_LONGS;
        commit[c] = index;
        commit[c + 1] = id;
        commit[c + 2] = site;
        commit[c + 3] = stackId;
    }

    /** @return samples recorded */
    long kept() {
        return kept;
    }

    /** @return samples recorded whose collection is not tracked (the live table was full) */
    long untracked() {
        return untracked;
    }

    /** @return samples of memscope's own allocations seen here, dropped */
    long own() {
        return ownSamples;
    }

    /** @return samples dropped by include/exclude */
    long filtered() {
        return filtered;
    }

    /** @return samples of a JMX connector's work, left out */
    long jmxConnector() {
        return jmxConnector;
    }

    /** @return samples of {@code java.lang.Class} objects, left out */
    long classMirrors() {
        return classMirrors;
    }

    /** @return samples whose stack could not be resolved (dropped) */
    long unresolved() {
        return unresolved;
    }
}
