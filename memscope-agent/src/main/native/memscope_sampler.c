/*
 * libmemscope-sampler: the JVM's own heap sampler (JVMTI SampledObjectAlloc, JEP 331) for memscope's sample mode.
 *
 * The JVM samples each thread's allocations by bytes (a Poisson process whose mean is the interval set with
 * SetHeapSamplingInterval) from its allocation slow path: nothing is added to the application's own allocations.
 * Each sampled object is handed to java.lang.MemscopeHooks.jvmtiSampled(Object, Class, long size, long hash, int count)
 * (which forwards to io.memscope.agent.capture.JvmtiSampler.sampled) on the allocating thread, with a 64-bit hash of
 * the thread's stack taken here by GetStackTrace (much cheaper than a StackWalker walk in Java). When the Java side
 * has not seen that hash before it answers NEED_FRAMES, and the frames follow through jvmtiSampledFrames(Object,
 * Class, long, long, long[]): a long[] of (jmethodID, bytecode index) pairs, top frame first. Java resolves each
 * method once through describe0 and lines0 and caches it, and each stack once by its hash: a repeated stack costs
 * no Java array.
 *
 * Rules: never crash the JVM. Every JVMTI and JNI return code is checked; an application exception pending when
 * the event arrives is left alone (no upcall); an exception thrown by the upcall is cleared. Global references and
 * the method id are created once and never freed, so that a callback still running after stop() is safe.
 */
#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static JavaVM *vm;
static jvmtiEnv *jvmti;
/* Set once by start0 (under the Java class's lock), read by the callback. */
static jclass sampler_class;
static jmethodID sampled_method;
/*
 * java.lang.Class (global reference): its instances are the mirrors the JVM allocates while it loads a class. A
 * sample of one is dropped here, before any Java code runs: Java code run in the middle of loading class X on this
 * thread that needs X itself fails with ClassCircularityError, and the JVM remembers that failure in the constant
 * pool entry that referred to X, so that every later use of X in the application fails too (seen once in 80 runs:
 * java/util/ArrayList$SubList, which then broke every ArrayList.subList of the JVM).
 */
static jclass class_class;
static jmethodID frames_method;
/* What jvmtiSampled answers when it has not seen the stack's hash before: call jvmtiSampledFrames with the frames. */
#define NEED_FRAMES 1
static volatile int enabled;
/* Frames fetched per sample (set by start0, at most MAX_FRAMES). */
static volatile jint frames_wanted = 128;
#define MAX_FRAMES 1024
/* Frames buffered on the native stack (2 KiB); more are malloc'ed. */
#define STACK_FRAMES 128

_Static_assert(sizeof(jvmtiFrameInfo) == 2 * sizeof(jlong), "jvmtiFrameInfo must be two 64-bit words");
_Static_assert(offsetof(jvmtiFrameInfo, location) == sizeof(jlong), "jvmtiFrameInfo.location must be the second word");
_Static_assert(sizeof(jmethodID) == sizeof(jlong), "64-bit only");

/* The same 64-bit mixing step as the Java side's hashes (splitmix-style finalizer). */
static inline uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + UINT64_C(0x9E3779B97F4A7C15) + (h << 6) + (h >> 2);
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    return h ^ (h >> 31);
}

/* A 64-bit hash of the raw frames (jmethodID, bytecode index pairs): the key of the Java side's stack cache. */
static jlong hash_frames(const jvmtiFrameInfo *frames, jint count) {
    uint64_t h = UINT64_C(0x2545F4914F6CDD1D);
    for (jint i = 0; i < count; i++) {
        h = mix(h, (uint64_t) (uintptr_t) frames[i].method);
        h = mix(h, (uint64_t) frames[i].location);
    }
    return (jlong) h;
}

static void JNICALL on_sampled(jvmtiEnv *env, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                               jlong size) {
    (void) thread;
    if (!enabled || jni == NULL || sampled_method == NULL) {
        return;
    }
    if ((*jni)->ExceptionCheck(jni)) {
        return; /* the application's exception: never touch it */
    }
    if (class_class == NULL || klass == NULL || (*jni)->IsSameObject(jni, klass, class_class)) {
        return; /* a class being loaded (see class_class): no Java code now */
    }
    jvmtiFrameInfo local[STACK_FRAMES];
    jvmtiFrameInfo *frames = local;
    jint wanted = frames_wanted;
    jint count = 0;
    if (wanted < 1 || wanted > MAX_FRAMES) {
        wanted = MAX_FRAMES;
    }
    if (wanted > STACK_FRAMES) {
        frames = malloc(sizeof(jvmtiFrameInfo) * (size_t) wanted);
        if (frames == NULL) {
            return;
        }
    }
    if ((*env)->GetStackTrace(env, NULL, 0, wanted, frames, &count) != JVMTI_ERROR_NONE) {
        count = 0;
    }
    /*
     * First the hash only: a stack the Java side has seen costs no array. It answers NEED_FRAMES for a new stack,
     * which is then passed as a long[] of (jmethodID, bytecode index) pairs (jvmtiFrameInfo is exactly that).
     */
    jlong hash = hash_frames(frames, count);
    jint answer = (*jni)->CallStaticIntMethod(jni, sampler_class, sampled_method, object, klass, size, hash, count);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        answer = 0;
    }
    if (answer == NEED_FRAMES && count > 0) {
        jlongArray ids = (*jni)->NewLongArray(jni, 2 * count);
        if (ids == NULL) {
            (*jni)->ExceptionClear(jni); /* out of memory: drop this sample */
        } else {
            (*jni)->SetLongArrayRegion(jni, ids, 0, 2 * count, (const jlong *) frames);
            (*jni)->CallStaticVoidMethod(jni, sampler_class, frames_method, object, klass, size, hash, ids);
            (*jni)->DeleteLocalRef(jni, ids);
            if ((*jni)->ExceptionCheck(jni)) {
                (*jni)->ExceptionClear(jni);
            }
        }
    }
    if (frames != local) {
        free(frames);
    }
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *jvm, void *reserved) {
    (void) reserved;
    vm = jvm;
    jvmtiEnv *env = NULL;
    if ((*jvm)->GetEnv(jvm, (void **) &env, JVMTI_VERSION_11) != JNI_OK || env == NULL) {
        jvmti = NULL; /* start0 reports it */
    } else {
        jvmti = env;
    }
    return JNI_VERSION_1_8;
}

/* Returns 0, or a positive JVMTI error code, or -1 when no JVMTI 11 environment is available, -2 on a JNI error. */
JNIEXPORT jint JNICALL Java_java_lang_MemscopeHooks_jvmtiStart0(JNIEnv *jni, jclass cls, jint interval,
                                                                           jint frames) {
    if (jvmti == NULL) {
        return -1;
    }
    frames_wanted = frames < 1 ? 1 : frames > MAX_FRAMES ? MAX_FRAMES : frames;
    if (class_class == NULL) {
        jclass c = (*jni)->FindClass(jni, "java/lang/Class");
        jclass global = c == NULL ? NULL : (jclass) (*jni)->NewGlobalRef(jni, c);
        if (global == NULL) {
            if ((*jni)->ExceptionCheck(jni)) {
                (*jni)->ExceptionClear(jni);
            }
            return -2;
        }
        class_class = global;
    }
    if (sampled_method == NULL) {
        jclass global = (jclass) (*jni)->NewGlobalRef(jni, cls);
        if (global == NULL) {
            return -2;
        }
        jmethodID m = (*jni)->GetStaticMethodID(jni, cls, "jvmtiSampled", "(Ljava/lang/Object;Ljava/lang/Class;JJI)I");
        jmethodID f = m == NULL ? NULL
                : (*jni)->GetStaticMethodID(jni, cls, "jvmtiSampledFrames", "(Ljava/lang/Object;Ljava/lang/Class;JJ[J)V");
        if (m == NULL || f == NULL) {
            if ((*jni)->ExceptionCheck(jni)) {
                (*jni)->ExceptionClear(jni);
            }
            (*jni)->DeleteGlobalRef(jni, global);
            return -2;
        }
        sampler_class = global;
        frames_method = f;
        sampled_method = m;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_sampled_object_alloc_events = 1;
    jvmtiError err = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (err != JVMTI_ERROR_NONE) {
        return (jint) err;
    }
    /* For describe0 and lines0; without them frames have no file or line (not an error). */
    jvmtiCapabilities names;
    memset(&names, 0, sizeof(names));
    names.can_get_source_file_name = 1;
    names.can_get_line_numbers = 1;
    (void) (*jvmti)->AddCapabilities(jvmti, &names);
    err = (*jvmti)->SetHeapSamplingInterval(jvmti, interval);
    if (err != JVMTI_ERROR_NONE) {
        return (jint) err;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.SampledObjectAlloc = &on_sampled;
    err = (*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint) sizeof(callbacks));
    if (err != JVMTI_ERROR_NONE) {
        return (jint) err;
    }
    enabled = 1;
    err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    if (err != JVMTI_ERROR_NONE) {
        enabled = 0;
        return (jint) err;
    }
    return 0;
}

/* Disables the event; callbacks already running finish (the Java side ignores them once stopped). */
JNIEXPORT jint JNICALL Java_java_lang_MemscopeHooks_jvmtiStop0(JNIEnv *jni, jclass cls) {
    (void) jni;
    (void) cls;
    if (jvmti == NULL) {
        return -1;
    }
    enabled = 0;
    jvmtiError err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    if (err != JVMTI_ERROR_NONE) {
        return (jint) err;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_sampled_object_alloc_events = 1;
    err = (*jvmti)->RelinquishCapabilities(jvmti, &caps);
    return (jint) err;
}

/*
 * "Lpkg/Cls;<TAB>method<TAB>File.java" (the file empty when unknown) for a jmethodID taken by the callback, or null
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
        for (jint i = 0; i < count; i++) {
            jint pair[2];
            pair[0] = (jint) table[i].start_location;
            pair[1] = table[i].line_number;
            (*jni)->SetIntArrayRegion(jni, result, 2 * i, 2, pair);
        }
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *) table);
    return result;
}
