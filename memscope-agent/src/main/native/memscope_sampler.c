/*
 * libmemscope-sampler: the JVM's own heap sampler (JVMTI SampledObjectAlloc, JEP 331) for memscope's sample mode.
 *
 * The JVM samples each thread's allocations by bytes (a Poisson process whose mean is the interval set with
 * SetHeapSamplingInterval) from its allocation slow path: nothing is added to the application's own allocations.
 * Each sampled object is handed to io.memscope.agent.capture.JvmtiSampler.sampled(Object, Class, long) on the
 * allocating thread, which records it exactly like a sample of the bytecode hooks.
 *
 * Rules: never crash the JVM. Every JVMTI and JNI return code is checked; an application exception pending when
 * the event arrives is left alone (no upcall); an exception thrown by the upcall is cleared. Global references and
 * the method id are created once and never freed, so that a callback still running after stop() is safe.
 */
#include <jni.h>
#include <jvmti.h>
#include <string.h>

static JavaVM *vm;
static jvmtiEnv *jvmti;
/* Set once by start0 (under the Java class's lock), read by the callback. */
static jclass sampler_class;
static jmethodID sampled_method;
static volatile int enabled;

static void JNICALL on_sampled(jvmtiEnv *env, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                               jlong size) {
    (void) env;
    (void) thread;
    if (!enabled || jni == NULL || sampled_method == NULL) {
        return;
    }
    if ((*jni)->ExceptionCheck(jni)) {
        return; /* the application's exception: never touch it */
    }
    (*jni)->CallStaticVoidMethod(jni, sampler_class, sampled_method, object, klass, size);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
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
JNIEXPORT jint JNICALL Java_io_memscope_agent_capture_JvmtiSampler_start0(JNIEnv *jni, jclass cls, jint interval) {
    if (jvmti == NULL) {
        return -1;
    }
    if (sampled_method == NULL) {
        jclass global = (jclass) (*jni)->NewGlobalRef(jni, cls);
        if (global == NULL) {
            return -2;
        }
        jmethodID m = (*jni)->GetStaticMethodID(jni, cls, "sampled", "(Ljava/lang/Object;Ljava/lang/Class;J)V");
        if (m == NULL) {
            if ((*jni)->ExceptionCheck(jni)) {
                (*jni)->ExceptionClear(jni);
            }
            (*jni)->DeleteGlobalRef(jni, global);
            return -2;
        }
        sampler_class = global;
        sampled_method = m;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_sampled_object_alloc_events = 1;
    jvmtiError err = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (err != JVMTI_ERROR_NONE) {
        return (jint) err;
    }
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
JNIEXPORT jint JNICALL Java_io_memscope_agent_capture_JvmtiSampler_stop0(JNIEnv *jni, jclass cls) {
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
