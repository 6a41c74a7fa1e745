/*
 * Where the JVM samples a thread's allocations, and which of its samples memscope keeps (included once, by
 * memscope_sampler.c, after stack_key.h).
 *
 * HotSpot's heap sampler keeps, per thread, the distance in bytes to the thread's next sample (ThreadHeapSampler,
 * the first field of Thread::_heap_sampler, right after Thread::_allocated_bytes): the allocation that crosses it is
 * sampled, and a new distance is drawn from an exponential distribution whose mean is the interval. That would make
 * every object of s bytes sampled with probability p(s) = 1 - exp(-s/interval), the Poisson-by-bytes process whose
 * Horvitz-Thompson weights 1/p the estimates use. Two faults of the JVM break it, and this file works around both.
 *
 * 1. The draws are not random per thread (JDK 11 and later, 25 included). The generator's state (ThreadHeapSampler::
 *    _rnd) is one static shared by every thread, and each new thread's constructor reseeds it with the low 32 bits of
 *    the new thread's own address before drawing that thread's first distance. Thread structures come from malloc,
 *    which hands an ended thread's memory to the next one: short-lived threads get the same first distance again and
 *    again, and every draw made by any thread after a thread start continues the sequence of that same seed. A
 *    thread that allocates less than a few intervals is then sampled all or nothing, the same way as its
 *    predecessors at its address. Measured: 3,000 threads of 125 64-byte arrays each (24 MB) gave 1, 10 and 70 samples
 *    in three runs where 46 were due (JDK 17; 14, 2 and 2 on JDK 25).
 *    Remedy: memscope draws the distances itself, from a generator of its own per thread (splitmix64), and writes
 *    each into the thread's field at the two moments the JVM has just drawn one and not used it yet: at ThreadStart
 *    (on the new thread, before it runs any Java code; its TLAB is not even allocated) and in SampledObjectAlloc (the
 *    JVM posts the event after it drew the next distance and before it uses it to place the TLAB's sampling end).
 *    Only the running thread's own field is written, by that thread, which alone reads it. The field is trusted only
 *    once its content matched, exactly, the draw the JVM makes from a new thread's address (replicated here:
 *    jvm_first_distance) for DISTANCE_MATCHES threads; until then, or when the option says so, nothing is written.
 *
 * 2. The accounting of bytes is wrong around allocations outside the TLAB (JDK 11 to 24; JDK-8356372 rewrote it
 *    for JDK 25). An allocation outside the TLAB is compared with the distance as it stood when the TLAB's sampling
 *    end was last placed, not decreased by what the TLAB took since, and the TLAB's remaining space is counted again
 *    after it: objects allocated outside the TLAB (those that do not fit its free space) are sampled as if they were
 *    smaller by up to a distance, and the TLAB refill that follows takes the surplus. Measured on JDK 17, every size
 *    class from 16 B to 4 MiB allocated in one mixed stream: 256 KiB objects sampled 30% less often than p(s), 64 KiB
 *    11% less, objects up to 16 KiB 10% to 19% more often. The error of each object is at most about one distance, so
 *    it shrinks with the interval the JVM is given.
 *    Remedy (oversampling): the JVM is given an interval J that is a fraction of memscope's interval I (16 times
 *    smaller on JDK 24 and older) and each of its samples is kept with probability q(s) = p_I(s) / p_J(s), decided
 *    first in the callback, before the stack or anything else is taken: a kept sample was then taken with probability
 *    p_J(s) q(s) = p_I(s) and weighs 1/p_I(s), as before. Measured on the same stream with J = I/16: the JVM's rate
 *    within 2% of p_J(s) for every class but the 64 KiB one (twice J), 2% to 4% under; objects of 8 J and more are
 *    sampled by the JVM every time. (What is left: a TLAB's unused tail still counts as allocated at its refill,
 *    about +1% for small objects.) What it costs: a callback that is dropped at once (about 0.3 microseconds) per J bytes
 *    allocated.
 *
 * A thread's distance drawn before this capture started (under the interval in force then, prev_mean) is kept with
 * probability p_I(s) / p_prev(s) at its first sample, when that is below 1 (prev_mean is the JVM's default, 512 KiB,
 * or what the previous capture asked for).
 */
#include <math.h>
#include <time.h>

/* The distances' state: the field was not found, not confirmed yet, written by memscope, or left to the JVM (option). */
#define DISTANCES_UNKNOWN 0
#define DISTANCES_UNCONFIRMED 1
#define DISTANCES_OWN 2
#define DISTANCES_JVM 3
/* Threads whose field held the JVM's own first draw before the field is trusted. */
#define DISTANCE_MATCHES 2

/* memscope's mean interval (the samples' weights), the JVM's (J), and the JVM's before this capture's start0. */
static double keep_mean = 512.0 * 1024;
static double jvm_mean = 512.0 * 1024;
static double prev_jvm_mean = 512.0 * 1024;

static intptr_t thread_env_offset = -1;   /* JNIEnv* minus JavaThread* */
static int64_t distance_offset = -1;      /* the distance's offset in a JavaThread */
static volatile int distances_state = DISTANCES_UNKNOWN;
static volatile int32_t distance_matches;

/* Counters written by every allocating thread, one cache line per stripe (threads pick one when they first count). */
#define STRIPES 16
typedef struct {
    volatile int64_t offered;    /* samples the JVM delivered */
    volatile int64_t thinned;    /* ... left out by oversampling */
    volatile int64_t written;    /* distances drawn by memscope */
    char pad[40];
} stripe;
_Static_assert(sizeof(stripe) == 64, "one cache line per stripe");
static stripe stripes[STRIPES];
static volatile uint32_t stripe_next;

/* This thread's state, one thread-local block (one lookup per callback in a library loaded with dlopen). */
typedef struct {
    uint32_t drawn;     /* the capture (generation) in which its distance was last drawn with jvm_mean */
    uint64_t random;    /* its generator's state, 0 = not seeded */
    stripe *counters;   /* its stripe, NULL = none yet */
} sampling_thread;
static __thread sampling_thread tl_sampling;
static volatile uint64_t seed_counter;

static inline stripe *thread_stripe(sampling_thread *t) {
    if (t->counters == NULL) {
        t->counters = &stripes[__atomic_add_fetch(&stripe_next, 1, __ATOMIC_RELAXED) % STRIPES];
    }
    return t->counters;
}

static int64_t stripes_sum(size_t field) {
    int64_t n = 0;
    for (int i = 0; i < STRIPES; i++) {
        n += __atomic_load_n((int64_t *) ((char *) &stripes[i] + field), __ATOMIC_RELAXED);
    }
    return n;
}

/* splitmix64 over the thread's state, seeded once per thread from a global counter, the clock and the state's address. */
static inline uint64_t next_random(sampling_thread *t) {
    if (t->random == 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t c = __atomic_add_fetch(&seed_counter, 1, __ATOMIC_RELAXED);
        t->random = mix(c * UINT64_C(0x9E3779B97F4A7C15), (uint64_t) now.tv_nsec ^ (uint64_t) (uintptr_t) t);
        if (t->random == 0) {
            t->random = 1;
        }
    }
    uint64_t z = (t->random += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static inline double next_uniform(sampling_thread *t) {
    return (double) ((next_random(t) >> 11) + 1) * 0x1.0p-53;
}

/* An exponential distance with the given mean, at least 1 byte (as the JVM's). */
static inline uint64_t draw_distance(sampling_thread *t, double mean) {
    double d = -log(next_uniform(t)) * mean;
    return d < 1 ? 1 : (uint64_t) d;
}

/* ------------------------------------------------------------------------ the JVM's own draw, replicated */

static double jvm_log_table[1024];

/* HotSpot's ThreadHeapSampler::fast_log2: the exponent plus a table lookup on the top 10 bits of the mantissa. */
static double jvm_fast_log2(double d) {
    uint64_t x;
    memcpy(&x, &d, sizeof x);
    uint32_t high = (uint32_t) (x >> 32);
    uint32_t y = (high >> 10) & 1023;
    int32_t exponent = (int32_t) ((high >> 20) & 0x7FF) - 1023;
    return exponent + jvm_log_table[y];
}

/*
 * The first distance HotSpot draws for a thread whose sampler lives at `at`, with the given interval: its constructor
 * seeds the shared generator with the low 32 bits of its address (1 instead of 0), steps it once (a 48-bit linear
 * congruential generator, lrand48's) and turns the top 26 bits into an exponential distance.
 */
static uint64_t jvm_first_distance(uintptr_t at, double interval) {
    uint64_t rnd = (uint32_t) at;
    if (rnd == 0) {
        rnd = 1;
    }
    rnd = (UINT64_C(0x5DEECE66D) * rnd + 0xB) & ((UINT64_C(1) << 48) - 1);
    double q = (double) (uint32_t) (rnd >> (48 - 26)) + 1.0;
    double log_val = jvm_fast_log2(q) - 26;
    double result = (0.0 < log_val ? 0.0 : log_val) * (-log(2.0) * interval) + 1;
    return (uint64_t) result;
}

/* ------------------------------------------------------------------------------------------ the field */

/*
 * Finds the distance's field (once per JVM; start0, on a platform thread in a native method). The layout check that
 * matters comes later: the field is not written until its content matched the JVM's first draw (on_thread_start).
 */
static void distances_init(JNIEnv *jni, jclass thread_class) {
    if (thread_env_offset > 0 && distance_offset > 0) {
        return;
    }
    for (int i = 0; i < 1024; i++) {
        jvm_log_table[i] = log(1.0 + ((double) i + 0.5) / 1024) / log(2.0);
    }
    vm_tables t;
    if (!vm_tables_find(&t)) {
        return;
    }
    int64_t allocated = vm_field(&t, "Thread", "_allocated_bytes", 0);
    intptr_t env = java_thread_env_offset(jni, thread_class);
    if (allocated <= 0 || env <= 0) {
        return;
    }
    thread_env_offset = env;
    distance_offset = allocated + (int64_t) sizeof(jlong);
}

static inline uint64_t *distance_field(JNIEnv *jni) {
    return (uint64_t *) ((char *) jni - thread_env_offset + distance_offset);
}

/*
 * Called first in every SampledObjectAlloc callback, on the allocating thread, before anything else (the capture's
 * buffers included: it touches none of them): gives the thread its next distance (memscope's draw, when the field is
 * trusted) and says whether the sample is kept (oversampling).
 */
static inline int sample_kept(JNIEnv *jni, jlong size) {
    sampling_thread *t = &tl_sampling;
    stripe *c = thread_stripe(t);
    __atomic_add_fetch(&c->offered, 1, __ATOMIC_RELAXED);
    uint32_t gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    double drawn_with = t->drawn == gen ? jvm_mean : prev_jvm_mean;
    t->drawn = gen;
    if (__atomic_load_n(&distances_state, __ATOMIC_ACQUIRE) == DISTANCES_OWN) {
        *(volatile uint64_t *) distance_field(jni) = draw_distance(t, jvm_mean);
        __atomic_add_fetch(&c->written, 1, __ATOMIC_RELAXED);
    }
    if (drawn_with == keep_mean || size <= 0) {
        return 1;
    }
    /* q = p_I(s) / p_J(s), with p(s) = 1 - exp(-s/mean) = -expm1(-s/mean) */
    double q = expm1(-(double) size / keep_mean) / expm1(-(double) size / drawn_with);
    if (q >= 1 || next_uniform(t) <= q) {
        return 1;
    }
    __atomic_add_fetch(&c->thinned, 1, __ATOMIC_RELAXED);
    return 0;
}

/* Takes back the count of a sample sample_kept counted: one that arrived as the capture was ending. */
static inline void sample_not_offered(void) {
    __atomic_sub_fetch(&thread_stripe(&tl_sampling)->offered, 1, __ATOMIC_RELAXED);
}

/*
 * ThreadStart, on the new thread before it runs Java code: the JVM drew its first distance with the current
 * interval. Checks the field against that draw until it is trusted, then replaces the draw with memscope's.
 */
static void JNICALL on_thread_start(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
    (void) env;
    (void) thread;
    if (jni == NULL || !__atomic_load_n(&enabled, __ATOMIC_ACQUIRE)) {
        return;
    }
    sampling_thread *t = &tl_sampling;
    t->drawn = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    int state = __atomic_load_n(&distances_state, __ATOMIC_ACQUIRE);
    if (state != DISTANCES_UNCONFIRMED && state != DISTANCES_OWN) {
        return;
    }
    volatile uint64_t *d = distance_field(jni);
    if (state == DISTANCES_UNCONFIRMED) {
        if (*d != jvm_first_distance((uintptr_t) d, jvm_mean)) {
            return; /* another thread stepped the shared generator meanwhile, or this is not the field */
        }
        if (__atomic_add_fetch(&distance_matches, 1, __ATOMIC_ACQ_REL) < DISTANCE_MATCHES) {
            return;
        }
        int expected = DISTANCES_UNCONFIRMED;
        __atomic_compare_exchange_n(&distances_state, &expected, DISTANCES_OWN, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
    }
    *d = draw_distance(t, jvm_mean);
    __atomic_add_fetch(&thread_stripe(t)->written, 1, __ATOMIC_RELAXED);
}

/*
 * A capture's sampling points (start0, before the sampling event is enabled): memscope's interval, the JVM's, and
 * whether memscope draws the distances. Counters start again; a field trusted in an earlier capture stays trusted.
 */
static void distances_start(JNIEnv *jni, jclass thread_class, jint interval, jint jvm_interval, int own) {
    distances_init(jni, thread_class);
    keep_mean = (double) interval;
    jvm_mean = (double) jvm_interval;
    for (int i = 0; i < STRIPES; i++) {
        stripes[i].offered = stripes[i].thinned = stripes[i].written = 0;
    }
    if (thread_env_offset <= 0 || distance_offset <= 0) {
        distances_state = DISTANCES_UNKNOWN;
    } else if (!own) {
        distances_state = DISTANCES_JVM;
    } else {
        distances_state = distance_matches >= DISTANCE_MATCHES ? DISTANCES_OWN : DISTANCES_UNCONFIRMED;
    }
}

/* The end of a capture's sampling (pause0): later captures know what interval the JVM's threads drew with. */
static void distances_stop(void) {
    prev_jvm_mean = jvm_mean;
}
