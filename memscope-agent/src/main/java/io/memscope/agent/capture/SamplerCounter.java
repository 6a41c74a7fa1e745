package io.memscope.agent.capture;

/**
 * The JVMTI sampler library's counters, as {@code counters0} fills them (native/sampler_counters.h): the constants
 * carry the library's names in the library's order, so {@link #ordinal()} is the index into the array it fills
 * ({@code SamplerCountersTest} compares them with the names the library answers). Exact counts unless said otherwise;
 * "now" values are read at the call.
 */
enum SamplerCounter {
    /** Samples the JVM handed over and oversampling kept ({@link #OFFERED} counts every one). */
    SEEN,
    /** Samples queued in the library's ring. */
    QUEUED,
    /** Samples dropped because the ring was full. */
    DROPPED_FULL,
    /** Samples skipped because the application had an exception pending. */
    SKIPPED_EXCEPTION,
    /** Samples skipped on a JNI or JVMTI failure. */
    SKIPPED_ERROR,
    /** Samples whose class could not be named. */
    CLASS_UNKNOWN,
    /** Entries in the live table now. */
    TRACKED,
    /** Collections started since the library loaded. */
    GC_STARTED,
    /** Collections finished since the library loaded. */
    GC_FINISHED,
    /** The ring's capacity in bytes. */
    RING_CAPACITY,
    /** Bytes of the ring in use now. */
    RING_USED,
    /** Stacks whose frames were queued (the first time each was seen). */
    STACKS_SENT,
    /** Samples of memscope's drain thread (not queued). */
    OWN_THREAD,
    /** 1 when handles are read plainly, else 0. */
    PLAIN_READS,
    /** Plain reads of handles that disagreed with IsSameObject. */
    DISAGREEMENTS,
    /** Mark passes run by a collection's start. */
    MARKED_AT_GC_START,
    /** Weak global references the library holds now (samples and classes). */
    WEAK_REFS_HELD,
    /** Global references the library holds now (threads being announced). */
    GLOBAL_REFS_HELD,
    /** Buffers of a capture allocated now: 0 between captures (what attach, detach, attach again must leave). */
    BUFFERS,
    /** Stacks answered from the table of earlier JVMTI answers (the walk named them). */
    STACKS_FROM_TABLE,
    /** Stacks the walk named for the first time: JVMTI answered, and the answer was kept. */
    STACKS_NEW_KEYS,
    /** Stacks the walk could not name (a frame it does not know exactly): JVMTI answered. */
    STACKS_UNNAMED,
    /** Answers from the table compared with JVMTI's. */
    STACKS_CHECKED,
    /** Of {@link #STACKS_CHECKED}, the answers that differed. */
    STACKS_MISMATCHED,
    /** Keys in the stack table now. */
    STACK_KEYS,
    /**
     * The walk's state: -2 off since a reused answer differed (in this capture or an earlier one), -1 not tried, 0 the
     * JVM's layout not understood, 1 off, 2 on, 3 check.
     */
    STACK_WALK,
    /** Samples the JVM delivered (every one: {@link #SEEN} counts those oversampling kept). */
    OFFERED,
    /** Samples left out by oversampling (kept with probability p_interval(s) / p_jvmInterval(s)). */
    THINNED,
    /** Who draws the threads' distances to their next sample: see {@link JvmtiHeapSampler#distancesState()}. */
    DISTANCES,
    /** Distances memscope drew. */
    DISTANCES_DRAWN,
    /** JVMTI ResourceExhausted events since the capture started. */
    EXHAUSTED_COUNT,
    /** The first ResourceExhausted event's time (System.nanoTime's clock), 0 when none. */
    EXHAUSTED_FIRST_NANOS,
    /** The last ResourceExhausted event's time. */
    EXHAUSTED_LAST_NANOS,
    /** The JVMTI_RESOURCE_EXHAUSTED_* flags seen, or-ed. */
    EXHAUSTED_FLAGS,
    /**
     * 1 when the drain found the queue's memory overwritten (a record on_sampled cannot have written): sampling
     * stopped there and the queue was read no further, instead of zeroing or reading past the bad record.
     */
    QUEUE_BROKEN,
    /** The ordinal of the capture's first collection: those before it finished before the capture started. */
    CAPTURE_FIRST_COLLECTION;

    /** Length of the array counters0 fills. */
    static final int COUNT = values().length;
}
