/*
 * libmemscope-sampler: the JVM's own heap sampler (JVMTI SampledObjectAlloc, JEP 331) for memscope's sample mode.
 *
 * The JVM samples each thread's allocations by bytes (a Poisson process whose mean is the interval set with
 * SetHeapSamplingInterval) from its allocation slow path: nothing is added to the application's own allocations.
 *
 * No Java code runs in the callback. on_sampled, on the allocating thread, only takes what must be taken there and
 * queues it (sample_ring.h, a bounded ring with many producers and one consumer, never waiting):
 *   - a weak global reference to the object (its liveness is checked later, after each GC);
 *   - its class, as a small id from a table keyed by the class's identity hash (the class's name is read once);
 *   - its size, the thread's Java id, the time (CLOCK_MONOTONIC: System.nanoTime's clock on Linux);
 *   - the stack from GetStackTrace as a 64-bit hash of its (jmethodID, bytecode index) pairs, with the frames
 *     themselves only the first time that hash is queued; when a walk of the thread's own frames names the stack
 *     and GetStackTrace answered for that name before, its earlier answer (stack_key.h);
 *   - the number of GCs started so far.
 * A sample that does not fit is counted as dropped (exactly) and its references deleted.
 *
 * memscope's drain thread (Java, io.memscope.agent.capture.JvmtiHeapSampler) takes the records out (drain0: their
 * weak references move into the live table, live_table.h), resolves methods, stacks, classes and threads once
 * each, records the samples and says which it keeps (commit0). After each collection (GarbageCollectionFinish wakes
 * it through a semaphore) it checks every tracked reference (scan0): one that collection cleared was collected by it.
 * When the next collection starts before the drain thread got to it, the collection's start callback does that
 * check first, so that every reference is checked between every two collections (live_table.h).
 *
 * Rules: never crash or block the application. Every JVMTI and JNI return code is checked; an exception the
 * application has pending when a sample arrives is left alone (the sample is counted as skipped); the callback
 * takes no lock (compare-and-swap only) and allocates only on the C heap (a first-seen class's name, a stack deeper
 * than 128 frames). The buffers of a capture are freed by close0 only after every callback that could still use
 * them has returned.
 *
 * One translation unit (the agent pom compiles this file alone, so every function stays static and inlinable); its
 * parts are headers, each included once: sample_ring.h (the queue), sample_record.h (the record layouts, drawn),
 * sampler_counters.h (the counters, by name), live_table.h (collections and the samples watched), stack_key.h (the
 * stack walk), sample_points.h (the distances between samples), sampler_lifecycle.h (a capture's start and end,
 * ResourceExhausted), sample_drain.h (the drain thread's calls), heap_walk.h (paths from the GC roots).
 */
#include <errno.h>
#include <jni.h>
#include <jvmti.h>
#include <sched.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sample_ring.h"
#include "sample_record.h"
#include "sampler_counters.h"

_Static_assert(sizeof(jvmtiFrameInfo) == 2 * sizeof(jlong), "jvmtiFrameInfo must be two 64-bit words");
_Static_assert(offsetof(jvmtiFrameInfo, location) == sizeof(jlong), "jvmtiFrameInfo.location must be the second word");
_Static_assert(sizeof(jmethodID) == sizeof(jlong), "64-bit only");

static JavaVM *vm;
static jvmtiEnv *jvmti;

/* ---------------------------------------------------------------------------------------------- the queue */

/* The queued sample record and what drain0 hands to Java: sample_record.h. */

/* ------------------------------------------------------------------------------------ state of a capture */

static volatile int enabled;
/* Callbacks between their first check of `enabled` and their return (see pause0). */
static volatile int in_flight;
/* Bumped by start0: a thread's announcement (TLS) of an earlier capture does not count. */
static volatile uint32_t generation;
static sample_ring ring;
static volatile int ring_signaled;
static jint frames_wanted = 128;
#define MAX_FRAMES 1024
#define STACK_FRAMES 128

/*
 * Whether a record in the ring is a sample as on_sampled writes it: its kind, and a length its frame count accounts
 * for. The consumers check it before they use a record's fields: a record that fails means the ring's memory was
 * overwritten, and the queue is then given up (ring.broken, counted) rather than read further.
 */
static inline int sample_record_valid(const sample_record *r) {
    return r->header.kind == RECORD_SAMPLE && r->frames <= MAX_FRAMES
            && (uint32_t) r->header.length == (uint32_t) sizeof(sample_record) + r->frames * (uint32_t) sizeof(jvmtiFrameInfo);
}

/* The ring was found overwritten: sampling stops (the callbacks return at once), the queue is read no further. */
static void ring_give_up(void) {
    ring.broken = 1;
    __atomic_store_n(&enabled, 0, __ATOMIC_SEQ_CST);
}
/* Java id of memscope's drain thread: its own allocations are not sampled. */
static volatile jlong own_tid = -1;
static jfieldID tid_field;

/* Exact counters (atomics), read by counters0. */
static volatile int64_t samples_seen;
static volatile int64_t samples_queued;
static volatile int64_t dropped_full;
static volatile int64_t skipped_exception;
static volatile int64_t skipped_error;
static volatile int64_t classes_unknown;
static volatile int64_t skipped_own;
/* References the library holds now (weak: samples and classes; global: threads being announced). */
static volatile int64_t weak_refs_held;
static volatile int64_t global_refs_held;

static inline jweak new_weak(JNIEnv *jni, jobject o) {
    jweak w = (*jni)->NewWeakGlobalRef(jni, o);
    if (w != NULL) {
        __atomic_add_fetch(&weak_refs_held, 1, __ATOMIC_RELAXED);
    }
    return w;
}

static inline void delete_weak(JNIEnv *jni, jweak w) {
    if (w != NULL) {
        (*jni)->DeleteWeakGlobalRef(jni, w);
        __atomic_sub_fetch(&weak_refs_held, 1, __ATOMIC_RELAXED);
    }
}

static inline jobject new_global(JNIEnv *jni, jobject o) {
    jobject g = (*jni)->NewGlobalRef(jni, o);
    if (g != NULL) {
        __atomic_add_fetch(&global_refs_held, 1, __ATOMIC_RELAXED);
    }
    return g;
}

static inline void delete_global(JNIEnv *jni, jobject g) {
    if (g != NULL) {
        (*jni)->DeleteGlobalRef(jni, g);
        __atomic_sub_fetch(&global_refs_held, 1, __ATOMIC_RELAXED);
    }
}

/* Wakes the drain thread: after each GC, when the ring is half full, and at stop. */
static sem_t wake;
static int wake_ready;

static inline jlong now_nanos(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (jlong) t.tv_sec * 1000000000LL + t.tv_nsec;
}

static inline uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + UINT64_C(0x9E3779B97F4A7C15) + (h << 6) + (h >> 2);
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    return h ^ (h >> 31);
}

/* A 64-bit hash of the raw frames (jmethodID, bytecode index pairs), never 0: the stack's key. */
static jlong hash_frames(const jvmtiFrameInfo *frames, jint count) {
    uint64_t h = UINT64_C(0x2545F4914F6CDD1D);
    for (jint i = 0; i < count; i++) {
        h = mix(h, (uint64_t) (uintptr_t) frames[i].method);
        h = mix(h, (uint64_t) frames[i].location);
    }
    return h == 0 ? 1 : (jlong) h;
}

#include "live_table.h"
#include "stack_key.h"
#include "sample_points.h"

/* --------------------------------------------------------------------------------------- stacks already sent */

/*
 * Hashes of stacks whose frames were queued: later samples of the same stack carry only the hash. A hash is added
 * after its record was claimed, so every record that carries only the hash comes after one with the frames (the
 * consumer reads in claim order). Insert-only, lock-free; when full, stacks not in it are sent with their frames.
 */
#define STACK_SET_SLOTS (1u << 16)
#define STACK_SET_LIMIT (STACK_SET_SLOTS / 2)
#define STACK_PROBES 16
static uint64_t *stack_set;
static volatile uint32_t stack_set_count;

static int stack_sent(uint64_t h) {
    uint32_t i = (uint32_t) (h ^ (h >> 32));
    for (int p = 0; p < STACK_PROBES; p++) {
        uint64_t v = __atomic_load_n(&stack_set[(i + p) & (STACK_SET_SLOTS - 1)], __ATOMIC_ACQUIRE);
        if (v == h) {
            return 1;
        }
        if (v == 0) {
            return 0;
        }
    }
    return 0;
}

static void stack_remember(uint64_t h) {
    if (__atomic_load_n(&stack_set_count, __ATOMIC_RELAXED) >= STACK_SET_LIMIT) {
        return;
    }
    uint32_t i = (uint32_t) (h ^ (h >> 32));
    for (int p = 0; p < STACK_PROBES; p++) {
        uint64_t *slot = &stack_set[(i + p) & (STACK_SET_SLOTS - 1)];
        uint64_t v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (v == h) {
            return;
        }
        if (v == 0) {
            uint64_t expected = 0;
            if (__atomic_compare_exchange_n(slot, &expected, h, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
                __atomic_add_fetch(&stack_set_count, 1, __ATOMIC_RELAXED);
                return;
            }
            if (expected == h) {
                return;
            }
        }
    }
}

/*
 * Forgets which stacks were sent: the next sample of each stack carries its frames again. Called when a chunk of a
 * chunked recording begins: the chunk must define every stack its samples use, and the agent may have dropped the
 * text of a stack it wrote into an earlier chunk (its bounded stack table). A sample that read the set just before
 * it was emptied still carries only the hash (the drain thread then waits for a later sample of that stack with
 * frames); a slot emptied in the middle of a probe sequence only makes a stack send its frames once more.
 */
JNIEXPORT void JNICALL Java_java_lang_MemscopeHooks_jvmtiForgetSentStacks0(JNIEnv *jni, jclass cls) {
    (void) jni;
    (void) cls;
    lock_table(); /* free_capture frees the set under this lock */
    if (stack_set != NULL) {
        for (uint32_t i = 0; i < STACK_SET_SLOTS; i++) {
            __atomic_store_n(&stack_set[i], 0, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&stack_set_count, 0, __ATOMIC_RELAXED);
    }
    unlock_table();
}

/* ------------------------------------------------------------------------------------------------- classes */

/*
 * Sampled classes: slot index + 1 is the class id of a record. Keyed by the class's identity hash and confirmed with
 * IsSameObject on a weak reference (a class can be unloaded). The name (JVM signature) is read once, when the class
 * is first seen, so that it is known even if the class is gone by the time the drain thread reads it.
 */
#define CLASS_SLOTS (1u << 14)
#define CLASS_PROBES 16
#define CLASS_EMPTY 0
#define CLASS_CLAIMED 1
#define CLASS_READY 2
#define CLASS_BROKEN 3

typedef struct {
    uint32_t state;
    jint hash;
    jweak ref;
    char *name;
} class_entry;

static class_entry *classes;

static uint32_t class_id(JNIEnv *jni, jclass klass) {
    jint hash = 0;
    if (klass == NULL || (*jvmti)->GetObjectHashCode(jvmti, klass, &hash) != JVMTI_ERROR_NONE) {
        return 0;
    }
    uint32_t start = (uint32_t) mix(UINT64_C(0x51ED27), (uint64_t) (uint32_t) hash);
    for (uint32_t p = 0; p < CLASS_PROBES; p++) {
        uint32_t index = (start + p) & (CLASS_SLOTS - 1);
        class_entry *e = &classes[index];
        uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
        if (state == CLASS_EMPTY) {
            uint32_t expected = CLASS_EMPTY;
            if (__atomic_compare_exchange_n(&e->state, &expected, CLASS_CLAIMED, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                char *sig = NULL;
                jweak ref = new_weak(jni, klass);
                if (ref != NULL && (*jvmti)->GetClassSignature(jvmti, klass, &sig, NULL) == JVMTI_ERROR_NONE
                        && sig != NULL) {
                    size_t n = strlen(sig) + 1;
                    e->name = malloc(n);
                    if (e->name != NULL) {
                        memcpy(e->name, sig, n);
                    }
                }
                if (sig != NULL) {
                    (*jvmti)->Deallocate(jvmti, (unsigned char *) sig);
                }
                if (ref == NULL || e->name == NULL) {
                    delete_weak(jni, ref);
                    __atomic_store_n(&e->state, CLASS_BROKEN, __ATOMIC_RELEASE);
                    return 0;
                }
                e->hash = hash;
                e->ref = ref;
                __atomic_store_n(&e->state, CLASS_READY, __ATOMIC_RELEASE);
                return index + 1;
            }
            state = expected;
        }
        if (state == CLASS_READY && e->hash == hash && (*jni)->IsSameObject(jni, klass, e->ref)) {
            return index + 1;
        }
        /* CLAIMED: another thread is filling it (perhaps for this class: then it gets two ids, one name). */
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------- the callback */

/* The Java id this thread announced in the current capture (generation << 1 | 1 marks it valid). */
static __thread jlong announced_tid;
static __thread uint32_t announced_generation;

/*
 * One function (about 120 lines) on purpose: the allocating thread's whole path, in the order it runs, each early
 * return next to the in_flight decrement it owes.
 */
static void JNICALL on_sampled(jvmtiEnv *env, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                               jlong size) {
    /* First the thread's next distance and whether the sample is kept (sample_points.h), which uses none of the
       capture's buffers: a sample left out costs nothing more, not even the two barriers of in_flight. */
    if (jni == NULL || !sample_kept(jni, size)) {
        return;
    }
    __atomic_add_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&enabled, __ATOMIC_SEQ_CST) || object == NULL) {
        sample_not_offered(); /* the capture is ending: not one of its samples */
        __atomic_sub_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
        return;
    }
    __atomic_add_fetch(&samples_seen, 1, __ATOMIC_RELAXED);
    if ((*jni)->ExceptionCheck(jni)) {
        /* the application's exception: JNI may not be used now */
        __atomic_add_fetch(&skipped_exception, 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
        return;
    }
    jlong tid = thread != NULL && tid_field != NULL ? (*jni)->GetLongField(jni, thread, tid_field) : 0;
    if (tid == own_tid && tid > 0) {
        __atomic_add_fetch(&skipped_own, 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
        return;
    }
    jlong time = now_nanos();
    jvmtiFrameInfo local[STACK_FRAMES];
    jvmtiFrameInfo *frames = local;
    jint wanted = frames_wanted;
    jint count = 0;
    /* The stack: from the table of earlier answers when the walk names it (stack_key.h), else from JVMTI. */
    uint64_t key = 0;
    uint64_t cached = 0;
    jlong stack = 0;
    uint32_t send = 0;
    if (__atomic_load_n(&stack_walk_mode, __ATOMIC_ACQUIRE) != STACK_WALK_OFF) {
        key = stack_key(jni, wanted);
        if (key == 0) {
            __atomic_add_fetch(&stacks_unkeyed, 1, __ATOMIC_RELAXED);
        } else {
            cached = key_lookup(key);
            if (cached != 0 && stack_sent(cached) && !check_due()) {
                stack = (jlong) cached;
                __atomic_add_fetch(&stacks_from_table, 1, __ATOMIC_RELAXED);
            }
        }
    }
    if (stack == 0) {
        if (wanted > STACK_FRAMES) {
            frames = malloc(sizeof(jvmtiFrameInfo) * (size_t) wanted);
            if (frames == NULL) {
                frames = local;
                wanted = STACK_FRAMES;
                key = 0; /* a shorter answer than the key stands for: not one to keep */
            }
        }
        if ((*env)->GetStackTrace(env, NULL, 0, wanted, frames, &count) != JVMTI_ERROR_NONE) {
            count = 0;
        }
        stack = count > 0 ? hash_frames(frames, count) : 0;
        send = count > 0 && !stack_sent((uint64_t) stack) ? (uint32_t) count : 0;
        if (key != 0 && stack != 0) {
            if (cached == 0) {
                __atomic_add_fetch(&stacks_keyed_missed, 1, __ATOMIC_RELAXED);
            }
            key_answered(key, cached, (uint64_t) stack);
        }
    }
    uint32_t cls = class_id(jni, klass);
    if (cls == 0) {
        __atomic_add_fetch(&classes_unknown, 1, __ATOMIC_RELAXED);
    }
    jweak weak = new_weak(jni, object);
    uint32_t gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    jobject announce = NULL;
    if (announced_generation != gen || announced_tid != tid) {
        announce = thread == NULL ? NULL : new_global(jni, thread);
    }
    uint32_t length = (uint32_t) sizeof(sample_record) + send * (uint32_t) sizeof(jvmtiFrameInfo);
    sample_record *r = weak == NULL ? NULL : (sample_record *) ring_claim(&ring, length);
    if (r == NULL) {
        __atomic_add_fetch(weak == NULL ? &skipped_error : &dropped_full, 1, __ATOMIC_RELAXED);
        delete_weak(jni, weak);
        delete_global(jni, announce);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni); /* ours (out of memory for a reference), not the application's */
        }
    } else {
        r->object = weak;
        r->thread = announce;
        r->size = size;
        r->time = time;
        r->tid = tid;
        r->stack = stack;
        r->class_id = cls;
        r->frames = send;
        r->collected_by = 0;
        if (send > 0) {
            memcpy(r + 1, frames, send * sizeof(jvmtiFrameInfo));
        }
        /* Read last: the object, strongly held by the callback's local reference, survived every GC up to here. */
        r->gc_epoch = __atomic_load_n(&gc_started_count, __ATOMIC_ACQUIRE);
        r->born = r->gc_epoch;
        r->reserved = 0;
        ring_publish(&r->header, RECORD_SAMPLE, length);
        __atomic_add_fetch(&samples_queued, 1, __ATOMIC_RELAXED);
        if (send > 0) {
            stack_remember((uint64_t) stack);
        }
        if (announce != NULL) {
            announced_tid = tid;
            announced_generation = gen;
        }
        if (ring_used(&ring) > ring.capacity / 2 && wake_ready
                && !__atomic_exchange_n(&ring_signaled, 1, __ATOMIC_ACQ_REL)) {
            sem_post(&wake);
        }
    }
    if (frames != local) {
        free(frames);
    }
    __atomic_sub_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
}


/* ------------------------------------------------------------------------------------------------- JNI API */

/* Sizes of the drain thread's arrays (JvmtiHeapSampler), and of the staging buffers filled under table_lock. */
#define DRAIN_RECORDS 512
#define DRAIN_FRAME_LONGS (2 * 8192)
#define SCAN_LONGS 7
#define COMMIT_LONGS 4

static jlong *staged;
static jlong *staged_frames;
static jweak *staged_refs;
static live_entry *staged_entries;
/* The held bits each staged entry had before scan0 changed them. */
static uint32_t *staged_was;

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *jvm, void *reserved) {
    (void) reserved;
    vm = jvm;
    jvmtiEnv *env = NULL;
    if ((*jvm)->GetEnv(jvm, (void **) &env, JVMTI_VERSION_11) != JNI_OK || env == NULL) {
        jvmti = NULL; /* start0 reports it */
    } else {
        jvmti = env;
        /* For describe0 and lines0 from the start, not only once a capture's start0 ran: the malloc sampler
           describes its samples' Java frames through this library beside the bytecode heap sampler, which never
           calls start0. Both are "always" capabilities of HotSpot (any phase, no cost); without them frames have no
           file or line (not an error). */
        jvmtiCapabilities names;
        memset(&names, 0, sizeof(names));
        names.can_get_source_file_name = 1;
        names.can_get_line_numbers = 1;
        (void) (*env)->AddCapabilities(env, &names);
    }
    wake_ready = sem_init(&wake, 0, 0) == 0;
    return JNI_VERSION_1_8;
}

static void delete_ref(JNIEnv *jni, jobject ref, int weak) {
    if (weak) {
        delete_weak(jni, ref);
    } else {
        delete_global(jni, ref);
    }
}

#include "sampler_lifecycle.h"

#include "sample_drain.h"

/* The JVM signature of a class id of drain0's records ("Ljava/lang/String;", "[I"), or null when unknown. */
JNIEXPORT jstring JNICALL Java_java_lang_MemscopeHooks_jvmtiClassName0(JNIEnv *jni, jclass cls, jint id) {
    (void) cls;
    if (classes == NULL || id < 1 || (uint32_t) id > CLASS_SLOTS) {
        return NULL;
    }
    class_entry *e = &classes[id - 1];
    if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != CLASS_READY || e->name == NULL) {
        return NULL;
    }
    jstring s = (*jni)->NewStringUTF(jni, e->name);
    if (s == NULL) {
        (*jni)->ExceptionClear(jni);
    }
    return s;
}

/* The Thread a record announced (its global reference, which is deleted), or null. */
JNIEXPORT jobject JNICALL Java_java_lang_MemscopeHooks_jvmtiThread0(JNIEnv *jni, jclass cls, jlong ref) {
    (void) cls;
    if (ref == 0) {
        return NULL;
    }
    jobject global = (jobject) (intptr_t) ref;
    jobject local = (*jni)->NewLocalRef(jni, global);
    delete_global(jni, global);
    return local;
}

/* The counters (sampler_counters.h), indexed by enum ms_counter: as many as `out` holds. */
JNIEXPORT void JNICALL Java_java_lang_MemscopeHooks_jvmtiCounters0(JNIEnv *jni, jclass cls, jlongArray out) {
    (void) cls;
    jlong c[MS_COUNTER_COUNT] = {
        [MS_SEEN] = __atomic_load_n(&samples_seen, __ATOMIC_RELAXED),
        [MS_QUEUED] = __atomic_load_n(&samples_queued, __ATOMIC_RELAXED),
        [MS_DROPPED_FULL] = __atomic_load_n(&dropped_full, __ATOMIC_RELAXED),
        [MS_SKIPPED_EXCEPTION] = __atomic_load_n(&skipped_exception, __ATOMIC_RELAXED),
        [MS_SKIPPED_ERROR] = __atomic_load_n(&skipped_error, __ATOMIC_RELAXED),
        [MS_CLASS_UNKNOWN] = __atomic_load_n(&classes_unknown, __ATOMIC_RELAXED),
        [MS_TRACKED] = (jlong) live_count,
        [MS_GC_STARTED] = (jlong) __atomic_load_n(&gc_started_count, __ATOMIC_ACQUIRE),
        [MS_GC_FINISHED] = (jlong) __atomic_load_n(&gc_finished_count, __ATOMIC_ACQUIRE),
        [MS_RING_CAPACITY] = (jlong) ring.capacity,
        [MS_RING_USED] = ring.buffer == NULL ? 0 : (jlong) ring_used(&ring),
        [MS_STACKS_SENT] = (jlong) __atomic_load_n(&stack_set_count, __ATOMIC_RELAXED),
        [MS_OWN_THREAD] = __atomic_load_n(&skipped_own, __ATOMIC_RELAXED),
        [MS_PLAIN_READS] = (jlong) raw_handles,
        [MS_DISAGREEMENTS] = __atomic_load_n(&raw_disagreements, __ATOMIC_RELAXED),
        [MS_MARKED_AT_GC_START] = __atomic_load_n(&marked_by_collection, __ATOMIC_RELAXED),
        [MS_WEAK_REFS_HELD] = __atomic_load_n(&weak_refs_held, __ATOMIC_RELAXED),
        [MS_GLOBAL_REFS_HELD] = __atomic_load_n(&global_refs_held, __ATOMIC_RELAXED),
        [MS_BUFFERS] = (jlong) ((ring.buffer != NULL) + (live != NULL) + (classes != NULL) + (stack_set != NULL)
                                + (staged != NULL) + (key_table != NULL)),
        [MS_STACKS_FROM_TABLE] = __atomic_load_n(&stacks_from_table, __ATOMIC_RELAXED),
        [MS_STACKS_NEW_KEYS] = __atomic_load_n(&stacks_keyed_missed, __ATOMIC_RELAXED),
        [MS_STACKS_UNNAMED] = __atomic_load_n(&stacks_unkeyed, __ATOMIC_RELAXED),
        [MS_STACKS_CHECKED] = __atomic_load_n(&stacks_checked, __ATOMIC_RELAXED),
        [MS_STACKS_MISMATCHED] = __atomic_load_n(&stacks_mismatched, __ATOMIC_RELAXED),
        [MS_STACK_KEYS] = (jlong) __atomic_load_n(&key_count, __ATOMIC_RELAXED),
        [MS_STACK_WALK] = (jlong) (walker_usable == 1 ? 1 + __atomic_load_n(&stack_walk_mode, __ATOMIC_RELAXED)
                                   : walker_usable == WALKER_DISTRUSTED ? -2 : walker_usable),
        [MS_OFFERED] = stripes_sum(offsetof(stripe, offered)),
        [MS_THINNED] = stripes_sum(offsetof(stripe, thinned)),
        [MS_DISTANCES] = (jlong) __atomic_load_n(&distances_state, __ATOMIC_RELAXED),
        [MS_DISTANCES_DRAWN] = stripes_sum(offsetof(stripe, written)),
        [MS_EXHAUSTED_COUNT] = __atomic_load_n(&exhausted_count, __ATOMIC_ACQUIRE),
        [MS_EXHAUSTED_FIRST_NANOS] = __atomic_load_n(&exhausted_first_nanos, __ATOMIC_RELAXED),
        [MS_EXHAUSTED_LAST_NANOS] = __atomic_load_n(&exhausted_last_nanos, __ATOMIC_RELAXED),
        [MS_EXHAUSTED_FLAGS] = __atomic_load_n(&exhausted_flags, __ATOMIC_RELAXED),
        [MS_QUEUE_BROKEN] = ring.broken,
        [MS_CAPTURE_FIRST_COLLECTION] = (jlong) capture_first_collection,
    };
    jsize n = (*jni)->GetArrayLength(jni, out);
    (*jni)->SetLongArrayRegion(jni, out, 0, n < MS_COUNTER_COUNT ? n : MS_COUNTER_COUNT, c);
}

/* The counters' names (sampler_counters.h) in counters0's order, or null when JNI fails. */
JNIEXPORT jobjectArray JNICALL Java_java_lang_MemscopeHooks_jvmtiCounterNames0(JNIEnv *jni, jclass cls) {
    (void) cls;
    jclass string = (*jni)->FindClass(jni, "java/lang/String");
    if (string == NULL) {
        return NULL;
    }
    jobjectArray names = (*jni)->NewObjectArray(jni, MS_COUNTER_COUNT, string, NULL);
    if (names == NULL) {
        return NULL;
    }
    for (jsize i = 0; i < MS_COUNTER_COUNT; i++) {
        jstring name = (*jni)->NewStringUTF(jni, ms_counter_names[i]);
        if (name == NULL) {
            return NULL;
        }
        (*jni)->SetObjectArrayElement(jni, names, i, name);
        (*jni)->DeleteLocalRef(jni, name);
    }
    return names;
}

/*
 * "Lpkg/Cls;<TAB>method<TAB>File.java" (the file empty when unknown) for a jmethodID of a queued stack, or null
 * when the method is gone (class unloaded) or JVMTI fails.
 */
JNIEXPORT jstring JNICALL Java_java_lang_MemscopeHooks_jvmtiDescribe0(JNIEnv *jni, jclass cls, jlong id) {
    (void) cls;
    if (jvmti == NULL || id == 0) {
        return NULL;
    }
    jmethodID method = (jmethodID) (intptr_t) id;
    jclass holder = NULL;
    char *name = NULL;
    char *sig = NULL;
    char *file = NULL;
    jstring result = NULL;
    if ((*jvmti)->GetMethodName(jvmti, method, &name, NULL, NULL) != JVMTI_ERROR_NONE
            || (*jvmti)->GetMethodDeclaringClass(jvmti, method, &holder) != JVMTI_ERROR_NONE
            || (*jvmti)->GetClassSignature(jvmti, holder, &sig, NULL) != JVMTI_ERROR_NONE) {
        goto done;
    }
    if ((*jvmti)->GetSourceFileName(jvmti, holder, &file) != JVMTI_ERROR_NONE) {
        file = NULL;
    }
    size_t n = strlen(sig) + strlen(name) + (file == NULL ? 0 : strlen(file)) + 3;
    char *text = malloc(n);
    if (text == NULL) {
        goto done;
    }
    snprintf(text, n, "%s\t%s\t%s", sig, name, file == NULL ? "" : file);
    result = (*jni)->NewStringUTF(jni, text);
    free(text);
    if (result == NULL) {
        (*jni)->ExceptionClear(jni);
    }
done:
    if (holder != NULL) {
        (*jni)->DeleteLocalRef(jni, holder);
    }
    if (name != NULL) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *) name);
    }
    if (sig != NULL) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *) sig);
    }
    if (file != NULL) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *) file);
    }
    return result;
}

/* The method's line number table as int pairs (start bytecode index, line), or null when absent. */
JNIEXPORT jintArray JNICALL Java_java_lang_MemscopeHooks_jvmtiLines0(JNIEnv *jni, jclass cls, jlong id) {
    (void) cls;
    if (jvmti == NULL || id == 0) {
        return NULL;
    }
    jint count = 0;
    jvmtiLineNumberEntry *table = NULL;
    if ((*jvmti)->GetLineNumberTable(jvmti, (jmethodID) (intptr_t) id, &count, &table) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    jintArray result = (*jni)->NewIntArray(jni, 2 * count);
    if (result == NULL) {
        (*jni)->ExceptionClear(jni);
    } else {
        jint *pairs = malloc(sizeof(jint) * 2 * (size_t) (count > 0 ? count : 1));
        if (pairs != NULL) {
            for (jint i = 0; i < count; i++) {
                pairs[2 * i] = (jint) table[i].start_location;
                pairs[2 * i + 1] = table[i].line_number;
            }
            (*jni)->SetIntArrayRegion(jni, result, 0, 2 * count, pairs);
            free(pairs);
        }
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *) table);
    return result;
}

#include "heap_walk.h"

/* ------------------------------------------------------------------------------------------ soft references */

/* Tags for the SoftReference classes and their instances found, all removed before returning. The heap walk tags
   objects too: SamplerNatives never lets the two run at once. */
#define SOFT_CLASS_TAG ((jlong) 0x736f6674636c6173LL)
#define SOFT_REFERENCE_TAG ((jlong) 0x736f667472656673LL)

static jint JNICALL tag_soft_reference(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *user_data) {
    (void) size;
    (void) length;
    (void) user_data;
    if (class_tag == SOFT_CLASS_TAG) {
        *tag_ptr = SOFT_REFERENCE_TAG;
    }
    return 0;
}

/*
 * Makes every SoftReference (of any subclass) look unused since long ago: its timestamp, which get() sets to
 * SoftReference.clock, is moved far into the past, so that the next collection clears the soft references that are
 * not used again before it, as the JVM does when memory runs short. SoftReference and its loaded subclasses are
 * tagged, the heap is walked once for their instances, and every tag is removed afterwards. Returns the references
 * aged, or a negative error: -1 no JVMTI, -2 no tagging capability, -3 no timestamp field, -4 the classes could not be
 * listed, -5 the walk failed, -6 the tags could not be read back.
 */
JNIEXPORT jint JNICALL Java_java_lang_MemscopeHooks_jvmtiAgeSoftReferences0(JNIEnv *jni, jclass cls, jclass soft) {
    (void) cls;
    if (jvmti == NULL || soft == NULL) {
        return -1;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_tag_objects = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        return -2;
    }
    jfieldID timestamp = (*jni)->GetFieldID(jni, soft, "timestamp", "J");
    if (timestamp == NULL) {
        (*jni)->ExceptionClear(jni);
        return -3;
    }
    jint class_count = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &class_count, &classes) != JVMTI_ERROR_NONE) {
        return -4;
    }
    for (jint i = 0; i < class_count; i++) {
        if ((*jni)->IsAssignableFrom(jni, classes[i], soft)) {
            (void) (*jvmti)->SetTag(jvmti, classes[i], SOFT_CLASS_TAG);
        }
    }
    jvmtiHeapCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.heap_iteration_callback = &tag_soft_reference;
    jvmtiError walked = (*jvmti)->IterateThroughHeap(jvmti, 0, NULL, &callbacks, NULL);
    jint count = 0;
    jobject *objects = NULL;
    jlong tag = SOFT_REFERENCE_TAG;
    jvmtiError found = walked == JVMTI_ERROR_NONE
            ? (*jvmti)->GetObjectsWithTags(jvmti, 1, &tag, &count, &objects, NULL) : walked;
    if (found == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count; i++) {
            (*jni)->SetLongField(jni, objects[i], timestamp, INT64_MIN / 4);
            (void) (*jvmti)->SetTag(jvmti, objects[i], 0);
            (*jni)->DeleteLocalRef(jni, objects[i]);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *) objects);
    }
    for (jint i = 0; i < class_count; i++) {
        (void) (*jvmti)->SetTag(jvmti, classes[i], 0);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *) classes);
    if (walked != JVMTI_ERROR_NONE) {
        return -5;
    }
    return found == JVMTI_ERROR_NONE ? count : -6;
}

#include "malloc_info.h"
