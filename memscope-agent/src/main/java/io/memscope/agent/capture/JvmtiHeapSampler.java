package io.memscope.agent.capture;

import io.memscope.agent.boot.SamplerNatives;
import io.memscope.internal.error.Failures;
import io.memscope.internal.store.StringTable;
import io.memscope.launch.StackWalk;

/**
 * One capture's use of the JVM's own heap sampler (JVMTI {@code SampledObjectAlloc}, JEP 331) through the sampler
 * library ({@link SamplerLibrary}). The JVM samples each thread's allocations by bytes, a Poisson process whose mean
 * is the interval, from its allocation slow path (TLAB refills): the application's allocations pay nothing, and
 * allocations inside the JDK are seen like any other.
 *
 * <p><b>No Java in the callback.</b> The library's callback queues each sample in C (a weak global reference, the
 * class, size, thread, time and stack; see memscope_sampler.c). Everything else happens here, on memscope's drain
 * thread ({@link #drain}, {@link SampleDrain}): each method, stack, class and thread is resolved once; a sample gets
 * its site (the first frame outside the JDK and memscope's API, or the top frame with {@code includeJdk}) and its
 * Horvitz-Thompson weight, is recorded ({@link HeapSampleSink#events}, a batch at a time: {@link SampleBatch}) and its
 * weak reference is tracked by the library's live table.
 *
 * <p><b>Sampling points.</b> The samples the library hands over are a Poisson-by-bytes sample of mean
 * {@link #mean}, whatever the object size and however short-lived the threads: the library draws each thread's
 * distance to its next sample itself (the JVM reseeds its shared generator with every new thread's address), and
 * on JDK 24 and older gives the JVM a fraction of the interval ({@link #jvmInterval}) and keeps each of its samples
 * with probability p_mean(s) / p_jvmInterval(s) (the JVM's accounting around allocations outside TLABs is wrong by
 * up to a distance). The sampler library's sample_points.h says how; docs/agent.md, with the measurements. So every
 * sample weighs {@code 1/p} with p = 1 - exp(-s/mean).
 *
 * <p><b>Liveness, collection by collection.</b> After each collection the JVM reports (JVMTI
 * {@code GarbageCollectionStart/Finish}, numbered 1, 2, ... in the order they start, timed on
 * {@link System#nanoTime()}'s clock) the drain thread checks every tracked reference ({@link JvmtiLiveness#scan}). A sample seen
 * alive after collection k-1 and cleared after collection k was collected by collection k: its DEALLOCATE gets
 * collection k's start time. So "held at collection k" (allocated before it, collected after it or never) is exact
 * for stop-the-world collectors (Serial, Parallel, G1): a sample is taken outside a pause and survives any pause
 * during the callback (the callback holds a local reference), and each check reads the collection count around the
 * JVM's {@code IsSameObject}, inside which no pause can start. When several collections happened between two checks
 * of a sample (the drain thread did not run in between), the sample is attributed to the first of them and counted
 * in {@link #ambiguous()}. ZGC and Shenandoah clear weak references concurrently, between their pauses: a collection
 * is then attributed to the last pause that started before it was seen, and when none started since the sample was
 * last seen alive, to the time it was seen collected.
 *
 * <p><b>Memory.</b> Bounded: the library's queue (a fixed ring; samples that do not fit are dropped and counted
 * exactly), its live table ({@code liveLimit} samples; samples beyond it are recorded with sample id 0, "collection
 * not tracked", and counted in {@link #untracked()}), one entry per sampled class, stack and thread here.
 */
final class JvmtiHeapSampler {
    /** Longs per sample of the library's held0 answer. */
    static final int HELD_LONGS = 4;
    /** Nanoseconds the drain thread waits when nothing wakes it. */
    static final long IDLE_NANOS = 100_000_000L;

    private final double mean;
    /** The JVM's sampling interval (a fraction of {@link #mean} when oversampling). */
    private final long jvmInterval;
    private final StringTable strings;
    private final long[] counters = new long[SamplerCounter.COUNT];

    private final SampleResolver resolver;
    /** Queued samples to events ({@code ALLOCATE}s). */
    private final SampleDrain samples;
    /** Tracked samples to {@code DEALLOCATE}s and held states, collection by collection. */
    private final JvmtiLiveness liveness;
    /** The collections as JVMTI reports them, handed on for the GC records (memscope's own GC listener too). */
    private final CollectionLog pauses;
    private boolean closed;

    private JvmtiHeapSampler(StackTable stackTable, int depth, boolean includeJdk, SiteFilter filter,
                             double mean, long jvmInterval, StringTable strings, HeapSampleSink sink,
                             LiveSites liveSites, CollectionLog pauses) {
        this.resolver = new SampleResolver(stackTable, depth, includeJdk, strings);
        this.mean = mean;
        this.jvmInterval = jvmInterval;
        SampleWeights weights = new SampleWeights(mean);
        // one batch: the events of a drain and of a scan reach the sink in the order they were made
        SampleBatch batch = new SampleBatch(SampleDrain.BATCH, sink);
        this.samples = new SampleDrain(resolver, filter, weights, liveSites, pauses, batch);
        this.liveness = new JvmtiLiveness(weights, liveSites, pauses, batch);
        this.strings = strings;
        this.pauses = pauses;
    }

    /** The outcome of {@link #start}: a running sampler, or why there is none. */
    static final class Started {
        final JvmtiHeapSampler sampler;
        final String whyNot;

        Started(JvmtiHeapSampler sampler, String whyNot) {
            this.sampler = sampler;
            this.whyNot = whyNot;
        }
    }

    /**
     * Loads the library (once per JVM) and starts a capture's sampling and collection events. Samples queue in the
     * library until the drain thread ({@link #drainingThread}) takes them.
     *
     * @param stackTable       the capture's stacks, where the samples' stacks are resolved
     * @param intervalBytes    the mean interval of the samples kept (their weights)
     * @param jvmIntervalBytes the JVM's interval ({@link CaptureSettings#jvmIntervalBytes}): the library keeps each
     *                         of its samples with the probability that makes the kept ones samples of
     *                         {@code intervalBytes}
     * @param ownDistances     the library draws the threads' distances to their next sample
     * @param sampleHeap       false: only collections are reported (the bytecode sampler takes the samples)
     * @param ringBytes        the queue's size (rounded up to a power of two, at least 64 KiB)
     * @param liveLimit        samples tracked for collection at most
     */
    static Started start(StackTable stackTable, long intervalBytes, long jvmIntervalBytes, boolean ownDistances,
                         int stackDepth, boolean includeJdk, SiteFilter filter, boolean sampleHeap, long ringBytes,
                         int liveLimit, StackWalk stackWalk, StringTable strings, HeapSampleSink sink,
                         LiveSites liveSites, CollectionLog pauses) {
        if (sampleHeap && intervalBytes > Integer.MAX_VALUE) {
            return new Started(null, "interval " + intervalBytes + " is above the JVM sampler's limit of "
                    + Integer.MAX_VALUE + " bytes");
        }
        String why = SamplerLibrary.load();
        if (!why.isEmpty()) {
            return new Started(null, why);
        }
        try {
            int interval = (int) Math.min(intervalBytes, Integer.MAX_VALUE);
            int jvmInterval = (int) Math.max(1, Math.min(jvmIntervalBytes, interval));
            int rc = SamplerNatives.start(interval, jvmInterval, ownDistances,
                    Math.max(stackDepth, StackTable.SITE_SEARCH_FRAMES), ringBytes, liveLimit, sampleHeap,
                    stackWalk.code());
            if (rc != 0) {
                return new Started(null, "starting the JVMTI sampler failed: " + SamplerLibrary.describe(rc));
            }
            if (sampleHeap && intervalBytes < JVM_DEFAULT_INTERVAL) {
                crossFirstSamplingPoint();
            }
            JvmtiHeapSampler sampler = new JvmtiHeapSampler(stackTable, stackDepth, includeJdk, filter, intervalBytes,
                    jvmInterval, strings, sink, liveSites, pauses);
            if (pauses != null) {
                pauses.ordinals(new Ordinals());
            }
            return new Started(sampler, null);
        } catch (Throwable t) {
            return new Started(null, "starting the JVMTI sampler failed: " + t);
        }
    }

    /**
     * The library's collection counts, {@code started << 32 | finished}: equal halves mean no pause is running. A class,
     * not a lambda: nothing to bootstrap on the start-up path.
     */
    private static final class Ordinals implements java.util.function.LongSupplier {
        private final long[] counts = new long[SamplerCounter.GC_FINISHED.ordinal() + 1];

        @Override
        public synchronized long getAsLong() {
            SamplerNatives.counters(counts);
            return counts[SamplerCounter.GC_STARTED.ordinal()] << 32
                    | counts[SamplerCounter.GC_FINISHED.ordinal()] & 0xFFFF_FFFFL;
        }
    }

    /** The JVM's sampling interval when nobody set one (JEP 331). */
    private static final long JVM_DEFAULT_INTERVAL = 512 * 1024;
    /** Keeps the JIT from removing the allocations of {@link #crossFirstSamplingPoint}. */
    private static volatile Object keep;

    /**
     * A thread that already ran keeps the distance to its next sample that the JVM drew with the earlier interval
     * (512 KiB by default) until it takes that sample. With a smaller interval, the thread starting the capture (the
     * application's main thread, under {@code -javaagent}) would otherwise go unsampled for up to about that many
     * bytes: it allocates 4 MiB here (its samples are memscope's own, dropped), past that point with near certainty.
     */
    private static void crossFirstSamplingPoint() {
        for (int i = 0; i < 8; i++) {
            keep = new byte[512 * 1024];
        }
        keep = null;
    }

    /** Declares the thread that drains (its allocations are then not sampled; it is the thread of DEALLOCATEs). */
    void drainingThread(Thread t) {
        long tid = threadId(t);
        liveness.drainThread(tid, strings.intern(t.getName()));
        try {
            SamplerNatives.ownThread(tid);
        } catch (Throwable e) {
            Failures.report("agent.jvmti.own", e);
        }
    }

    /** Waits until a collection ends, the queue is half full, {@link #wake} is called, or {@code nanos} passed. */
    void await(long nanos) {
        try {
            SamplerNatives.await(nanos);
        } catch (Throwable t) {
            Failures.report("agent.jvmti.await", t);
        }
    }

    /**
     * The library forgets which stacks it sent: the next sample of each stack brings its frames again (a chunk of the
     * recording begins: it must define every stack it uses, and the capture may have dropped the text of stacks an
     * earlier chunk has). Never throws.
     */
    void forgetSentStacks() {
        try {
            SamplerNatives.forgetSentStacks();
        } catch (Throwable t) {
            Failures.report("agent.jvmti.forgetStacks", t);
        }
    }

    /** Ends a wait of {@link #await} (any thread). */
    void wake() {
        try {
            SamplerNatives.wake();
        } catch (Throwable t) {
            Failures.report("agent.jvmti.wake", t);
        }
    }

    /**
     * One round of the drain thread: moves queued samples out of the library, records and tracks them; then, when
     * collections ended since the last round, checks the tracked samples for collection. Never throws.
     *
     * @return samples moved
     */
    synchronized long drain() {
        if (closed) {
            return 0;
        }
        long n = 0;
        try {
            // Collections first (the mark passes cover the samples still queued, so draining after that changes no
            // attribution), the scan right after the queue. The GC details listener is registered after the scan of
            // the first collection: registering it loads java.lang.management (tens of milliseconds, more on a busy
            // machine), which must not stand between a collection and the check of what it collected (the check
            // after each collection is what attributes collections when the JVM's weak handles cannot be read
            // directly, see live_table.h).
            boolean ended = liveness.collections();
            n = samples.drainQueue(false);
            if (ended) {
                liveness.scan(CollectionLog.NO_VERDICT);
                if (pauses != null) {
                    pauses.caughtUp();
                }
            }
            liveness.judge(ended);
        } catch (Throwable t) {
            Failures.report("agent.jvmti.drain", t);
        }
        return n;
    }

    /**
     * Ends sampling (waits for callbacks in flight), takes the last samples, checks liveness once more (after the
     * collection the caller may have run) and frees the library's buffers and references. Never throws.
     */
    synchronized void close() {
        if (closed) {
            return;
        }
        try {
            int rc = SamplerNatives.pause();
            if (rc != 0) {
                Failures.report("agent.jvmti.stop", new IllegalStateException(SamplerLibrary.describe(rc)));
            }
            samples.drainQueue(true);
            liveness.collections();
            liveness.scan(CollectionLog.NO_VERDICT);
            if (pauses != null) {
                pauses.caughtUp();
            }
            liveness.cutNext();
            liveness.judge(true); // the collection the caller may have run: what it examined
            readCounters();
            if (counter(SamplerCounter.QUEUE_BROKEN) != 0) {
                // the library stopped sampling where it found the queue overwritten: the samples after are missing
                Failures.report("agent.jvmti.queue", new IllegalStateException(
                        "the JVMTI sampler's queue was found overwritten; sampling stopped there"));
            }
            rc = SamplerNatives.close();
            if (rc != 0) {
                Failures.report("agent.jvmti.close", new IllegalStateException(SamplerLibrary.describe(rc)));
            }
        } catch (Throwable t) {
            Failures.report("agent.jvmti.close", t);
        } finally {
            closed = true;
        }
    }

    /** Stops sampling at once (waits for callbacks in flight); {@link #close} does the rest. Never throws. */
    void pause() {
        try {
            int rc = SamplerNatives.pause();
            if (rc != 0) {
                Failures.report("agent.jvmti.stop", new IllegalStateException(SamplerLibrary.describe(rc)));
            }
        } catch (Throwable t) {
            Failures.report("agent.jvmti.stop", t);
        }
    }

    /**
     * The tracked samples taken in {@code [fromNanos, toNanos)} by the given threads whose object is reachable now
     * (after draining what is queued, so that the latest samples count). Any thread; never throws.
     *
     * @param sortedThreads Java thread ids, sorted
     * @param threadsFrom   also every thread whose id is at least this
     * @return (site, stack id, size, held bits: 2 = confirmed by a collection that examined the whole heap) per sample,
     *         or null when it could not be answered
     */
    long[] reachable(long fromNanos, long toNanos, long[] sortedThreads, long threadsFrom) {
        drain();
        synchronized (this) {
            if (closed) {
                return new long[0];
            }
            try {
                return SamplerNatives.held(fromNanos, toNanos, sortedThreads, threadsFrom);
            } catch (Throwable t) {
                Failures.report("agent.jvmti.held", t);
                return null;
            }
        }
    }

    /** Passes the collections ended so far to the collection log (end of capture, before {@link #close}). */
    synchronized void collectionsSoFar() {
        if (closed) {
            return;
        }
        try {
            liveness.collections();
        } catch (Throwable t) {
            Failures.report("agent.jvmti.collections", t);
        }
    }

    /** @return collections the JVM reported finished through JVMTI since the library loaded (reads its counters) */
    long finishedCollections() {
        readCounters();
        return counter(SamplerCounter.GC_FINISHED);
    }

    /**
     * Walks the heap from the GC roots ({@link HeapWalk}) for the samples tracked now (after draining what is
     * queued and checking what the collections since the last round freed). Any thread; the drain thread waits meanwhile. Never throws.
     *
     * @return the walk, or null once the sampler is closed
     */
    io.memscope.recording.RetentionWalk walkHeap(HeapWalk.Budget budget, String trigger) {
        drain();
        synchronized (this) {
            if (closed) {
                return null;
            }
            return HeapWalk.run(budget, trigger);
        }
    }

    /** @return the mean sampling interval in bytes (the samples' weights) */
    double mean() {
        return mean;
    }

    /** @return the interval the JVM's sampler was given (a fraction of {@link #mean} when oversampling) */
    long jvmInterval() {
        return jvmInterval;
    }

    /**
     * Who drew the threads' distances to their next sample: {@code memscope}; {@code jvm} (as asked,
     * {@code jvmDistances=jvm}); {@code jvm: not confirmed} (no thread started during the capture showed the JVM's
     * own first draw in the field memscope would write); {@code jvm: layout not found} (the JVM does not publish
     * where its threads' allocation counters are).
     */
    String distancesState() {
        long state = counter(SamplerCounter.DISTANCES);
        return state == 2 ? "memscope" : state == 3 ? "jvm" : state == 1 ? "jvm: not confirmed"
                : "jvm: layout not found";
    }

    /** Reads the library's counters into {@link #counter}. */
    synchronized void readCounters() {
        if (closed) {
            return;
        }
        try {
            SamplerNatives.counters(counters);
        } catch (Throwable t) {
            Failures.report("agent.jvmti.counters", t);
        }
    }

    /**
     * The stack walk's state at the end: {@code on}, {@code check}, {@code off} (as asked), {@code unavailable} (this
     * JVM's layout was not understood: every stack came from JVMTI) or {@code off after a mismatch} (an answer from
     * the table differed from JVMTI's; every later stack came from JVMTI).
     */
    String stackWalkState() {
        long state = counter(SamplerCounter.STACK_WALK);
        if (counter(SamplerCounter.STACKS_MISMATCHED) > 0 || state == -2) {
            return "off after a mismatch";
        }
        if (state == 0) {
            return "unavailable";
        }
        return state == 3 ? "check" : state == 2 ? "on" : "off"; // -1: not tried, as asked
    }

    /** @return a counter of the library as last read by {@link #readCounters} */
    synchronized long counter(SamplerCounter counter) {
        return counters[counter.ordinal()];
    }

    /** @return samples recorded */
    synchronized long kept() {
        return samples.kept();
    }

    /** @return what the records refer to, resolved (its tables' sizes and counters: {@link TableBounds}) */
    SampleResolver resolver() {
        return resolver;
    }

    /** @return samples recorded whose collection is not tracked (the live table was full) */
    synchronized long untracked() {
        return samples.untracked();
    }

    /** @return samples collected by one of several collections that ended between two checks */
    synchronized long ambiguous() {
        return liveness.ambiguous();
    }

    /** @return tracked samples seen collected */
    synchronized long collected() {
        return liveness.collected();
    }

    /** @return samples of memscope's own allocations, dropped (the drain thread's are not even queued) */
    synchronized long own() {
        return samples.own() + counters[SamplerCounter.OWN_THREAD.ordinal()];
    }

    /**
     * @return samples the JVM handed over that were lost: the queue was full, the callback met a JNI failure or a
     *         pending exception, or the stack could not be resolved (reads the library's counters)
     */
    long lost() {
        readCounters();
        synchronized (this) {
            return counters[SamplerCounter.DROPPED_FULL.ordinal()] + counters[SamplerCounter.SKIPPED_ERROR.ordinal()]
                    + counters[SamplerCounter.SKIPPED_EXCEPTION.ordinal()] + samples.unresolved();
        }
    }

    /** @return samples dropped by include/exclude */
    synchronized long filtered() {
        return samples.filtered();
    }

    /** @return samples of a JMX connector's work, left out */
    synchronized long jmxConnector() {
        return samples.jmxConnector();
    }

    /** @return samples of {@code java.lang.Class} objects, left out */
    synchronized long classMirrors() {
        return samples.classMirrors();
    }

    /** @return samples whose stack could not be resolved (dropped) */
    synchronized long unresolved() {
        return samples.unresolved();
    }

    /** @return the drain thread's name id (the thread of DEALLOCATE events) */
    int ownNameId() {
        return liveness.ownNameId();
    }

    /** @return the drain thread's id */
    long ownTid() {
        return liveness.ownTid();
    }

    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is Java 19+
    private static long threadId(Thread t) {
        return t.getId();
    }
}
