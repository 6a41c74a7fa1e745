/*
 * One attempt of the heap walk (included once, by heap_walk.h, after the callback and the classes' preparation):
 * the tracked samples copied out of the live table, a JVMTI environment of the attempt's own, the classes and the
 * samples tagged, FollowReferences, and what the attempt set up released again. jvmtiWalk0 runs a second attempt,
 * by tags, when the first one's address words did not hold (HW_LAYOUT).
 */
#ifndef MEMSCOPE_HEAP_WALK_ATTEMPT_H
#define MEMSCOPE_HEAP_WALK_ATTEMPT_H

/* The live samples, copied under the table's lock (their references stay valid: the caller excludes scan0). */
static jint hw_collect_samples(hw_sample **out, size_t *count) {
    lock_table();
    if (live == NULL) {
        unlock_table();
        return -7;
    }
    size_t cap = live_count;
    hw_sample *samples = malloc(sizeof(hw_sample) * (cap > 0 ? cap : 1));
    if (samples == NULL) {
        unlock_table();
        return -5;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < live_count; i++) {
        if (i == live_write && live_read > live_write) {
            i = live_read;
            if (i >= live_count) {
                break;
            }
        }
        live_entry *e = &live[i];
        if (e->state == ENTRY_TRACKED && e->collected_by == 0 && n < cap) {
            hw_sample *s = &samples[n++];
            s->ref = e->ref;
            s->id = e->id;
            s->size = e->size;
            s->site = e->site;
            s->node = 0;
        }
    }
    unlock_table();
    *out = samples;
    *count = n;
    return 0;
}

/* Frees what one attempt of the walk set up (its environment goes with all the tags it set). */
static void hw_release(hw_state *w, jvmtiEnv *env) {
    if (env != NULL) {
        (*env)->DisposeEnvironment(env);
    }
    if (w->nodes != NULL) {
        munmap(w->nodes, w->mapped);
    }
    free(w->table);
    free(w->roots);
    free(w->classes);
    free(w->examples);
    free(w->example_table);
    free(w->sample_refs);
    memset(w, 0, sizeof(*w));
}

/*
 * The samples alive: a node each, not reached yet, and the node's number as their tag (the same object twice shares
 * one node). Counts those gone already in stats; returns how many have a node.
 */
static size_t hw_tag_samples(JNIEnv *jni, jvmtiEnv *env, hw_state *w, hw_sample *samples, size_t sample_count,
                             jlong *stats) {
    size_t tracked = 0;
    stats[HW_STAT_GONE] = 0;
    for (size_t i = 0; i < sample_count; i++) {
        hw_sample *s = &samples[i];
        s->node = 0;
        jobject o = (*jni)->NewLocalRef(jni, s->ref);
        if (o == NULL) {
            stats[HW_STAT_GONE]++;
            continue;
        }
        jlong existing = 0;
        if ((*env)->GetTag(env, o, &existing) == JVMTI_ERROR_NONE && existing != 0) {
            s->node = hw_node_of(w, existing); /* the same object twice: share its node */
        } else {
            uint32_t n = hw_new_node(w, HW_UNREACHED, 0, 0, UINT32_MAX);
            if (n != 0 && (*env)->SetTag(env, o, n) == JVMTI_ERROR_NONE) {
                s->node = n;
                w->tags++;
                if (w->sample_refs != NULL) {
                    w->sample_refs[n - 1] = s->ref;
                }
            }
        }
        if (s->node != 0) {
            tracked++;
        }
        (*jni)->DeleteLocalRef(jni, o);
    }
    return tracked;
}

/*
 * One attempt: a JVMTI environment of its own, the classes and samples tagged, the walk. by_address: tell objects
 * apart by their address (when the probe found the layout). Returns 0 (w->outcome says how it ended; *env is the
 * environment, to release after the answer is built), or an error code.
 */
static jint hw_attempt(JNIEnv *jni, hw_state *w, jvmtiEnv **env_out, hw_sample *samples, size_t sample_count,
                       int64_t budget, jlong time_budget, jlong started, int by_address, jlong *stats) {
    (void) started;
    jvmtiEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **) &env, JVMTI_VERSION_11) != JNI_OK || env == NULL) {
        return -1;
    }
    *env_out = env;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_tag_objects = 1;
    jvmtiError err = (*env)->AddCapabilities(env, &caps);
    if (err != JVMTI_ERROR_NONE) {
        return (jint) err;
    }
    w->budget = budget;
    w->own_tid = -1;
    jthread self = NULL;
    if (tid_field != NULL && (*jvmti)->GetCurrentThread(jvmti, &self) == JVMTI_ERROR_NONE && self != NULL) {
        w->own_tid = (*jni)->GetLongField(jni, self, tid_field);
        (*jni)->DeleteLocalRef(jni, self);
    }
    if (by_address) {
        w->by_address = hw_probe_layout(jni, env, &w->layout);
    }
    jint rc = hw_prepare_classes(jni, env, w);
    if (rc != 0) {
        return rc;
    }
    stats[HW_STAT_CLASSES] = w->class_count;
    w->fixed_bytes = (int64_t) w->class_count * (int64_t) sizeof(hw_class)
            + (int64_t) sample_count * (int64_t) (sizeof(hw_sample) + sizeof(jweak));
    /* the node table: reserved, committed page by page as it fills */
    uint64_t capacity = (uint64_t) (budget / (int64_t) sizeof(hw_node));
    if (capacity > UINT32_MAX - 2) {
        capacity = UINT32_MAX - 2;
    }
    if (capacity < sample_count + 1024 || hw_memory(w) > budget) {
        return -6;
    }
    w->capacity = (uint32_t) capacity;
    w->mapped = (size_t) capacity * sizeof(hw_node);
    void *mem = mmap(NULL, w->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        w->mapped = 0;
        return -5;
    }
    w->nodes = (hw_node *) mem;
    if (w->by_address) {
        w->table = calloc(1u << 16, sizeof(uint32_t));
        w->sample_refs = malloc(sizeof(jweak) * (sample_count > 0 ? sample_count : 1));
        if (w->table == NULL || w->sample_refs == NULL) {
            return -5;
        }
        w->table_mask = (1u << 16) - 1;
        w->check_addresses = raw_handles;
    }
    stats[HW_STAT_TRACKED] = (jlong) hw_tag_samples(jni, env, w, samples, sample_count, stats);
    w->sample_nodes = w->count;
    jvmtiHeapCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.heap_reference_callback = &hw_reference;
    w->outcome = HW_COMPLETE;
    jlong t1 = now_nanos();
    jlong left = time_budget - stats[HW_STAT_PAUSE]; /* a second attempt has what the first one left */
    w->deadline = t1 + (left > 0 ? left : 1);
    err = (*env)->FollowReferences(env, 0, NULL, NULL, &callbacks, w);
    jlong t2 = now_nanos();
    stats[HW_STAT_BEFORE] = t1 - started - stats[HW_STAT_PAUSE];
    stats[HW_STAT_PAUSE] += t2 - t1;
    stats[HW_STAT_NODES] = w->count;
    stats[HW_STAT_REFERENCES] = (jlong) w->references;
    stats[HW_STAT_MEMORY] = hw_memory(w);
    stats[HW_STAT_TAGS] = (jlong) w->tags;
    stats[HW_STAT_BY_ADDRESS] = w->by_address;
    return err == JVMTI_ERROR_NONE ? 0 : (jint) err;
}

#endif
