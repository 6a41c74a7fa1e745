/*
 * A capture's start and end (included once, by memscope_sampler.c, after the callbacks and the drain's staging
 * buffers): start0 allocates the capture's buffers and turns the JVM's events on; pause0 turns sampling off and waits
 * for the callbacks in flight; close0 turns the rest off and frees the buffers (free_capture), after which nothing of
 * the capture is left (the BUFFERS counter is 0). Also the drain thread's wait (await0, wake0), and the JVM's
 * ResourceExhausted event with the agent's reserve (reserve0), which that event lets go.
 */
#ifndef MEMSCOPE_SAMPLER_LIFECYCLE_H
#define MEMSCOPE_SAMPLER_LIFECYCLE_H

/* ------------------------------------------------------------------------------------- ResourceExhausted */

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

/* --------------------------------------------------------------------------------------- start and stop */

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
            if (!sample_record_valid(r)) {
                ring.broken = 1; /* the references of what is left stay undeleted: nothing there can be trusted */
                break;
            }
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

/* The capabilities a capture needs (an error), and those it uses when the JVM has them (no error without them). */
static jvmtiError add_capabilities(jboolean sample_heap) {
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_sampled_object_alloc_events = sample_heap ? 1 : 0;
    caps.can_generate_garbage_collection_events = 1;
    jvmtiError err = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (err != JVMTI_ERROR_NONE) {
        return err;
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
    return JVMTI_ERROR_NONE;
}

/*
 * The callbacks, the JVM's sampling interval, then the events: collections first, then (when sample_heap) sampling,
 * `enabled` set before the sampling event is on. Returns the first error; the caller then turns them off again.
 */
static jvmtiError enable_events(jint jvm_interval, jboolean sample_heap) {
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.SampledObjectAlloc = &on_sampled;
    callbacks.GarbageCollectionStart = &on_gc_start;
    callbacks.GarbageCollectionFinish = &on_gc_finish;
    callbacks.ResourceExhausted = &on_resource_exhausted;
    callbacks.ThreadStart = &on_thread_start;
    jvmtiError err = (*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint) sizeof(callbacks));
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
    return err;
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

    jvmtiError err = add_capabilities(sample_heap);
    if (err != JVMTI_ERROR_NONE) {
        free_capture(jni);
        return (jint) err;
    }
    exhausted_count = exhausted_first_nanos = exhausted_last_nanos = exhausted_flags = 0;
    err = enable_events(jvm_interval, sample_heap);
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

#endif
