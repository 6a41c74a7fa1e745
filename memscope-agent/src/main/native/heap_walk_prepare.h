/*
 * Before the heap walk (included once, by heap_walk.h): the probe that finds where this JVM's reference wrappers hold
 * the objects' addresses (hw_probe_layout), the memory free for the walk (hw_available_bytes), and the description of
 * every loaded class the walk needs (hw_prepare_classes: leaf or not, weak reference or not, built-in loader or not,
 * each class's mirror tagged with its index).
 */

/* ------------------------------------------------------------------------------------- the layout probe */

typedef struct {
    uintptr_t array;
    uintptr_t element[4];
    /* per candidate word (1..8): matches of the referee and referrer addresses, directly and through a pointer */
    int referee_direct[9];
    int referee_deref[9];
    int referrer_direct[9];
    int referrer_deref[9];
    int calls;
} hw_probe;

static inline int hw_near(const jlong *tag_ptr, uintptr_t v) {
    uintptr_t p = (uintptr_t) tag_ptr;
    return (v & 7) == 0 && v + 65536 > p && v < p + 65536;
}

static jint JNICALL hw_probe_reference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                                       jlong class_tag, jlong referrer_class_tag, jlong size, jlong *tag_ptr,
                                       jlong *referrer_tag_ptr, jint length, void *user_data) {
    (void) class_tag;
    (void) referrer_class_tag;
    (void) size;
    (void) length;
    hw_probe *p = (hw_probe *) user_data;
    if (kind != JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT || referrer_tag_ptr == NULL || info->array.index < 0
            || info->array.index >= 4) {
        return 0;
    }
    uintptr_t expected = p->element[info->array.index];
    p->calls++;
    for (int k = 1; k <= 8; k++) {
        uintptr_t v = ((const uintptr_t *) tag_ptr)[-k];
        p->referee_direct[k] += v == expected;
        p->referee_deref[k] += hw_near(tag_ptr, v) && *(const uintptr_t *) v == expected;
        uintptr_t r = ((const uintptr_t *) referrer_tag_ptr)[-k];
        p->referrer_direct[k] += r == p->array;
        p->referrer_deref[k] += hw_near(referrer_tag_ptr, r) && *(const uintptr_t *) r == p->array;
    }
    return 0;
}

/* The only candidate word that matched every call (direct before through a pointer), or 0 for none or several. */
static int hw_probe_choose(const int *direct, const int *deref, int calls, int *word, int *through) {
    int found = 0;
    for (int pass = 0; pass < 2 && found == 0; pass++) {
        for (int k = 1; k <= 8; k++) {
            if ((pass == 0 ? direct : deref)[k] == calls) {
                if (found) {
                    return 0; /* ambiguous */
                }
                found = 1;
                *word = k;
                *through = pass;
            }
        }
    }
    return found;
}

/*
 * Finds where this JVM's reference wrappers hold the objects' addresses: a walk from an array of four class objects
 * whose addresses the local references give. Returns 1 when one layout fits every reference.
 */
static int hw_probe_layout(JNIEnv *jni, jvmtiEnv *env, hw_layout *layout) {
    static const char *names[4] = {"java/lang/Object", "java/lang/String", "java/lang/Thread", "java/lang/Integer"};
    jclass object_class = (*jni)->FindClass(jni, names[0]);
    if (object_class == NULL) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    jobjectArray array = (*jni)->NewObjectArray(jni, 4, object_class, NULL);
    if (array == NULL) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    hw_probe probe;
    memset(&probe, 0, sizeof(probe));
    jclass elements[4];
    for (int i = 0; i < 4; i++) {
        elements[i] = (*jni)->FindClass(jni, names[i]);
        if (elements[i] == NULL) {
            (*jni)->ExceptionClear(jni);
            return 0;
        }
        (*jni)->SetObjectArrayElement(jni, array, i, elements[i]);
    }
    jvmtiHeapCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.heap_reference_callback = &hw_probe_reference;
    /* local references are untagged pointers to their slot; read the objects' addresses from them */
    if (((uintptr_t) array & 3) != 0) {
        return 0;
    }
    probe.array = *(uintptr_t *) array;
    for (int i = 0; i < 4; i++) {
        if (((uintptr_t) elements[i] & 3) != 0) {
            return 0;
        }
        probe.element[i] = *(uintptr_t *) elements[i];
    }
    if ((*env)->FollowReferences(env, 0, NULL, array, &callbacks, &probe) != JVMTI_ERROR_NONE || probe.calls != 4) {
        return 0;
    }
    /* the probe ran at a safepoint of its own: check that nothing moved since the addresses were read */
    if (probe.array != *(uintptr_t *) array) {
        return 0;
    }
    return hw_probe_choose(probe.referee_direct, probe.referee_deref, probe.calls, &layout->referee_word,
                           &layout->referee_deref)
            && hw_probe_choose(probe.referrer_direct, probe.referrer_deref, probe.calls, &layout->referrer_word,
                               &layout->referrer_deref);
}

/* ------------------------------------------------------------------------------------- before the walk */

static int64_t hw_read_number(const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    char buf[64];
    int64_t v = -1;
    if (fgets(buf, sizeof(buf), f) != NULL && buf[0] >= '0' && buf[0] <= '9') {
        v = strtoll(buf, NULL, 10);
    }
    fclose(f);
    return v;
}

/* Bytes the process may still take: free memory of the machine, and of its cgroup when that has a limit. */
static int64_t hw_available_bytes(void) {
    int64_t available = -1;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f != NULL) {
        char line[256];
        while (fgets(line, sizeof(line), f) != NULL) {
            long long kb;
            if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) {
                available = (int64_t) kb * 1024;
                break;
            }
        }
        fclose(f);
    }
    char group[512] = "";
    f = fopen("/proc/self/cgroup", "r");
    if (f != NULL) {
        char line[512];
        while (fgets(line, sizeof(line), f) != NULL) {
            if (strncmp(line, "0::", 3) == 0) {
                snprintf(group, sizeof(group), "%s", line + 3);
                group[strcspn(group, "\n")] = 0;
                break;
            }
        }
        fclose(f);
    }
    char path[700];
    int64_t limit = -1, usage = -1;
    if (group[0] != 0) {
        snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max", group);
        limit = hw_read_number(path);
        snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current", group);
        usage = hw_read_number(path);
    }
    if (limit < 0) {
        limit = hw_read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes"); /* cgroup v1 */
        usage = hw_read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
    }
    if (limit > 0 && usage >= 0 && limit < (INT64_C(1) << 60)) {
        int64_t room = limit > usage ? limit - usage : 0;
        available = available < 0 || room < available ? room : available;
    }
    return available;
}

/* "Lcom/acme/Foo;" -> "com.acme.Foo", "[I" -> "int[]", "[[Ljava/lang/String;" -> "java.lang.String[][]"; a hidden
 * class's ".0x..." suffix is left out (it differs from run to run). */
static void hw_signature_name(const char *sig, char *out, size_t cap) {
    int dims = 0;
    while (sig[dims] == '[') {
        dims++;
    }
    const char *s = sig + dims;
    const char *base = NULL;
    size_t n = 0;
    switch (*s) {
        case 'Z': base = "boolean"; break;
        case 'B': base = "byte"; break;
        case 'C': base = "char"; break;
        case 'S': base = "short"; break;
        case 'I': base = "int"; break;
        case 'J': base = "long"; break;
        case 'F': base = "float"; break;
        case 'D': base = "double"; break;
        case 'V': base = "void"; break;
        default: break;
    }
    if (base != NULL) {
        n = (size_t) snprintf(out, cap, "%s", base);
    } else {
        if (*s == 'L') {
            s++;
        }
        for (; *s != 0 && *s != ';' && n + 1 < cap; s++) {
            if ((*s == '/' || *s == '.') && s[1] == '0' && s[2] == 'x') {
                break; /* a hidden class: Foo$$Lambda.0x0000000801001234 (its signature), Foo$$Lambda/0x... */
            }
            out[n++] = *s == '/' ? '.' : *s;
        }
        out[n] = 0;
    }
    for (int i = 0; i < dims && n + 3 < cap; i++) {
        out[n++] = '[';
        out[n++] = ']';
        out[n] = 0;
    }
}

/* Whether a class (index i) has no instance reference field, itself or in a superclass. */
static int hw_leaf(JNIEnv *jni, jvmtiEnv *env, hw_state *w, jint i) {
    hw_class *c = &w->classes[i];
    if (c->leaf_state == 2) {
        return (c->flags & HW_LEAF) != 0;
    }
    if (c->leaf_state == 1) {
        return 0;
    }
    c->leaf_state = 1;
    int leaf = 1;
    jint count = 0;
    jfieldID *fields = NULL;
    if ((*jvmti)->GetClassFields(jvmti, c->cls, &count, &fields) != JVMTI_ERROR_NONE) {
        leaf = 0;
    } else {
        for (jint f = 0; f < count && leaf; f++) {
            jint modifiers = 0;
            char *sig = NULL;
            if ((*jvmti)->GetFieldModifiers(jvmti, c->cls, fields[f], &modifiers) != JVMTI_ERROR_NONE
                    || (*jvmti)->GetFieldName(jvmti, c->cls, fields[f], NULL, &sig, NULL) != JVMTI_ERROR_NONE) {
                leaf = 0;
                continue;
            }
            if ((modifiers & 0x0008) == 0 && (sig[0] == 'L' || sig[0] == '[')) {
                leaf = 0;
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *) sig);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *) fields);
    }
    if (leaf) {
        jclass super = (*jni)->GetSuperclass(jni, c->cls);
        if (super != NULL) {
            jlong tag = 0;
            if ((*env)->GetTag(env, super, &tag) != JVMTI_ERROR_NONE || tag < HW_CLASS_TAG
                    || tag - HW_CLASS_TAG >= w->class_count) {
                leaf = 0;
            } else {
                leaf = hw_leaf(jni, env, w, (jint) (tag - HW_CLASS_TAG));
            }
            (*jni)->DeleteLocalRef(jni, super);
        }
    }
    if (leaf) {
        c->flags |= HW_LEAF;
    }
    c->leaf_state = 2;
    return leaf;
}

/* Counts the fields of every interface a class implements, directly or through its superclasses and interfaces. */
static jint hw_interface_fields(JNIEnv *jni, jclass cls, jclass *seen, jint *seen_count, jint seen_cap) {
    jint total = 0;
    jint n = 0;
    jclass *interfaces = NULL;
    if ((*jvmti)->GetImplementedInterfaces(jvmti, cls, &n, &interfaces) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < n; i++) {
            int known = 0;
            for (jint s = 0; s < *seen_count && !known; s++) {
                known = (*jni)->IsSameObject(jni, seen[s], interfaces[i]);
            }
            if (!known && *seen_count < seen_cap) {
                seen[(*seen_count)++] = interfaces[i];
                jint fields = 0;
                jfieldID *ids = NULL;
                if ((*jvmti)->GetClassFields(jvmti, interfaces[i], &fields, &ids) == JVMTI_ERROR_NONE) {
                    (*jvmti)->Deallocate(jvmti, (unsigned char *) ids);
                    total += fields;
                }
                total += hw_interface_fields(jni, interfaces[i], seen, seen_count, seen_cap);
            }
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *) interfaces);
    }
    jclass super = (*jni)->GetSuperclass(jni, cls);
    if (super != NULL) {
        total += hw_interface_fields(jni, super, seen, seen_count, seen_cap);
    }
    return total;
}

/* Whether this JVM numbers fields as the JVMTI specification says (JDK 23 and later: interfaces' fields first). */
static int hw_spec_field_indexes(void) {
    char *version = NULL;
    int spec = 0;
    if ((*jvmti)->GetSystemProperty(jvmti, "java.specification.version", &version) == JVMTI_ERROR_NONE
            && version != NULL) {
        spec = atoi(version) >= 23;
        (*jvmti)->Deallocate(jvmti, (unsigned char *) version);
    }
    return spec;
}

/* Whether a loader is the platform or the application class loader (the boot loader is NULL). */
static int hw_builtin_loader(JNIEnv *jni, jobject loader) {
    int builtin = 0;
    jclass lc = (*jni)->GetObjectClass(jni, loader);
    char *ls = NULL;
    if (lc != NULL && (*jvmti)->GetClassSignature(jvmti, lc, &ls, NULL) == JVMTI_ERROR_NONE) {
        builtin = strcmp(ls, "Ljdk/internal/loader/ClassLoaders$AppClassLoader;") == 0
                || strcmp(ls, "Ljdk/internal/loader/ClassLoaders$PlatformClassLoader;") == 0;
        (*jvmti)->Deallocate(jvmti, (unsigned char *) ls);
    }
    if (lc != NULL) {
        (*jni)->DeleteLocalRef(jni, lc);
    }
    return builtin;
}

/*
 * Tags every loaded class with what the walk needs to know about it. Returns 0, or -5 when memory is short, or a
 * JVMTI error code.
 *
 * About 110 lines: one pass over GetLoadedClasses, each class described and tagged once, the array freed at one
 * exit.
 */
static jint hw_prepare_classes(JNIEnv *jni, jvmtiEnv *env, hw_state *w) {
    jint count = 0;
    jclass *loaded = NULL;
    jvmtiError err = (*jvmti)->GetLoadedClasses(jvmti, &count, &loaded);
    if (err != JVMTI_ERROR_NONE) {
        return (jint) err;
    }
    w->classes = calloc((size_t) (count > 0 ? count : 1), sizeof(hw_class));
    if (w->classes == NULL) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *) loaded);
        return -5;
    }
    w->class_count = count;
    for (jint i = 0; i < count; i++) {
        hw_class *c = &w->classes[i];
        c->cls = loaded[i];
        c->name = -1;
        c->referent = -1;
        if ((*env)->SetTag(env, loaded[i], HW_CLASS_TAG + i) == JVMTI_ERROR_NONE) {
            w->tags++;
        }
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *) loaded);
    jclass reference = (*jni)->FindClass(jni, "java/lang/ref/Reference");
    jclass soft = (*jni)->FindClass(jni, "java/lang/ref/SoftReference");
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
    }
    int spec_indexes = hw_spec_field_indexes();
    jobject loaders[32];
    int builtin[32];
    int loader_count = 0;
    for (jint i = 0; i < count; i++) {
        hw_class *c = &w->classes[i];
        char *sig = NULL;
        jint status = 0;
        if ((*jvmti)->GetClassStatus(jvmti, c->cls, &status) == JVMTI_ERROR_NONE
                && (status & (JVMTI_CLASS_STATUS_PREPARED | JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE))) {
            c->flags |= HW_PREPARED;
        }
        int array = 0;
        if ((*jvmti)->GetClassSignature(jvmti, c->cls, &sig, NULL) == JVMTI_ERROR_NONE && sig != NULL) {
            if (sig[0] == '[') {
                array = 1;
                if (sig[1] != 'L' && sig[1] != '[') {
                    c->flags |= HW_LEAF; /* a primitive array */
                }
                c->leaf_state = 2;
            } else if (sig[0] != 'L') {
                c->flags |= HW_LEAF; /* a primitive type's class (int.class): no instances */
                c->leaf_state = 2;
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *) sig);
        } else {
            c->leaf_state = 2; /* unknown: not a leaf */
        }
        /* the defining loader: boot, platform or application (those never unload their classes) */
        jobject loader = NULL;
        if ((*jvmti)->GetClassLoader(jvmti, c->cls, &loader) == JVMTI_ERROR_NONE) {
            if (loader == NULL) {
                c->flags |= HW_BUILTIN;
            } else {
                int found = -1;
                for (int l = 0; l < loader_count && found < 0; l++) {
                    if ((*jni)->IsSameObject(jni, loaders[l], loader)) {
                        found = l;
                    }
                }
                int is_builtin = found >= 0 ? builtin[found] : hw_builtin_loader(jni, loader);
                if (found < 0 && loader_count < 32) {
                    loaders[loader_count] = (*jni)->NewLocalRef(jni, loader);
                    builtin[loader_count++] = is_builtin;
                }
                if (is_builtin) {
                    c->flags |= HW_BUILTIN;
                }
                (*jni)->DeleteLocalRef(jni, loader);
            }
        }
        /* weak, phantom and final references do not hold their referent; soft ones do, until memory runs short */
        if (!array && reference != NULL && (c->flags & HW_PREPARED)
                && (*jni)->IsAssignableFrom(jni, c->cls, reference)
                && !(soft != NULL && (*jni)->IsAssignableFrom(jni, c->cls, soft))) {
            c->flags |= HW_WEAK;
            /* referent is the first field of Reference, whose only superclass (Object) has none */
            if (spec_indexes) {
                jclass seen[64];
                jint seen_count = 0;
                c->referent = hw_interface_fields(jni, c->cls, seen, &seen_count, 64);
            } else {
                c->referent = 0;
            }
        }
    }
    for (jint i = 0; i < count; i++) {
        if (w->classes[i].leaf_state != 2 && (w->classes[i].flags & HW_PREPARED)) {
            hw_leaf(jni, env, w, i);
        }
        w->classes[i].leaf_state = 2;
    }
    for (int l = 0; l < loader_count; l++) {
        (*jni)->DeleteLocalRef(jni, loaders[l]);
    }
    if (reference != NULL) {
        (*jni)->DeleteLocalRef(jni, reference);
    }
    if (soft != NULL) {
        (*jni)->DeleteLocalRef(jni, soft);
    }
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
    }
    return 0;
}

