/*
 * The heap walk's answer (included once, by heap_walk.h): after the walk, on the calling thread, the chains of the
 * reached samples copied out (hw_chains: each node once, parents first, cut at a root or a class that never unloads),
 * named (hw_names: class names from their signatures; field names by reading the example holder's reference fields
 * and comparing them with the example value; roots from the thread's name and the frame's method and line), and
 * handed to Java as arrays (hw_java_answer).
 */

/* ----------------------------------------------------------------------------------------- the answer */

/* The strings of an answer, each once. */
typedef struct {
    char **values;
    uint32_t count;
    uint32_t capacity;
    int32_t *slots;
    uint32_t slot_mask;
} hw_strings;

static uint64_t hw_hash(const char *s) {
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s != 0; s++) {
        h = (h ^ (uint8_t) *s) * UINT64_C(1099511628211);
    }
    return h;
}

/* @return the string's index, or -1 when memory is short */
static int32_t hw_intern(hw_strings *t, const char *s) {
    if (t->slots == NULL || t->count * 2 >= t->slot_mask + 1) {
        uint32_t slots = t->slots == NULL ? 1024 : (t->slot_mask + 1) * 2;
        int32_t *bigger = malloc(sizeof(int32_t) * slots);
        if (bigger == NULL) {
            return -1;
        }
        memset(bigger, 0xFF, sizeof(int32_t) * slots);
        for (uint32_t i = 0; i < t->count; i++) {
            uint32_t k = (uint32_t) hw_hash(t->values[i]) & (slots - 1);
            while (bigger[k] >= 0) {
                k = (k + 1) & (slots - 1);
            }
            bigger[k] = (int32_t) i;
        }
        free(t->slots);
        t->slots = bigger;
        t->slot_mask = slots - 1;
    }
    uint32_t k = (uint32_t) hw_hash(s) & t->slot_mask;
    while (t->slots[k] >= 0) {
        if (strcmp(t->values[t->slots[k]], s) == 0) {
            return t->slots[k];
        }
        k = (k + 1) & t->slot_mask;
    }
    if (t->count == t->capacity) {
        uint32_t grown = t->capacity == 0 ? 256 : t->capacity * 2;
        char **bigger = realloc(t->values, sizeof(char *) * grown);
        if (bigger == NULL) {
            return -1;
        }
        t->values = bigger;
        t->capacity = grown;
    }
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy == NULL) {
        return -1;
    }
    memcpy(copy, s, n);
    t->values[t->count] = copy;
    t->slots[k] = (int32_t) t->count;
    return (int32_t) t->count++;
}

static void hw_strings_free(hw_strings *t) {
    for (uint32_t i = 0; i < t->count; i++) {
        free(t->values[i]);
    }
    free(t->values);
    free(t->slots);
}

/* The string index of a class's name (computed once). */
static int32_t hw_class_name(hw_state *w, hw_strings *t, uint32_t klass) {
    uint32_t i = (klass & ~HW_MIRROR) - 1;
    if ((klass & ~HW_MIRROR) == 0 || i >= (uint32_t) w->class_count) {
        return hw_intern(t, "?");
    }
    hw_class *c = &w->classes[i];
    if (c->name < 0) {
        char *sig = NULL;
        char name[1024];
        if ((*jvmti)->GetClassSignature(jvmti, c->cls, &sig, NULL) == JVMTI_ERROR_NONE && sig != NULL) {
            hw_signature_name(sig, name, sizeof(name));
            (*jvmti)->Deallocate(jvmti, (unsigned char *) sig);
        } else {
            snprintf(name, sizeof(name), "?");
        }
        c->name = hw_intern(t, name);
    }
    return c->name;
}

/* "pkg.Class.method(File.java:LINE)" for a frame. */
static void hw_frame_text(JNIEnv *jni, jmethodID method, jlocation location, char *out, size_t cap) {
    char *name = NULL, *sig = NULL, *file = NULL;
    jclass holder = NULL;
    snprintf(out, cap, "?");
    if (method == NULL || (*jvmti)->GetMethodName(jvmti, method, &name, NULL, NULL) != JVMTI_ERROR_NONE
            || (*jvmti)->GetMethodDeclaringClass(jvmti, method, &holder) != JVMTI_ERROR_NONE
            || (*jvmti)->GetClassSignature(jvmti, holder, &sig, NULL) != JVMTI_ERROR_NONE) {
        goto done;
    }
    char cls[512];
    hw_signature_name(sig, cls, sizeof(cls));
    if ((*jvmti)->GetSourceFileName(jvmti, holder, &file) != JVMTI_ERROR_NONE) {
        file = NULL;
    }
    jint line = -1;
    jint entries = 0;
    jvmtiLineNumberEntry *table = NULL;
    if (location >= 0 && (*jvmti)->GetLineNumberTable(jvmti, method, &entries, &table) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < entries; i++) {
            if (table[i].start_location <= location) {
                line = table[i].line_number;
            }
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *) table);
    }
    if (file != NULL && line > 0) {
        snprintf(out, cap, "%s.%s(%s:%d)", cls, name, file, (int) line);
    } else if (file != NULL) {
        snprintf(out, cap, "%s.%s(%s)", cls, name, file);
    } else {
        snprintf(out, cap, "%s.%s(Unknown Source)", cls, name);
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
}

/* Thread names already looked up, by Java id. */
#define HW_THREAD_NAMES 64
typedef struct {
    jlong tid[HW_THREAD_NAMES];
    char name[HW_THREAD_NAMES][256];
    int count;
} hw_thread_names;

/* The name of a thread (a jthread), or an empty string. */
static void hw_thread_object_name(JNIEnv *jni, jobject thread, char *out, size_t cap) {
    out[0] = 0;
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof(info));
    if (thread != NULL && (*jvmti)->GetThreadInfo(jvmti, thread, &info) == JVMTI_ERROR_NONE) {
        if (info.name != NULL) {
            snprintf(out, cap, "%s", info.name);
            (*jvmti)->Deallocate(jvmti, (unsigned char *) info.name);
        }
        if (info.thread_group != NULL) {
            (*jni)->DeleteLocalRef(jni, info.thread_group);
        }
        if (info.context_class_loader != NULL) {
            (*jni)->DeleteLocalRef(jni, info.context_class_loader);
        }
    }
}

/* The name of the live thread with this Java id, or "#id" (a virtual thread, or one that ended). */
static void hw_thread_name(JNIEnv *jni, hw_thread_names *cache, jlong tid, char *out, size_t cap) {
    for (int i = 0; i < cache->count; i++) {
        if (cache->tid[i] == tid) {
            snprintf(out, cap, "%s", cache->name[i]);
            return;
        }
    }
    snprintf(out, cap, "#%lld", (long long) tid);
    jint count = 0;
    jthread *threads = NULL;
    if (tid_field != NULL && (*jvmti)->GetAllThreads(jvmti, &count, &threads) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count; i++) {
            if ((*jni)->GetLongField(jni, threads[i], tid_field) == tid) {
                char name[256];
                hw_thread_object_name(jni, threads[i], name, sizeof(name));
                if (name[0] != 0) {
                    snprintf(out, cap, "%s", name);
                }
            }
            (*jni)->DeleteLocalRef(jni, threads[i]);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *) threads);
    }
    int slot = cache->count < HW_THREAD_NAMES ? cache->count++ : (int) (tid & (HW_THREAD_NAMES - 1));
    cache->tid[slot] = tid;
    snprintf(cache->name[slot], sizeof(cache->name[slot]), "%s", out);
}

/*
 * Names a field by reading its example holder's reference fields and comparing each with the example value: the
 * one that holds it is the field. Falls back to "<field N>" (the JVM's index) when none does any more (the program
 * changed it since the walk) or there is no example.
 */
static void hw_name_field(JNIEnv *jni, hw_state *w, hw_strings *t, hw_example *x, jobject holder, jobject value) {
    char found[512] = "";
    uint32_t ci = x->klass - 1;
    if (x->klass != 0 && ci < (uint32_t) w->class_count && value != NULL && (x->is_static || holder != NULL)) {
        jclass k = (jclass) (*jni)->NewLocalRef(jni, w->classes[ci].cls);
        while (k != NULL && found[0] == 0) {
            jint count = 0;
            jfieldID *fields = NULL;
            if ((*jvmti)->GetClassFields(jvmti, k, &count, &fields) == JVMTI_ERROR_NONE) {
                for (jint i = 0; i < count; i++) {
                    jint modifiers = 0;
                    char *name = NULL, *sig = NULL;
                    if ((*jvmti)->GetFieldModifiers(jvmti, k, fields[i], &modifiers) != JVMTI_ERROR_NONE
                            || ((modifiers & 0x0008) != 0) != (x->is_static != 0)
                            || (*jvmti)->GetFieldName(jvmti, k, fields[i], &name, &sig, NULL) != JVMTI_ERROR_NONE) {
                        continue;
                    }
                    if (sig[0] == 'L' || sig[0] == '[') {
                        jobject v = x->is_static ? (*jni)->GetStaticObjectField(jni, k, fields[i])
                                                 : (*jni)->GetObjectField(jni, holder, fields[i]);
                        if ((*jni)->ExceptionCheck(jni)) {
                            (*jni)->ExceptionClear(jni);
                        } else if (v != NULL) {
                            if ((*jni)->IsSameObject(jni, v, value)) {
                                /* two fields holding the value: both names (hw_example: mostly avoided) */
                                size_t used = strlen(found);
                                snprintf(found + used, sizeof(found) - used, "%s%s", used == 0 ? "" : "|", name);
                            }
                            (*jni)->DeleteLocalRef(jni, v);
                        }
                    }
                    (*jvmti)->Deallocate(jvmti, (unsigned char *) name);
                    (*jvmti)->Deallocate(jvmti, (unsigned char *) sig);
                }
                (*jvmti)->Deallocate(jvmti, (unsigned char *) fields);
            }
            jclass super = x->is_static ? NULL : (*jni)->GetSuperclass(jni, k);
            (*jni)->DeleteLocalRef(jni, k);
            k = super;
        }
        if (k != NULL) {
            (*jni)->DeleteLocalRef(jni, k);
        }
    }
    if (found[0] == 0) {
        snprintf(found, sizeof(found), "<field %u>", x->index);
    }
    x->name = hw_intern(t, found);
}

/* Whether a node is the Class object of a class that never unloads (boot, platform or application loader). */
static inline int hw_builtin_mirror(const hw_state *w, const hw_node *e) {
    uint32_t c = e->klass & ~HW_MIRROR;
    return (e->klass & HW_MIRROR) && c != 0 && c <= (uint32_t) w->class_count
            && (w->classes[c - 1].flags & HW_BUILTIN);
}

/* An object the names need, by its tag. */
typedef struct {
    jlong tag;
    jobject object;
} hw_found;

static int hw_found_order(const void *a, const void *b) {
    jlong x = ((const hw_found *) a)->tag, y = ((const hw_found *) b)->tag;
    return x < y ? -1 : x > y;
}

static jobject hw_find(const hw_found *by_tag, jint n, jlong tag) {
    jint lo = 0, hi = n - 1;
    while (lo <= hi) {
        jint mid = (jint) (((uint32_t) lo + (uint32_t) hi) >> 1);
        if (by_tag[mid].tag < tag) {
            lo = mid + 1;
        } else if (by_tag[mid].tag > tag) {
            hi = mid - 1;
        } else {
            return by_tag[mid].object;
        }
    }
    return NULL;
}

/* The answer being built: nodes (HW_OUT_NODE_LONGS each), the walk's node of each, samples, strings. */
typedef struct {
    jlong *nodes;
    uint32_t *source;
    size_t count;
    size_t capacity;
    uint32_t max_nodes; /* the most nodes of paths it may hold: a recording block's, and the Java heap's room */
    size_t left_out;    /* reached samples whose path did not fit: each a root node of its own (HW_LEFT_OUT) */
    jlong *samples;
    size_t sample_count;
    size_t reached;
    hw_strings strings;
} hw_answer;

/* The root description of a reached sample whose path did not fit in the answer. */
#define HW_LEFT_OUT "path left out (the walk's answer was full)"

/* Label placeholders of an answer's node until names are known: a root record, or a field example. */
#define HW_LABEL_ROOT(record) (-(jlong) (record) - 2)
#define HW_LABEL_FIELD(example) (-(jlong) (example) - 1000000000LL)

static int hw_by_depth(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *) x;
    uint64_t b = *(const uint64_t *) y;
    return a < b ? -1 : a > b;
}

/*
 * Orders the samples by the walk's depth of their node, shallowest first (unreached ones last), ties in their
 * order: the answer's room then goes to the paths that cost the fewest nodes, so that it holds as many samples'
 * paths as it can whatever the order the samples were tracked in (a long linked list entered at its far end must not
 * take the whole room for its first sample's path, leaving none for the samples near the root). Returns 0, or -5
 * when memory is short.
 */
static int hw_order_by_depth(hw_state *w, hw_sample *samples, size_t sample_count) {
    uint64_t *keys = malloc(sizeof(uint64_t) * (sample_count > 0 ? sample_count : 1));
    hw_sample *sorted = malloc(sizeof(hw_sample) * (sample_count > 0 ? sample_count : 1));
    if (keys == NULL || sorted == NULL) {
        free(keys);
        free(sorted);
        return -5;
    }
    for (size_t i = 0; i < sample_count; i++) {
        hw_node *e = samples[i].node == 0 ? NULL : &w->nodes[samples[i].node - 1];
        uint64_t depth = e == NULL || e->parent == HW_UNREACHED ? UINT32_MAX : e->depth;
        keys[i] = depth << 32 | (uint64_t) i; /* sample counts stay below 2^32: the live table's are */
    }
    qsort(keys, sample_count, sizeof(uint64_t), hw_by_depth);
    for (size_t i = 0; i < sample_count; i++) {
        sorted[i] = samples[keys[i] & 0xFFFFFFFFu];
    }
    memcpy(samples, sorted, sizeof(hw_sample) * sample_count);
    free(keys);
    free(sorted);
    return 0;
}

/*
 * Copies each reached sample's chain into the answer, shallowest samples first (hw_order_by_depth): up from the
 * sample to a root, a class of a built-in loader, or a node already copied; each node once, parents first. The walk's
 * depth field holds a node's answer index + 1 from here on. Returns 0, or -5 when memory is short.
 *
 * About 100 lines: one loop over the samples with its chain buffer; its steps share that buffer's bookkeeping.
 */
static int hw_chains(hw_state *w, hw_sample *samples, size_t sample_count, hw_answer *a) {
    if (hw_order_by_depth(w, samples, sample_count) != 0) {
        return -5;
    }
    for (uint32_t i = 0; i < w->count; i++) {
        w->nodes[i].depth = 0;
    }
    size_t chain_capacity = 4096;
    uint32_t *chain = malloc(sizeof(uint32_t) * chain_capacity);
    a->capacity = 1024;
    a->nodes = malloc(sizeof(jlong) * HW_OUT_NODE_LONGS * a->capacity);
    a->source = malloc(sizeof(uint32_t) * a->capacity);
    a->samples = malloc(sizeof(jlong) * HW_OUT_SAMPLE_LONGS * (sample_count > 0 ? sample_count : 1));
    if (chain == NULL || a->nodes == NULL || a->source == NULL || a->samples == NULL) {
        free(chain);
        return -5;
    }
    for (size_t i = 0; i < sample_count; i++) {
        hw_sample *s = &samples[i];
        if (s->node == 0) {
            continue;
        }
        jlong *o = &a->samples[a->sample_count++ * HW_OUT_SAMPLE_LONGS];
        o[0] = s->id;
        o[1] = s->site;
        o[2] = s->size;
        o[3] = -1;
        if (w->nodes[s->node - 1].parent == HW_UNREACHED) {
            continue;
        }
        size_t len = 0;
        for (uint32_t n = s->node; n != 0 && w->nodes[n - 1].depth == 0 && len <= w->count;) {
            if (len == chain_capacity) {
                uint32_t *bigger = realloc(chain, sizeof(uint32_t) * chain_capacity * 2);
                if (bigger == NULL) {
                    free(chain);
                    return -5;
                }
                chain = bigger;
                chain_capacity *= 2;
            }
            chain[len++] = n;
            hw_node *e = &w->nodes[n - 1];
            if (e->parent == HW_ROOT || e->parent == HW_UNREACHED || hw_builtin_mirror(w, e)) {
                break; /* a root, or a class that never unloads: its static fields are roots */
            }
            n = e->parent;
        }
        /* max_nodes bounds the nodes of paths: a left-out sample's own node is not one (its room was set aside
         * with the sample's, HW_JAVA_SAMPLE_BYTES), so left-out samples never take the room of a later path */
        int left_out = len > 0 && (a->count - a->left_out) + len > a->max_nodes;
        if (left_out) {
            /* too many nodes for the answer: the sample alone, as a root of its own, so that it still reads as
             * reached (one node more per sample at most, counted in HW_JAVA_SAMPLE_BYTES) */
            chain[0] = s->node;
            len = 1;
            a->left_out++;
        }
        while (a->count + len > a->capacity) {
            jlong *bigger = realloc(a->nodes, sizeof(jlong) * HW_OUT_NODE_LONGS * a->capacity * 2);
            if (bigger == NULL) {
                free(chain);
                return -5;
            }
            a->nodes = bigger;
            uint32_t *source = realloc(a->source, sizeof(uint32_t) * a->capacity * 2);
            if (source == NULL) {
                free(chain);
                return -5;
            }
            a->source = source;
            a->capacity *= 2;
        }
        for (size_t k = len; k-- > 0;) {
            uint32_t m = chain[k];
            hw_node *e = &w->nodes[m - 1];
            int top = left_out || e->parent == HW_ROOT || e->parent == HW_UNREACHED || hw_builtin_mirror(w, e);
            uint32_t kind = left_out ? JVMTI_HEAP_REFERENCE_OTHER : HW_EDGE_KIND(e->edge);
            if (!left_out && hw_builtin_mirror(w, e)) {
                kind = JVMTI_HEAP_REFERENCE_SYSTEM_CLASS; /* a class that never unloads: a root of its own */
            }
            jlong *r = &a->nodes[a->count * HW_OUT_NODE_LONGS];
            r[0] = top ? -1 : (jlong) w->nodes[e->parent - 1].depth - 1;
            r[1] = kind | ((e->klass & HW_MIRROR) ? 0x100 : 0);
            r[2] = !top && (kind == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT || kind == JVMTI_HEAP_REFERENCE_CONSTANT_POOL)
                    ? HW_EDGE_INDEX(e->edge) : 0;
            r[3] = e->klass; /* the class name's string index, below */
            r[4] = top ? HW_LABEL_ROOT(kind == JVMTI_HEAP_REFERENCE_SYSTEM_CLASS ? 0 : HW_EDGE_INDEX(e->edge)) : -1;
            if (left_out) {
                r[4] = hw_intern(&a->strings, HW_LEFT_OUT);
            }
            if (!top && (kind == JVMTI_HEAP_REFERENCE_FIELD || kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD)) {
                hw_node *p = &w->nodes[e->parent - 1];
                uint32_t holder = kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD ? (p->klass & ~HW_MIRROR) : p->klass;
                hw_example *x = hw_example_find(w, holder, HW_EDGE_INDEX(e->edge),
                                                kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD);
                r[4] = x == NULL ? -(jlong) HW_EDGE_INDEX(e->edge) - 3000000000LL
                                 : HW_LABEL_FIELD((jlong) (x - w->examples));
            }
            a->source[a->count] = m;
            e->depth = (uint32_t) ++a->count;
        }
        o[3] = (jlong) w->nodes[s->node - 1].depth - 1;
        a->reached++;
    }
    free(chain);
    return 0;
}

/*
 * Names the answer's classes, fields and roots. Returns 0, or -5 when memory is short.
 *
 * About 115 lines: classes, fields and roots named in one pass over the answer, with one local frame for their JNI
 * work.
 */
static int hw_names(JNIEnv *jni, jvmtiEnv *env, hw_state *w, hw_answer *a) {
    /* the objects the names need: the examples of the fields in the answer, the threads of thread roots */
    size_t want_capacity = 2 * (size_t) w->example_count + a->count + 1;
    jlong *wanted = malloc(sizeof(jlong) * want_capacity);
    if (wanted == NULL) {
        return -5;
    }
    size_t wanted_count = 0;
    for (size_t i = 0; i < a->count; i++) {
        jlong label = a->nodes[i * HW_OUT_NODE_LONGS + 4];
        if (label <= -1000000000LL && label > -3000000000LL) {
            hw_example *x = &w->examples[-(label + 1000000000LL)];
            if (x->name == -1) {
                x->name = -2; /* asked for: each example once */
                if (!x->is_static) {
                    wanted[wanted_count++] = x->holder;
                }
                if (x->value < HW_CLASS_TAG) {
                    wanted[wanted_count++] = x->value;
                }
            }
        } else if ((a->nodes[i * HW_OUT_NODE_LONGS + 1] & 0xFF) == JVMTI_HEAP_REFERENCE_THREAD
                   && a->nodes[i * HW_OUT_NODE_LONGS] < 0) {
            wanted[wanted_count++] = a->source[i];
        }
    }
    jint found = 0;
    jobject *objects = NULL;
    jlong *found_tags = NULL;
    if (wanted_count > 0 && (*env)->GetObjectsWithTags(env, (jint) wanted_count, wanted, &found, &objects,
                                                       &found_tags) != JVMTI_ERROR_NONE) {
        found = 0;
        objects = NULL;
        found_tags = NULL;
    }
    free(wanted);
    hw_found *by_tag = found > 0 ? malloc(sizeof(hw_found) * (size_t) found) : NULL;
    if (found > 0 && by_tag == NULL) {
        found = 0;
    }
    for (jint i = 0; i < found; i++) {
        by_tag[i].tag = found_tags[i];
        by_tag[i].object = objects[i];
    }
    if (found > 1) {
        qsort(by_tag, (size_t) found, sizeof(hw_found), hw_found_order);
    }
    hw_thread_names names;
    memset(&names, 0, sizeof(names));
    char text[1400];
    int rc = 0;
    for (size_t i = 0; i < a->count && rc == 0; i++) {
        jlong *r = &a->nodes[i * HW_OUT_NODE_LONGS];
        r[3] = hw_class_name(w, &a->strings, (uint32_t) r[3]);
        jlong label = r[4];
        if (label <= -3000000000LL) {
            snprintf(text, sizeof(text), "<field %lld>", (long long) (-(label + 3000000000LL)));
            r[4] = hw_intern(&a->strings, text);
        } else if (label <= -1000000000LL) {
            hw_example *x = &w->examples[-(label + 1000000000LL)];
            if (x->name == -2) {
                jobject holder = x->is_static ? NULL : hw_find(by_tag, found, x->holder);
                jobject value;
                if (x->value >= HW_CLASS_TAG) {
                    hw_class *vc = hw_class_of(w, x->value);
                    value = vc == NULL ? NULL : vc->cls;
                } else {
                    value = hw_find(by_tag, found, x->value);
                }
                hw_name_field(jni, w, &a->strings, x, holder, value);
            }
            r[4] = x->name;
        } else if (label <= -2) {
            uint32_t record = (uint32_t) (-label - 2);
            jint kind = (jint) (r[1] & 0xFF);
            char name[256];
            switch (kind) {
                case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
                case JVMTI_HEAP_REFERENCE_JNI_LOCAL: {
                    hw_root *root = record < w->root_count ? &w->roots[record] : NULL;
                    char frame[1024];
                    hw_thread_name(jni, &names, root == NULL ? 0 : root->tid, name, sizeof(name));
                    hw_frame_text(jni, root == NULL ? NULL : root->method, root == NULL ? -1 : root->location, frame,
                                  sizeof(frame));
                    snprintf(text, sizeof(text), kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL ? "thread %s: %s"
                             : "thread %s: JNI local in %s", name, frame);
                    break;
                }
                case JVMTI_HEAP_REFERENCE_THREAD:
                    hw_thread_object_name(jni, hw_find(by_tag, found, a->source[i]), name, sizeof(name));
                    snprintf(text, sizeof(text), "thread %s", name[0] == 0 ? "?" : name);
                    break;
                case JVMTI_HEAP_REFERENCE_JNI_GLOBAL: snprintf(text, sizeof(text), "JNI global"); break;
                case JVMTI_HEAP_REFERENCE_MONITOR: snprintf(text, sizeof(text), "monitor"); break;
                case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS:
                    snprintf(text, sizeof(text), "class %s", r[3] >= 0 ? a->strings.values[r[3]] : "?");
                    break;
                default: snprintf(text, sizeof(text), "VM internal"); break;
            }
            r[4] = hw_intern(&a->strings, text);
        }
        if (r[3] < 0 || r[4] < -1) {
            rc = -5;
        }
    }
    for (jint i = 0; i < found; i++) {
        (*jni)->DeleteLocalRef(jni, objects[i]);
    }
    if (objects != NULL) {
        (*env)->Deallocate(env, (unsigned char *) objects);
    }
    if (found_tags != NULL) {
        (*env)->Deallocate(env, (unsigned char *) found_tags);
    }
    free(by_tag);
    return rc;
}

static jlongArray hw_long_array(JNIEnv *jni, const jlong *values, size_t n) {
    if (n > (size_t) INT32_MAX) {
        return NULL;
    }
    jlongArray array = (*jni)->NewLongArray(jni, (jsize) n);
    if (array != NULL && n > 0) {
        (*jni)->SetLongArrayRegion(jni, array, 0, (jsize) n, values);
    }
    return array;
}

/* {long[] nodes, String[] strings, long[] samples}, or NULL when memory is short. */
static jobjectArray hw_java_answer(JNIEnv *jni, hw_answer *a) {
    jclass object_class = (*jni)->FindClass(jni, "java/lang/Object");
    jclass string_class = (*jni)->FindClass(jni, "java/lang/String");
    jobjectArray result = object_class == NULL ? NULL : (*jni)->NewObjectArray(jni, 3, object_class, NULL);
    jobjectArray names = string_class == NULL || result == NULL ? NULL
            : (*jni)->NewObjectArray(jni, (jsize) a->strings.count, string_class, NULL);
    if (names == NULL) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    for (uint32_t i = 0; i < a->strings.count; i++) {
        jstring s = (*jni)->NewStringUTF(jni, a->strings.values[i]);
        if (s == NULL) {
            (*jni)->ExceptionClear(jni);
            return NULL;
        }
        (*jni)->SetObjectArrayElement(jni, names, (jsize) i, s);
        (*jni)->DeleteLocalRef(jni, s);
    }
    jlongArray nodes = hw_long_array(jni, a->nodes, a->count * HW_OUT_NODE_LONGS);
    jlongArray samples = nodes == NULL ? NULL : hw_long_array(jni, a->samples, a->sample_count * HW_OUT_SAMPLE_LONGS);
    if (samples == NULL) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    (*jni)->SetObjectArrayElement(jni, result, 0, nodes);
    (*jni)->SetObjectArrayElement(jni, result, 1, names);
    (*jni)->SetObjectArrayElement(jni, result, 2, samples);
    return result;
}

