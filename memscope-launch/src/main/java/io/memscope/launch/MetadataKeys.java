package io.memscope.launch;

/**
 * Well-known METADATA keys (docs/formats/recording.md, section 4.6.1): what the memscope agent writes and the
 * analysis reads. Values are strings; numbers are decimal. Other keys are free-form and shown as they are.
 */
public final class MetadataKeys {
    /** {@code sample} or {@code exact}. */
    public static final String MODE = "mode";
    /** Mean heap sampling interval in bytes (Poisson by bytes); the weight of a sample depends on it. */
    public static final String INTERVAL_BYTES = "intervalBytes";
    /** Start of the capture, {@link System#nanoTime()} of the recorded JVM. */
    public static final String START_NANOS = "startNanos";
    /** End of the capture (written when the recording is closed), {@link System#nanoTime()} of the recorded JVM. */
    public static final String END_NANOS = "endNanos";
    /**
     * When the last SITE_COUNTS snapshot was taken, {@link System#nanoTime()} of the recorded JVM: exact mode writes
     * its per-site totals every ten flush periods and at the end; in a recording that was not closed (the JVM was
     * killed) they are the totals as of this time.
     */
    public static final String SITE_COUNTS_NANOS = "siteCountsNanos";
    /** Wall-clock time of {@link #START_NANOS}, milliseconds since the epoch. */
    public static final String START_EPOCH_MS = "startEpochMillis";
    /** Process id of the recorded JVM. */
    public static final String PID = "pid";
    /** {@code java.version} of the recorded JVM. */
    public static final String JAVA_VERSION = "javaVersion";
    /**
     * {@code sun.java.command} of the recorded JVM: main class or jar, and arguments, the values of arguments that
     * look like secrets masked ({@code ***}) unless the agent's {@code commandLine} option says otherwise.
     */
    public static final String COMMAND = "command";
    /**
     * Exact mode: the heap bytes the JVM itself counted as allocated during the capture (ThreadMXBean; memscope's
     * own threads left out), written at the end: what exact mode's counts, which cover instrumented code only, are a
     * share of.
     */
    public static final String JVM_ALLOCATED_BYTES = "jvmAllocatedBytes";
    /** Which threads {@link #JVM_ALLOCATED_BYTES} covers: {@code all threads} (JDK 21+) or {@code threads alive at the end}. */
    public static final String JVM_ALLOCATED_SCOPE = "jvmAllocatedBytesScope";
    /** Number of memscope's own failures inside the recorded JVM (written at the end). */
    public static final String FAILURES = "failures";
    /** Prefix of the first failure messages: {@code failure.0}, {@code failure.1}, ... (written at the end). */
    public static final String FAILURE_PREFIX = "failure.";
    /**
     * Prefix of the agent's options as given ({@code option.<name>}: its option names, docs/agent.md), each value as
     * the user wrote it.
     */
    public static final String OPTION_PREFIX = "option.";
    /** The function profile's patterns, separated by {@code ;} ({@link FunctionPatterns}); absent without one. */
    public static final String OPTION_FUNCTIONS = OPTION_PREFIX + "functions";
    /** {@code true} when the JDK's own allocation sites were kept as sites (agent option {@code includeJdk}). */
    public static final String OPTION_INCLUDE_JDK = OPTION_PREFIX + "includeJdk";

    /**
     * Why the recording stopped before the capture ended (a write failed: {@code No space left on device}, an I/O
     * error, the memory limit of a recording held in memory); absent when it did not. Events after it are counted
     * in the END block's dropped events.
     */
    public static final String RECORDING_FAILURE = "recordingFailure";
    /** When the recording stopped ({@link #RECORDING_FAILURE}), {@link System#nanoTime()} of the recorded JVM. */
    public static final String RECORDING_FAILURE_NANOS = "recordingFailureNanos";
    /**
     * Times the JVM ran out of memory during the capture (JVMTI ResourceExhausted events, or an
     * {@code OutOfMemoryError} memscope's own threads met); absent when it did not. Written as soon as it is seen.
     */
    public static final String OUT_OF_MEMORY_COUNT = "outOfMemory.count";
    /** The first time the JVM ran out of memory, {@link System#nanoTime()} of the recorded JVM. */
    public static final String OUT_OF_MEMORY_FIRST_NANOS = "outOfMemory.firstNanos";
    /** The last time it did (as of the recording's last flush). */
    public static final String OUT_OF_MEMORY_LAST_NANOS = "outOfMemory.lastNanos";
    /** What ran out: {@code Java heap}, {@code threads}, or {@code memory} (metaspace, direct buffers...). */
    public static final String OUT_OF_MEMORY_KIND = "outOfMemory.kind";

    private MetadataKeys() {
    }

    /**
     * Heap bytes the capture itself held as it ended (its tables, buffers and out-of-memory reserves), estimated from
     * its tables' sizes (docs/agent.md "The agent's own heap"): part of the heap the JVM reports in use, never of what
     * memscope reports held.
     */
    public static final String AGENT_HEAP_BYTES = "agent.heapBytes";
    /**
     * The part of {@link #AGENT_HEAP_BYTES} that is the out-of-memory reserves (exact): held while the capture runs,
     * let go when it ends, before the end check's collection.
     */
    public static final String AGENT_RESERVE_BYTES = "agent.reserveBytes";
    /** {@code System.nanoTime()} when the capture let its reserves go: collections from then on do not hold them. */
    public static final String AGENT_RESERVES_RELEASED_NANOS = "agent.reservesReleasedNanos";

    /**
     * Collections the JVM reported that the agent read too late to time: they had left its log of the latest 4,096
     * (a drain thread stalled while the program collected thousands of times a second). Counted, with no record.
     */
    public static final String GC_COLLECTIONS_UNTIMED = "gc.collectionsUntimed";

    // Native malloc sampling (docs/agent.md "Native malloc"); absent when it was not asked for.
    /** Mean bytes between malloc samples; a sample of s bytes weighs s / (1 - exp(-s / this)). */
    public static final String MALLOC_INTERVAL_BYTES = "malloc.intervalBytes";
    /**
     * How malloc was sampled: {@code poisson} (memscope's hooks; the default when absent) or {@code counter}
     * (async-profiler's {@code nativemem}: the call that takes a byte counter past the interval is recorded; every
     * call at interval 0).
     */
    public static final String MALLOC_SAMPLING = "malloc.sampling";
    /** malloc samples taken (records queued by the hooks). */
    public static final String MALLOC_SAMPLES = "malloc.samples";
    /**
     * Samples lost because the hooks' ring was full: a sample sending its stack's frames (a sample by stack id and a
     * free wait in the table of live blocks instead: {@link #MALLOC_ALLOCS_DEFERRED}, {@link #MALLOC_FREES_DEFERRED}).
     * A lost sample's free is not reported either: never a freed block outstanding.
     */
    public static final String MALLOC_DROPPED = "malloc.dropped";
    /** Frees that found the hooks' ring full and waited in their block's slot until the drain sent them, in order. */
    public static final String MALLOC_FREES_DEFERRED = "malloc.freesDeferred";
    /** Samples by stack id that found the ring full and waited in their block's slot until the drain sent them. */
    public static final String MALLOC_ALLOCS_DEFERRED = "malloc.allocsDeferred";
    /**
     * Deferred records still unsent when the capture ended: samples waiting behind a ring record that was claimed and
     * never published (its thread held for good); their blocks are not in the recording. Normally 0.
     */
    public static final String MALLOC_DEFERRED_UNSENT = "malloc.deferredUnsent";
    /**
     * Bytes of ring records the drain could not read when the capture ended (behind a record claimed and never
     * published): their samples and frees are not in the recording. Normally 0.
     */
    public static final String MALLOC_RING_UNREAD_BYTES = "malloc.ringUnreadBytes";
    /** Samples not taken because the table of sampled live addresses had no room on the address's probe path. */
    public static final String MALLOC_UNTRACKED = "malloc.untracked";
    /** Sampled addresses allocated again while still live to memscope: their free bypassed the import table. */
    public static final String MALLOC_STALE_FREES = "malloc.staleFrees";
    /** Libraries whose allocator imports were patched (last count). */
    public static final String MALLOC_PATCHED_LIBRARIES = "malloc.patchedLibraries";
    /** Loaded libraries left alone (memscope's own, libc, ld.so, the vDSO). */
    public static final String MALLOC_SKIPPED_LIBRARIES = "malloc.skippedLibraries";
    /** {@code passed}, or {@code failed: <reason>}: the start-up check that a forced sample arrives whole. */
    public static final String MALLOC_SELF_TEST = "malloc.selfTest";
    /** Why malloc sampling turned itself off (absent when it ran). */
    public static final String MALLOC_OFF = "malloc.off";
    /**
     * malloc samples of Java threads whose Java stack AsyncGetCallTrace could not walk (named by their native function
     * or {@code (Java stack not walkable: <cause>)}); per cause under {@code malloc.noJavaStack.<cause>}, with the
     * samples of threads that had no Java frame to walk ({@code noJavaFrames}, {@code notAJvmThread}).
     */
    public static final String MALLOC_JAVA_STACK_NOT_WALKABLE = "malloc.javaStackNotWalkable";
    /** Prefix of the per-cause counts of malloc samples without Java frames (see above). */
    public static final String MALLOC_NO_JAVA_STACK_PREFIX = "malloc.noJavaStack.";
}
