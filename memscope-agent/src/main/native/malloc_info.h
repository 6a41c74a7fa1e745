/* glibc's own account of malloc'd memory, for the process memory sampler (docs/agent.md, "Process memory").
 *
 * mallinfo2() (glibc 2.33 and later) is looked up at run time: under an older glibc, musl, or an allocator that
 * replaces malloc without it, the figures are unknown (-1). An allocator preloaded in glibc's place (jemalloc,
 * tcmalloc) leaves glibc's arenas empty: all zero is reported as unknown too, never as "nothing malloc'd".
 * mallinfo2 takes each arena's lock in turn and walks its free bins: called from memscope's own thread only. */

#include <dlfcn.h>
#include <stddef.h>

/* glibc's struct mallinfo2 (malloc.h), declared here so the library builds against any glibc headers. */
struct ms_mallinfo2 {
    size_t arena;    /* non-mmapped space allocated from the system */
    size_t ordblks;  /* free chunks */
    size_t smblks;   /* free fastbin blocks */
    size_t hblks;    /* mmapped regions */
    size_t hblkhd;   /* space in mmapped regions */
    size_t usmblks;  /* always 0 */
    size_t fsmblks;  /* space in freed fastbin blocks */
    size_t uordblks; /* total allocated space */
    size_t fordblks; /* total free space */
    size_t keepcost; /* top-most, releasable space */
};

typedef struct ms_mallinfo2 (*ms_mallinfo2_fn)(void);

/* out[0]: bytes in use (uordblks + hblkhd: arena chunks and mmapped chunks), out[1]: free bytes glibc keeps in its
 * arenas (fordblks); -1 each when unknown. */
JNIEXPORT void JNICALL Java_java_lang_MemscopeHooks_processMallocInfo0(JNIEnv *jni, jclass cls, jlongArray out) {
    (void) cls;
    static ms_mallinfo2_fn fn = NULL;
    static int looked = 0;
    if (!looked) {
        fn = (ms_mallinfo2_fn) dlsym(RTLD_DEFAULT, "mallinfo2");
        looked = 1;
    }
    jlong v[2] = {-1, -1};
    if (fn != NULL) {
        struct ms_mallinfo2 mi = fn();
        if (mi.arena != 0 || mi.hblkhd != 0) {
            v[0] = (jlong) (mi.uordblks + mi.hblkhd);
            v[1] = (jlong) mi.fordblks;
        }
    }
    jsize n = (*jni)->GetArrayLength(jni, out);
    (*jni)->SetLongArrayRegion(jni, out, 0, n < 2 ? n : 2, v);
}
