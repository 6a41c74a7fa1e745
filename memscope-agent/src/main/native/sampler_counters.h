/*
 * The library's counters, by name (included once, by memscope_sampler.c): counters0 fills a long[] indexed by
 * enum ms_counter, and counterNames0 answers the names in the same order. The Java side reads them through the enum
 * io.memscope.agent.capture.SamplerCounter, whose constants carry exactly these names in exactly this order
 * (SamplerCountersTest compares the two): add a counter at the end of both.
 *
 * Exact counts unless said otherwise; "now" values are read when counters0 runs.
 *   SEEN                 samples the JVM handed over and oversampling kept
 *   QUEUED               samples queued in the ring
 *   DROPPED_FULL         samples dropped because the ring was full
 *   SKIPPED_EXCEPTION    samples skipped because the application had an exception pending
 *   SKIPPED_ERROR        samples skipped on a JNI or JVMTI failure
 *   CLASS_UNKNOWN        samples whose class could not be named
 *   TRACKED              entries in the live table now
 *   GC_STARTED           collections started since the library loaded
 *   GC_FINISHED          collections finished since the library loaded
 *   RING_CAPACITY        the ring's capacity in bytes
 *   RING_USED            bytes of the ring in use now
 *   STACKS_SENT          stacks whose frames were queued (first time seen)
 *   OWN_THREAD           samples of memscope's drain thread (not queued)
 *   PLAIN_READS          1 when handles are read plainly (else 0)
 *   DISAGREEMENTS        plain reads that disagreed with IsSameObject
 *   MARKED_AT_GC_START   mark passes run by a collection's start
 *   WEAK_REFS_HELD       weak global references the library holds now (samples and classes)
 *   GLOBAL_REFS_HELD     global references the library holds now (threads being announced)
 *   BUFFERS              buffers of a capture allocated now (0 between captures)
 *   STACKS_FROM_TABLE    stacks answered from the table of earlier JVMTI answers (stack_key.h)
 *   STACKS_NEW_KEYS      stacks the walk named for the first time
 *   STACKS_UNNAMED       stacks the walk could not name
 *   STACKS_CHECKED       answers from the table compared with JVMTI's
 *   STACKS_MISMATCHED    of those, the answers that differed
 *   STACK_KEYS           keys in the stack table now
 *   STACK_WALK           the walk's state: -2 off after a mismatch, -1 not tried, 0 layout not understood, 1 off,
 *                        2 on, 3 check
 *   OFFERED              samples the JVM delivered (sample_points.h)
 *   THINNED              of those, left out by oversampling
 *   DISTANCES            who draws the distances: 0 field not found, 1 not confirmed yet, 2 memscope, 3 the JVM
 *   DISTANCES_DRAWN      distances memscope drew
 *   EXHAUSTED_COUNT      ResourceExhausted events in this capture (sampler_lifecycle.h)
 *   EXHAUSTED_FIRST_NANOS  the first one's time (CLOCK_MONOTONIC), 0 when none
 *   EXHAUSTED_LAST_NANOS   the last one's time
 *   EXHAUSTED_FLAGS      the JVMTI_RESOURCE_EXHAUSTED_* flags seen, or-ed
 *   QUEUE_BROKEN         1 when the drain found the queue's memory overwritten (a record's length or layout that
 *                        on_sampled cannot have written): sampling stopped there and the queue was read no further
 *   CAPTURE_FIRST_COLLECTION  the ordinal of the capture's first collection (collections before it finished before
 *                        the capture started)
 */
#ifndef MEMSCOPE_SAMPLER_COUNTERS_H
#define MEMSCOPE_SAMPLER_COUNTERS_H

/* One list, expanded twice: the enum and the names cannot disagree. */
#define MS_COUNTERS(X) \
    X(SEEN) \
    X(QUEUED) \
    X(DROPPED_FULL) \
    X(SKIPPED_EXCEPTION) \
    X(SKIPPED_ERROR) \
    X(CLASS_UNKNOWN) \
    X(TRACKED) \
    X(GC_STARTED) \
    X(GC_FINISHED) \
    X(RING_CAPACITY) \
    X(RING_USED) \
    X(STACKS_SENT) \
    X(OWN_THREAD) \
    X(PLAIN_READS) \
    X(DISAGREEMENTS) \
    X(MARKED_AT_GC_START) \
    X(WEAK_REFS_HELD) \
    X(GLOBAL_REFS_HELD) \
    X(BUFFERS) \
    X(STACKS_FROM_TABLE) \
    X(STACKS_NEW_KEYS) \
    X(STACKS_UNNAMED) \
    X(STACKS_CHECKED) \
    X(STACKS_MISMATCHED) \
    X(STACK_KEYS) \
    X(STACK_WALK) \
    X(OFFERED) \
    X(THINNED) \
    X(DISTANCES) \
    X(DISTANCES_DRAWN) \
    X(EXHAUSTED_COUNT) \
    X(EXHAUSTED_FIRST_NANOS) \
    X(EXHAUSTED_LAST_NANOS) \
    X(EXHAUSTED_FLAGS) \
    X(QUEUE_BROKEN) \
    X(CAPTURE_FIRST_COLLECTION)

#define MS_COUNTER_ENUM(name) MS_##name,
enum ms_counter {
    MS_COUNTERS(MS_COUNTER_ENUM)
    MS_COUNTER_COUNT
};
#undef MS_COUNTER_ENUM

#define MS_COUNTER_NAME(name) #name,
static const char *const ms_counter_names[MS_COUNTER_COUNT] = {
    MS_COUNTERS(MS_COUNTER_NAME)
};
#undef MS_COUNTER_NAME

#endif
