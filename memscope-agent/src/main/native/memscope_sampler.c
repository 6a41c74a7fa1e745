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

/*
 * The JVM ran out of a resource (JVMTI ResourceExhausted, posted before it throws OutOfMemoryError): the first time
 * in a capture (nanoTime's clock) and its JVMTI_RESOURCE_EXHAUSTED_* flags. No allocation, no Java: the
 * drain thread reads them (counters0) and notes them in the recording.
 */
static volatile int64_t exhausted_count;
static volatile int64_t exhausted_first_nanos;
static volatile int64_t exhausted_last_nanos;
static volatile int64_t exhausted_flags;
/* The agent's reserve (a Java array held by this global reference only): let go by the first ResourceExhausted,
 * posted after the JVM's last collection failed and before it throws, so that the next collection frees it for the
 * JVM's exit and memscope's last flush. */
static jobject reserve_ref;

static void JNICALL on_resource_exhausted(jvmtiEnv *env, JNIEnv *jni, jint flags, const void *reserved,
                                          const char *description) {
    (void) reserved;
    (void) description;
    jlong now = now_nanos();
    int64_t zero = 0;
    __atomic_compare_exchange_n(&exhausted_first_nanos, &zero, (int64_t) now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    __atomic_store_n(&exhausted_last_nanos, (int64_t) now, __ATOMIC_RELAXED);
    __atomic_fetch_or(&exhausted_flags, (int64_t) flags, __ATOMIC_RELAXED);
    __atomic_add_fetch(&exhausted_count, 1, __ATOMIC_RELEASE);
    jobject reserve = __atomic_exchange_n(&reserve_ref, NULL, __ATOMIC_SEQ_CST);
    if (reserve != NULL && jni != NULL) {
        (*jni)->DeleteGlobalRef(jni, reserve);
    }
    /* Once per capture: HotSpot logs every event it posts ("[error][jvmti] Posting Resource Exhausted event") on
     * the application's output. The errors memscope's own threads meet count the later ones. */
    (void) (*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_RESOURCE_EXHAUSTED, NULL);
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

/*
 * Frees the buffers of a capture, deleting every reference they hold. Only once no callback can use them: sampling
 * and collection events off, no callback in flight.
 */
static void free_capture(JNIEnv *jni) {
    lock_table();
    if (ring.buffer != NULL) {
        ring_header *h;
        while ((h = ring_peek(&ring)) != NULL) {
            sample_record *r = (sample_record *) h;
            delete_ref(jni, r->object, 1);
            delete_ref(jni, r->thread, 0);
            ring_consume(&ring, h);
        }
        ring_free(&ring);
    }
    if (live != NULL) {
        for (uint32_t i = 0; i < live_count; i++) {
            if (i == live_write && live_read > live_write) {
                i = live_read;
                if (i >= live_count) {
                    break;
                }
            }
            delete_ref(jni, live[i].ref, 1);
        }
        free(live);
        live = NULL;
    }
    live_count = live_capacity = live_read = live_write = 0;
    if (classes != NULL) {
        for (uint32_t i = 0; i < CLASS_SLOTS; i++) {
            if (classes[i].state == CLASS_READY) {
                delete_ref(jni, classes[i].ref, 1);
            }
            free(classes[i].name);
        }
        free(classes);
        classes = NULL;
    }
    free(stack_set);
    stack_set = NULL;
    stack_set_count = 0;
    stack_walk_mode = STACK_WALK_OFF;
    free(key_table);
    key_table = NULL;
    free(staged);
    free(staged_frames);
    free(staged_refs);
    free(staged_entries);
    free(staged_was);
    staged = staged_frames = NULL;
    staged_refs = NULL;
    staged_entries = NULL;
    staged_was = NULL;
    unlock_table();
}

/*
 * Sampling first, then the start of collections, then their end: a collection is never in progress while a JVMTI
 * call runs (the calling thread is in the VM), so once the start event is off no collection holds table_lock.
 */
static jint stop_events(void) {
    jvmtiError err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    (void) (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_START, NULL);
    jvmtiError e2 = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START,
                                                       NULL);
    jvmtiError e3 = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH,
                                                       NULL);
    (void) (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_RESOURCE_EXHAUSTED, NULL);
    return (jint) (err != JVMTI_ERROR_NONE ? err : e2 != JVMTI_ERROR_NONE ? e2 : e3);
}

JNIEXPORT void JNICALL Java_java_lang_MemscopeHooks_jvmtiReserve0(JNIEnv *jni, jclass cls, jobject array) {
    (void) cls;
    jobject ref = array == NULL ? NULL : (*jni)->NewGlobalRef(jni, array);
    jobject old = __atomic_exchange_n(&reserve_ref, ref, __ATOMIC_SEQ_CST);
    if (old != NULL) {
        (*jni)->DeleteGlobalRef(jni, old);
    }
    if (ref != NULL && jvmti != NULL) {
        /* held again after the JVM recovered: the next time it runs out of memory lets it go again */
        (void) (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_RESOURCE_EXHAUSTED, NULL);
    }
}

/*
 * Starts a capture: allocates its buffers and enables the JVM's sampling (when sample_heap) and its collection
 * events. interval is the mean of the samples kept (their weights), jvm_interval the JVM's (a fraction of it when
 * oversampling, sample_points.h); own_distances: memscope draws the threads' distances to their next sample. Returns
 * 0, or a positive JVMTI error code, or -1 when no JVMTI 11 environment is available, -2 on a JNI error, -3 when the
 * previous capture was not closed, -5 when memory is short, -6 when the intervals are not 1 <= jvm_interval <=
 * interval.
 */
JNIEXPORT jint JNICALL Java_java_lang_MemscopeHooks_jvmtiStart0(JNIEnv *jni, jclass cls, jint interval,
                                                               jint jvm_interval, jboolean own_distances,
                                                               jint frames, jlong ring_bytes, jint limit,
                                                               jboolean sample_heap, jint stack_walk) {
    (void) cls;
    if (jvmti == NULL) {
        return -1;
    }
    if (enabled || ring.buffer != NULL || live != NULL) {
        return -3;
    }
    if (jvm_interval < 1 || jvm_interval > interval) {
        return -6;
    }
    frames_wanted = frames < 1 ? 1 : frames > MAX_FRAMES ? MAX_FRAMES : frames;
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    if (thread_class == NULL) {
        (*jni)->ExceptionClear(jni);
        return -2;
    }
    if (tid_field == NULL) {
        tid_field = (*jni)->GetFieldID(jni, thread_class, "tid", "J");
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni); /* no such field in this JDK: samples carry thread id 0 */
            tid_field = NULL;
        }
    }
    raw_handles = check_handle_layout(jni, thread_class);
    if (walker_usable < 0 && (stack_walk == STACK_WALK_ON || stack_walk == STACK_WALK_CHECK)) {
        walker_usable = walker_init(jni, thread_class); /* about 80 microseconds */
    }
    if (sample_heap) {
        distances_start(jni, thread_class, interval, jvm_interval, own_distances);
    }
    (*jni)->DeleteLocalRef(jni, thread_class);
    int walk = walker_usable == 1 && (stack_walk == STACK_WALK_ON || stack_walk == STACK_WALK_CHECK) ? stack_walk
                                                                                                   : STACK_WALK_OFF;
    uint64_t capacity = 1u << 16;
    while (capacity < (uint64_t) ring_bytes && capacity < (UINT64_C(1) << 30)) {
        capacity <<= 1;
    }
    live_limit = limit < 0 ? 0 : (uint32_t) limit;
    live_capacity = live_limit < 1024 ? live_limit : 1024;
    live_count = live_read = live_write = 0;
    if (ring_init(&ring, capacity) != 0
            || (stack_set = calloc(STACK_SET_SLOTS, sizeof(uint64_t))) == NULL
            || (classes = calloc(CLASS_SLOTS, sizeof(class_entry))) == NULL
            || (staged = calloc(DRAIN_RECORDS * RECORD_LONGS, sizeof(jlong))) == NULL
            || (staged_frames = calloc(DRAIN_FRAME_LONGS, sizeof(jlong))) == NULL
            || (staged_refs = calloc(DRAIN_RECORDS, sizeof(jweak))) == NULL
            || (staged_entries = calloc(DRAIN_RECORDS, sizeof(live_entry))) == NULL
            || (staged_was = calloc(DRAIN_RECORDS, sizeof(uint32_t))) == NULL
            || (live_capacity > 0 && (live = calloc(live_capacity, sizeof(live_entry))) == NULL)
            || (walk != STACK_WALK_OFF && (key_table = calloc(KEY_SLOTS, sizeof(key_slot))) == NULL)) {
        free_capture(jni);
        return -5;
    }
    key_count = 0;
    stacks_from_table = stacks_keyed_missed = stacks_unkeyed = stacks_checked = stacks_mismatched = 0;
    stack_walk_mode = walk;
    samples_seen = samples_queued = dropped_full = skipped_exception = skipped_error = classes_unknown = 0;
    skipped_own = raw_disagreements = marked_by_collection = 0;
    ring_signaled = 0;
    own_tid = -1;
    marked_through = __atomic_load_n(&gc_finished_count, __ATOMIC_ACQUIRE);
    capture_first_collection = marked_through + 1;
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);

    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_sampled_object_alloc_events = sample_heap ? 1 : 0;
    caps.can_generate_garbage_collection_events = 1;
    jvmtiError err = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (err != JVMTI_ERROR_NONE) {
        free_capture(jni);
        return (jint) err;
    }
    /* For describe0 and lines0; without them frames have no file or line (not an error). */
    jvmtiCapabilities names;
    memset(&names, 0, sizeof(names));
    names.can_get_source_file_name = 1;
    names.can_get_line_numbers = 1;
    (void) (*jvmti)->AddCapabilities(jvmti, &names);
    /* For ResourceExhausted on the heap and on threads; without them the event still reports the rest. */
    jvmtiCapabilities exhaustion;
    memset(&exhaustion, 0, sizeof(exhaustion));
    exhaustion.can_generate_resource_exhaustion_heap_events = 1;
    exhaustion.can_generate_resource_exhaustion_threads_events = 1;
    (void) (*jvmti)->AddCapabilities(jvmti, &exhaustion);
    exhausted_count = exhausted_first_nanos = exhausted_last_nanos = exhausted_flags = 0;
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.SampledObjectAlloc = &on_sampled;
    callbacks.GarbageCollectionStart = &on_gc_start;
    callbacks.GarbageCollectionFinish = &on_gc_finish;
    callbacks.ResourceExhausted = &on_resource_exhausted;
    callbacks.ThreadStart = &on_thread_start;
    err = (*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint) sizeof(callbacks));
    if (err == JVMTI_ERROR_NONE && sample_heap) {
        err = (*jvmti)->SetHeapSamplingInterval(jvmti, jvm_interval);
    }
    if (err == JVMTI_ERROR_NONE) {
        err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
    }
    if (err == JVMTI_ERROR_NONE) {
        err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
    }
    if (err == JVMTI_ERROR_NONE) {
        (void) (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_RESOURCE_EXHAUSTED, NULL);
    }
    if (err == JVMTI_ERROR_NONE && sample_heap) {
        __atomic_store_n(&enabled, 1, __ATOMIC_SEQ_CST);
        err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL);
    }
    if (err == JVMTI_ERROR_NONE && sample_heap) {
        err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    }
    if (err != JVMTI_ERROR_NONE) {
        __atomic_store_n(&enabled, 0, __ATOMIC_SEQ_CST);
        (void) stop_events();
        free_capture(jni);
        return (jint) err;
    }
    return 0;
}

/* The drain thread's Java id: its own allocations are not sampled. */
JNIEXPORT void JNICALL Java_java_lang_MemscopeHooks_jvmtiOwnThread0(JNIEnv *jni, jclass cls, jlong tid) {
    (void) jni;
    (void) cls;
    own_tid = tid;
}

/*
 * Stops sampling: disables the event and waits (at most 5 s) until no callback is still running. Collection events
 * go on until close0. Returns 0, a JVMTI error code, or -4 when callbacks did not finish in time (the buffers are
 * then never freed).
 */
JNIEXPORT jint JNICALL Java_java_lang_MemscopeHooks_jvmtiPause0(JNIEnv *jni, jclass cls) {
    (void) jni;
    (void) cls;
    if (jvmti == NULL) {
        return -1;
    }
    int was = __atomic_exchange_n(&enabled, 0, __ATOMIC_SEQ_CST);
    jvmtiError err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    (void) (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_THREAD_START, NULL);
    if (was) {
        distances_stop();
    }
    struct timespec pause = {0, 50000};
    for (int i = 0; i < 100000 && __atomic_load_n(&in_flight, __ATOMIC_SEQ_CST) != 0; i++) {
        nanosleep(&pause, NULL);
    }
    if (__atomic_load_n(&in_flight, __ATOMIC_SEQ_CST) != 0) {
        return -4;
    }
    if (was) {
        jvmtiCapabilities caps;
        memset(&caps, 0, sizeof(caps));
        caps.can_generate_sampled_object_alloc_events = 1;
        (void) (*jvmti)->RelinquishCapabilities(jvmti, &caps);
    }
    return (jint) err;
}

/*
 * Ends the capture: collection events off, every reference deleted, every buffer freed. After pause0, with the drain
 * thread ended. Returns 0, a JVMTI error code, or -4 when a callback is still running (nothing is freed then).
 */
JNIEXPORT jint JNICALL Java_java_lang_MemscopeHooks_jvmtiClose0(JNIEnv *jni, jclass cls) {
    (void) cls;
    if (jvmti == NULL) {
        return -1;
    }
    __atomic_store_n(&enabled, 0, __ATOMIC_SEQ_CST);
    jint err = stop_events();
    if (__atomic_load_n(&in_flight, __ATOMIC_SEQ_CST) != 0) {
        return -4;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_garbage_collection_events = 1;
    (void) (*jvmti)->RelinquishCapabilities(jvmti, &caps);
    free_capture(jni);
    return err;
}

/* Waits until a collection finished, the ring is half full, wake0 was called, or timeout_nanos passed. */
JNIEXPORT void JNICALL Java_java_lang_MemscopeHooks_jvmtiAwait0(JNIEnv *jni, jclass cls, jlong timeout_nanos) {
    (void) jni;
    (void) cls;
    if (!wake_ready) {
        struct timespec t = {timeout_nanos / 1000000000LL, timeout_nanos % 1000000000LL};
        nanosleep(&t, NULL);
        return;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    jlong ns = deadline.tv_nsec + (timeout_nanos < 0 ? 0 : timeout_nanos);
    deadline.tv_sec += ns / 1000000000LL;
    deadline.tv_nsec = ns % 1000000000LL;
    while (sem_timedwait(&wake, &deadline) != 0 && errno == EINTR) {
        /* interrupted by a signal: wait on */
    }
    while (sem_trywait(&wake) == 0) {
        /* one wake-up for all that were posted */
    }
}

JNIEXPORT void JNICALL Java_java_lang_MemscopeHooks_jvmtiWake0(JNIEnv *jni, jclass cls) {
    (void) jni;
    (void) cls;
    if (wake_ready) {
        sem_post(&wake);
    }
}

/* Under table_lock: makes room for one more entry. @return its index, or -1 when the table is full */
static int64_t live_append(void) {
    if (live_count == live_capacity && live_capacity < live_limit) {
        uint32_t grown = live_capacity * 2 < live_limit ? live_capacity * 2 : live_limit;
        live_entry *bigger = realloc(live, sizeof(live_entry) * grown);
        if (bigger != NULL) {
            live = bigger;
            live_capacity = grown;
        }
    }
    if (live == NULL || live_count == live_capacity) {
        return -1;
    }
    return live_count++;
}

/*
 * Moves queued samples to Java: RECORD_LONGS longs per record into records (the layout: sample_record.h), frames
 * of stacks queued for the first time into frames as (jmethodID, bytecode index) pairs. Each record's weak reference
 * moves into the live table as an uncommitted entry (its index is in the record; -1 when the table is full and the
 * sample is not tracked), where the mark passes see it until commit0 says what became of it.
 * With wait false, returns 0 at once when a collection is running. Returns the number of records.
 */
JNIEXPORT jint JNICALL Java_java_lang_MemscopeHooks_jvmtiDrain0(JNIEnv *jni, jclass cls, jlongArray records,
                                                               jlongArray frames, jboolean wait) {
    (void) cls;
    if (records == NULL || frames == NULL) {
        return 0;
    }
    jsize record_cap = (*jni)->GetArrayLength(jni, records) / RECORD_LONGS;
    jsize frame_cap = (*jni)->GetArrayLength(jni, frames);
    record_cap = record_cap < DRAIN_RECORDS ? record_cap : DRAIN_RECORDS;
    frame_cap = frame_cap < DRAIN_FRAME_LONGS ? frame_cap : DRAIN_FRAME_LONGS;
    if (wait) {
        lock_table();
    } else if (!try_lock_table()) {
        return 0;
    }
    if (ring.buffer == NULL) {
        unlock_table();
        return 0;
    }
    jsize n = 0;
    jsize untracked = 0;
    jsize frame_pos = 0;
    while (n < record_cap) {
        ring_header *h = ring_peek(&ring);
        if (h == NULL) {
            break;
        }
        sample_record *r = (sample_record *) h;
        jsize need = (jsize) r->frames * 2;
        if (frame_pos + need > frame_cap) {
            break;
        }
        if (need > 0) {
            memcpy(staged_frames + frame_pos, r + 1, (size_t) need * sizeof(jlong));
        }
        int64_t index = live_append();
        if (index < 0) {
            staged_refs[untracked++] = r->object;
        } else {
            live_entry *e = &live[index];
            e->ref = r->object;
            e->id = 0;
            e->size = r->size;
            e->time = r->time;
            e->tid = r->tid;
            e->stack = 0;
            e->site = 0;
            e->state = ENTRY_UNCOMMITTED;
            e->checked = r->gc_epoch;
            e->collected_by = r->collected_by;
            e->born = r->born;
            e->held = 0;
        }
        jlong *b = &staged[n * RECORD_LONGS];
        b[RECORD_INDEX] = index;
        b[RECORD_SIZE] = r->size;
        b[RECORD_TIME] = r->time;
        b[RECORD_TID] = r->tid;
        b[RECORD_STACK] = r->stack;
        b[RECORD_THREAD] = (jlong) (intptr_t) r->thread;
        b[RECORD_CLASS_EPOCH] = (jlong) ((uint64_t) r->class_id | (uint64_t) r->gc_epoch << 32);
        b[RECORD_FRAMES] = (jlong) ((uint64_t) r->frames | (uint64_t) (uint32_t) frame_pos << 32);
        frame_pos += need;
        ring_consume(&ring, h);
        n++;
    }
    unlock_table();
    __atomic_store_n(&ring_signaled, 0, __ATOMIC_RELEASE);
    for (jsize i = 0; i < untracked; i++) {
        delete_ref(jni, staged_refs[i], 1);
    }
    if (n > 0) {
        (*jni)->SetLongArrayRegion(jni, records, 0, n * RECORD_LONGS, staged);
    }
    if (frame_pos > 0) {
        (*jni)->SetLongArrayRegion(jni, frames, 0, frame_pos, staged_frames);
    }
    return n;
}

/*
 * What the drain thread made of the samples of drain0's last records: n entries of COMMIT_LONGS longs (table index,
 * sample id, site, stack id), a negative site meaning not kept (memscope's own, filtered out). Their indexes are valid until the
 * next scan0.
 */
JNIEXPORT void JNICALL Java_java_lang_MemscopeHooks_jvmtiCommit0(JNIEnv *jni, jclass cls, jlongArray entries,
                                                                jint n) {
    (void) cls;
    if (n <= 0 || n > DRAIN_RECORDS || staged == NULL) {
        return;
    }
    (*jni)->GetLongArrayRegion(jni, entries, 0, n * COMMIT_LONGS, staged);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return;
    }
    lock_table();
    for (jint i = 0; i < n; i++) {
        jlong index = staged[i * COMMIT_LONGS];
        if (index < 0 || (uint64_t) index >= live_count) {
            continue;
        }
        live_entry *e = &live[index];
        jlong site = staged[i * COMMIT_LONGS + 2];
        if (site < 0) {
            e->state = ENTRY_DROPPED;
        } else {
            e->id = staged[i * COMMIT_LONGS + 1];
            e->site = (int32_t) site;
            e->stack = staged[i * COMMIT_LONGS + 3];
            e->state = ENTRY_TRACKED;
        }
    }
    unlock_table();
}

/*
 * Reports collected samples: with begin, first checks every entry against the last collection that ended (a mark
 * pass, unless a collection's start already did it), then goes through the table from where the previous call
 * stopped, removing what was collected or dropped. Each collected sample is written to out as SCAN_LONGS longs:
 * sample id, site, size, time, `checked`, `collected_by` (live_table.h) and its `held` bits; it was collected by
 * collection collected_by, which is checked + 1 when every collection was looked at. A sample seen alive after a
 * collection that started after it was taken (checked > born) becomes a survivor; one sampled before confirm_before
 * (the snapshot of a collection that examined the whole heap, after which this call runs; Long.MIN_VALUE: none) and
 * alive becomes confirmed: each change is written once, the same way with collected_by 0 and the bits before | the
 * bits after << 8, and the entry stays in the table. Every reference found gone by a plain read is confirmed with
 * IsSameObject first. Returns 2 * written, plus 1 when the table has been gone through.
 */
JNIEXPORT jint JNICALL Java_java_lang_MemscopeHooks_jvmtiScan0(JNIEnv *jni, jclass cls, jlongArray out,
                                                              jboolean begin, jlong confirm_before) {
    (void) cls;
    jsize cap = out == NULL ? 0 : (*jni)->GetArrayLength(jni, out) / SCAN_LONGS;
    cap = cap < DRAIN_RECORDS ? cap : DRAIN_RECORDS;
    lock_table();
    if (live == NULL) {
        unlock_table();
        return 1;
    }
    if (begin) {
        uint32_t k = __atomic_load_n(&gc_finished_count, __ATOMIC_ACQUIRE);
        if (marked_through < k) {
            /* Without plain reads IsSameObject may wait for a collection: none takes the lock in that mode. */
            mark(k, raw_handles ? NULL : jni);
        }
        live_read = live_write = 0;
    }
    jsize found = 0;
    jsize dropped = 0;
    while (live_read < live_count && found < cap && dropped < DRAIN_RECORDS) {
        live_entry *e = &live[live_read++];
        if (e->state == ENTRY_DROPPED) {
            staged_refs[dropped++] = e->ref;
        } else if (e->state == ENTRY_TRACKED && e->collected_by != 0) {
            staged_entries[found++] = *e;
        } else {
            uint32_t was = e->held;
            if (e->state == ENTRY_TRACKED) {
                if (!(was & HELD_SURVIVOR) && e->checked > e->born) {
                    /* seen alive after a collection that started after it was sampled */
                    e->held |= HELD_SURVIVOR;
                }
                if (!(was & HELD_CONFIRMED) && e->time < confirm_before && !(raw_handles && referent_gone(e->ref))) {
                    /* judged by a collection that examined the whole heap, and still there: reachable then */
                    e->held |= HELD_CONFIRMED;
                }
            }
            if (e->held != was) {
                staged_entries[found] = *e;
                staged_was[found] = was;
                found++;
            }
            live[live_write++] = *e;
        }
    }
    int done = live_read >= live_count;
    if (done) {
        live_count = live_write;
        live_read = live_write = live_count;
    }
    unlock_table();
    for (jsize i = 0; i < dropped; i++) {
        delete_ref(jni, staged_refs[i], 1);
    }
    jsize written = 0;
    for (jsize i = 0; i < found; i++) {
        live_entry *e = &staged_entries[i];
        if (e->collected_by == 0) {
            /* became a survivor or confirmed: its reference stays in the table */
            jlong *b = &staged[written * SCAN_LONGS];
            b[0] = e->id;
            b[1] = e->site;
            b[2] = e->size;
            b[3] = e->time;
            b[4] = e->checked;
            b[5] = 0;
            b[6] = (jlong) (staged_was[i] | e->held << 8);
            written++;
            continue;
        }
        if (!(*jni)->IsSameObject(jni, e->ref, NULL)) {
            /* a plain read said gone, the JVM says alive: the handle layout is not what it seemed */
            __atomic_add_fetch(&raw_disagreements, 1, __ATOMIC_RELAXED);
            raw_handles = 0;
            lock_table();
            int64_t index = live_append();
            if (index >= 0) {
                e->checked = e->collected_by;
                e->collected_by = 0;
                live[index] = *e;
            }
            unlock_table();
            if (index < 0) {
                delete_ref(jni, e->ref, 1);
            }
            continue;
        }
        delete_ref(jni, e->ref, 1);
        jlong *b = &staged[written * SCAN_LONGS];
        b[0] = e->id;
        b[1] = e->site;
        b[2] = e->size;
        b[3] = e->time;
        b[4] = e->checked;
        b[5] = e->collected_by;
        b[6] = e->held;
        written++;
    }
    if (written > 0) {
        (*jni)->SetLongArrayRegion(jni, out, 0, written * SCAN_LONGS, staged);
    }
    return written * 2 + done;
}

/* Longs per sample in held0's answer. */
#define HELD_LONGS 4

static int sorted_contains(const jlong *sorted, jsize n, jlong v) {
    jsize lo = 0, hi = n - 1;
    while (lo <= hi) {
        jsize mid = (jsize) (((uint32_t) lo + (uint32_t) hi) >> 1);
        if (sorted[mid] < v) {
            lo = mid + 1;
        } else if (sorted[mid] > v) {
            hi = mid - 1;
        } else {
            return 1;
        }
    }
    return 0;
}

/*
 * The tracked samples taken in [from, to) (nanoTime) by the threads named in `threads` (sorted Java ids) or with an id
 * of at least threads_from, whose object is reachable now: HELD_LONGS longs each (site, stack id, size, held bits:
 * HELD_CONFIRMED when a collection that examined the whole heap judged it, live_table.h), or null when
 * memory runs out. The object is looked at now (a plain read of its handle, or IsSameObject when plain reads are
 * off), not as of the last mark pass: a collection that just ended counts before the drain thread has seen it.
 * Samples still in the queue are not seen (the caller drains first).
 */
JNIEXPORT jlongArray JNICALL Java_java_lang_MemscopeHooks_jvmtiHeld0(JNIEnv *jni, jclass cls, jlong from, jlong to,
                                                                    jlongArray threads, jlong threads_from) {
    (void) cls;
    jsize nthreads = threads == NULL ? 0 : (*jni)->GetArrayLength(jni, threads);
    jlong *sorted = nthreads > 0 ? malloc(sizeof(jlong) * (size_t) nthreads) : NULL;
    if (nthreads > 0) {
        if (sorted == NULL) {
            return NULL;
        }
        (*jni)->GetLongArrayRegion(jni, threads, 0, nthreads, sorted);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            free(sorted);
            return NULL;
        }
    }
    size_t cap = 0, n = 0;
    jlong *found = NULL;
    int failed = 0;
    lock_table();
    int raw = raw_handles;
    for (uint32_t i = 0; live != NULL && i < live_count && !failed; i++) {
        if (i == live_write && live_read > live_write) {
            i = live_read; /* the gap of a harvest in progress */
            if (i >= live_count) {
                break;
            }
        }
        live_entry *e = &live[i];
        if (e->state != ENTRY_TRACKED || e->collected_by != 0 || e->time < from || e->time >= to
                || !(e->tid >= threads_from || sorted_contains(sorted, nthreads, e->tid))) {
            continue;
        }
        /* without plain reads no collection takes the lock, so IsSameObject cannot wait for one holding it */
        int gone = raw ? referent_gone(e->ref) : (*jni)->IsSameObject(jni, e->ref, NULL);
        if (gone) {
            continue;
        }
        if (n == cap) {
            size_t grown = cap == 0 ? 256 : cap * 2;
            jlong *bigger = realloc(found, grown * HELD_LONGS * sizeof(jlong));
            if (bigger == NULL) {
                failed = 1;
                break;
            }
            found = bigger;
            cap = grown;
        }
        found[n * HELD_LONGS] = e->site;
        found[n * HELD_LONGS + 1] = e->stack;
        found[n * HELD_LONGS + 2] = e->size;
        found[n * HELD_LONGS + 3] = e->held;
        n++;
    }
    unlock_table();
    free(sorted);
    jlongArray out = NULL;
    if (!failed && n * HELD_LONGS <= (size_t) INT32_MAX) {
        out = (*jni)->NewLongArray(jni, (jsize) (n * HELD_LONGS));
        if (out != NULL && n > 0) {
            (*jni)->SetLongArrayRegion(jni, out, 0, (jsize) (n * HELD_LONGS), found);
        }
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            out = NULL;
        }
    }
    free(found);
    return out;
}

/*
 * Collections from ordinal `from` on (from the capture's first when `from` is 0), as triples (ordinal, start, end) into out, while they are finished and out has
 * room. An ordinal older than the log's GC_LOG_SLOTS entries is skipped. Returns the number of triples.
 */
JNIEXPORT jint JNICALL Java_java_lang_MemscopeHooks_jvmtiCollections0(JNIEnv *jni, jclass cls, jlongArray out,
                                                                     jint from) {
    (void) cls;
    jsize cap = (*jni)->GetArrayLength(jni, out) / 3;
    uint32_t finished = __atomic_load_n(&gc_finished_count, __ATOMIC_ACQUIRE);
    uint32_t k = from < 1 ? capture_first_collection : (uint32_t) from;
    if (finished >= GC_LOG_SLOTS && k <= finished - GC_LOG_SLOTS) {
        k = finished - GC_LOG_SLOTS + 1;
    }
    jsize n = 0;
    for (; k <= finished && n < cap; k++, n++) {
        gc_entry *e = &gc_log[k & (GC_LOG_SLOTS - 1)];
        jlong t[3] = {(jlong) k, __atomic_load_n(&e->start, __ATOMIC_RELAXED), __atomic_load_n(&e->end,
                                                                                              __ATOMIC_RELAXED)};
        (*jni)->SetLongArrayRegion(jni, out, n * 3, 3, t);
    }
    return n;
}

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
