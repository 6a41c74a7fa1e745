/*
 * libmemscope-malloc.so: samples the process's malloc calls by bytes, with their native and Java stacks, and tells
 * memscope's drain thread (MallocSampler) which sampled blocks were freed.
 *
 * How calls are seen. Every loaded library's import slots (GOT entries, R_X86_64_JUMP_SLOT and R_X86_64_GLOB_DAT)
 * for the allocator functions are overwritten with this library's hooks; RELRO pages are made writable for the
 * write and read-only again. Skipped: this library, memscope's other library, libc and ld.so (their own calls are
 * not imports), and libjvm unless asked (the JVM's mallocs are NMT's job, and its direct buffers, Unsafe and FFM
 * arena memory are tracked exactly by the agent's Java hooks). libjvm's dlopen import is hooked, so that every
 * library loaded later (JNI libraries come through libjvm's os::dll_load) is patched right after it is loaded. Slots
 * are never restored: a stopped capture leaves the hooks passing straight through.
 *
 * Sampling. Per thread, by bytes: a countdown drawn from an exponential distribution of mean interval; the
 * allocation that takes it to zero or below is sampled (so a block of s bytes is sampled with probability
 * 1 - exp(-s / interval)). Frees are not sampled: every free is looked up in a lock-free set of sampled live
 * addresses (malloc_table below), skipped while the set is empty.
 *
 * Stacks. Native part: the hook's return address (the function that called malloc) and a frame-pointer walk
 * bounded by the thread's stack, stopping at the first implausible frame. Java part: AsyncGetCallTrace, only for a
 * thread the JVM knows (GetEnv) and only returning jmethodIDs (the drain thread resolves them); it takes no lock and
 * makes no state transition. jmethodIDs are created ahead (GetClassMethods for every loaded class at start, and at
 * each ClassPrepare), since AsyncGetCallTrace cannot create them. A sample without Java frames keeps why (its
 * record's java count is then 0 or negative, JAVA_* below): AsyncGetCallTrace's own code (the thread had no Java
 * frame, or its stack could not be walked: a collection running, a frame it could not decode, ...) or "not a
 * thread the JVM knows"; each cause is counted (java_stack_causes, read by mallocCounters0).
 *
 * Never hurt the host: a thread-local guard passes any malloc made inside a hook (or by memscope's drain thread)
 * straight through; nothing on the malloc path takes a lock, waits or allocates; TLS is initial-exec (no
 * __tls_get_addr, which may itself call malloc). The only lock (patch_lock) is taken by start and the dlopen hook.
 *
 * Stacks by id. A sample's raw stack (native pcs, then (jmethodID, bci) pairs) is hashed and looked up in a
 * lock-free table of stacks already sent (stack_ids below). The first sample of a stack claims a slot and sends
 * the whole stack with the slot's id (ALLOC); once that record is in the ring the slot is marked ready, and every
 * later sample of the stack sends only its id (ALLOC_BY_ID): the drain resolves a stack once. A sample that finds
 * its stack claimed but not yet ready, or no slot within its probes, sends the whole stack with id 0 (the drain
 * then resolves it by its own cache). The live-address set keeps each sampled block's size and stack id, so that a
 * FREE carries them and the drain needs no map of live blocks (id 0: it looks the address up in its own map).
 *
 * Records (sample_ring.h), payload in int64 words:
 *
 *     ALLOC:       address | size | nanos | os tid | stack id | native count | java count | native pc ...
 *                  | (jmethodID, bci) ...
 *                  (java count <= 0: no Java frame follows, and the count is why: JAVA_NO_FRAMES, an
 *                  AsyncGetCallTrace error code -1 .. -10, or JAVA_NOT_A_JVM_THREAD)
 *     FREE:        address | nanos | os tid | size | stack id
 *     ALLOC_BY_ID: address | size | nanos | os tid | stack id
 *
 * A sample whose record does not fit in the ring is dropped whole: counted, and its address forgotten at once, so
 * that its free is never reported either.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <jni.h>
#include <jvmti.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sample_ring.h"

#define EXPORT __attribute__((visibility("default")))
#define HOOK __attribute__((visibility("default"), noinline))

#define MALLOC_RECORD_ALLOC 2
#define MALLOC_RECORD_FREE 3
#define MALLOC_RECORD_ALLOC_BY_ID 4
#define MAX_NATIVE_FRAMES 32
#define MAX_JAVA_FRAMES 128

/* ---- originals ---- */
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_dlopen)(const char *, int);
static void *(*real_dlsym)(void *, const char *);

/* ---- AsyncGetCallTrace ---- */
typedef struct {
    jint bci;
    jmethodID method;
} asgct_frame;

typedef struct {
    JNIEnv *env;
    jint count;
    asgct_frame *frames;
} asgct_trace;

static void (*asgct)(asgct_trace *, jint, void *);
static JavaVM *vm;

/*
 * Why a sample has no Java frame: AsyncGetCallTrace's num_frames when it is 0 or negative (HotSpot's forte.cpp names
 * them: 0 no Java frame, -1 no ClassLoad events enabled, -2 a collection running (or a method found invalid), -3 an
 * unknown frame outside Java, -4 a frame outside Java not walkable, -5 an unknown frame in Java, -6 a frame in Java
 * not walkable, -7 an unknown thread state, -8 the thread exiting, -9 in the deoptimization handler, -10 at a
 * safepoint), or JAVA_NOT_A_JVM_THREAD (GetEnv: a thread the JVM does not know, never asked). Counted per cause at
 * index -code.
 */
#define JAVA_NO_FRAMES 0
#define JAVA_ASGCT_LOWEST (-10)
#define JAVA_NOT_A_JVM_THREAD (-11)
#define JAVA_CAUSES 12
static volatile int64_t java_stack_causes[JAVA_CAUSES];
static jvmtiEnv *jvmti;

/* ---- state ---- */
static volatile int active;
static double interval = 512 * 1024;
static int native_frames_wanted = 16;
static int java_frames_wanted = 64;
static sample_ring ring;
static int ring_ready;

static volatile int64_t samples;
static volatile int64_t dropped;
static volatile int64_t untracked;
static volatile int64_t stale_frees;
static volatile int64_t frees_matched;
static volatile int64_t patched_libraries;
static volatile int64_t skipped_libraries;
static volatile int64_t patched_slots;
static volatile int64_t stacks_sent;
static volatile int64_t samples_by_id;
/* records that found the ring full (dropped or deferred) */
static volatile int64_t ring_full;

static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;
static int patch_jvm;
static uintptr_t own_base;

/* Per thread: initial-exec TLS (no allocation on first touch in any thread). */
#define TLS __thread __attribute__((tls_model("initial-exec")))
static TLS int guard;
static TLS int own_thread;
static TLS int64_t countdown;
static TLS int countdown_ready;
static TLS uint64_t random_state;
static TLS uintptr_t stack_low;
static TLS uintptr_t stack_high;
static TLS int32_t thread_id;
/* the self-test's forced samples always carry their whole stack */
static TLS int whole_stack;

static inline int64_t now_nanos(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int32_t os_tid(void) {
    if (thread_id == 0) {
        thread_id = (int32_t) syscall(SYS_gettid);
    }
    return thread_id;
}

/* An exponentially distributed distance of mean interval (xorshift64* per thread, seeded from tid and time). */
static int64_t next_distance(void) {
    if (random_state == 0) {
        random_state = ((uint64_t) os_tid() * 0x9E3779B97F4A7C15ULL) ^ (uint64_t) now_nanos() ^ 1;
    }
    uint64_t x = random_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    random_state = x;
    double u = (double) ((x * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
    double d = -log1p(-u) * interval;
    if (d < 1) {
        d = 1;
    }
    if (d > 4e18) {
        d = 4e18;
    }
    return (int64_t) d;
}

/* ---- the set of sampled live addresses ---- */
/*
 * Open addressing over TABLE_SLOTS words, linear probing bounded by TABLE_PROBES: 0 = empty, 1 = deleted, else an
 * address (its low bits: deferred records, below). Insert claims the first empty or deleted slot on the address's probe path with a compare-and-swap (after
 * checking the address is not already there: a block freed behind the import table's back, counted stale); delete
 * swaps the address for 1. An address is live in one block at a time and a block is inserted before its malloc
 * returns, so no two threads insert or delete the same address at once. Memory is mmap'ed: untouched pages cost
 * nothing.
 */
#define TABLE_SLOTS (1u << 20)
#define TABLE_PROBES 32
#define TABLE_DELETED ((uintptr_t) 1)
static uintptr_t *table;
/* per slot of table: the sampled block's size and stack id, written by its malloc before it returns */
static int64_t *table_size;
static uint32_t *table_stack;
static volatile int64_t table_live;

/*
 * Records that find the ring full are kept in their block's own slot, not dropped (a dropped free would leave a
 * freed block outstanding; a drop is what a record published late behind a full ring used to cost the others). The
 * slot's word is then the address with a low bit set (blocks are at least 8-byte aligned):
 *
 *     address | 0   live, its allocation sent
 *     address | 2   live, its allocation (a sample by stack id) deferred; freed so, the sample is dropped whole
 *     address | 1   freed, its free deferred: the slot stays taken until the drain sends it
 *     address | 3   both deferred (not written: the drain would send both)
 *
 * deferred_record holds when and on which thread, and `at`: the ring's tail when the ring refused the record (read
 * before malloc returns, or before the real free). Every record of the same block claimed earlier lies wholly before
 * `at` in the ring, every one claimed later starts at or after it: the drain sends a deferred record when its reading
 * position reaches `at`, which keeps each block's records in order. The hooks look up only `address | 0` and
 * `address | 2`: a freed block's slot is never matched again, and a new block at the same address takes another.
 * Only the drain clears a flag (compare-and-swap); a hook sets them, and a free gives up a deferred sample (2 to
 * deleted, by compare-and-swap: the drain may be sending it).
 */
#define LIVE_FREE_DEFERRED ((uintptr_t) 1)
#define LIVE_ALLOC_DEFERRED ((uintptr_t) 2)
#define LIVE_FLAGS ((uintptr_t) 3)
typedef struct {
    int64_t alloc_nanos;
    uint64_t alloc_at;
    int64_t free_nanos;
    uint64_t free_at;
    int32_t alloc_tid;
    int32_t free_tid;
} deferred_record;
static deferred_record *table_deferred;
/* slots with a deferred record */
static volatile int64_t deferred_pending;
static volatile int64_t frees_deferred;
static volatile int64_t allocs_deferred;

/* A slot holding a deferred record, by the ring position it waits for (its allocation's, else its free's). */
typedef struct {
    uint64_t at;
    uint64_t slot;
} deferred_candidate;
static deferred_candidate *candidates;
/* the ring's head when the drain last looked for deferred records (the drain alone moves it); whether it must look
 * again anyway */
static uint64_t deferred_seen_head = UINT64_MAX;
static int deferred_rescan;

static inline uint32_t table_hash(uintptr_t a) {
    uint64_t h = (uint64_t) a * 0x9E3779B97F4A7C15ULL;
    return (uint32_t) (h >> 44);
}

/* @return the slot now holding a (also when a was there already: counted stale), or -1 when the set is full along
 * a's probes */
static int64_t table_insert(uintptr_t a) {
    for (int attempt = 0; attempt < 4; attempt++) {
        uint32_t i = table_hash(a);
        int64_t free_at = -1;
        uintptr_t seen = 0;
        int again = 0;
        for (int p = 0; p < TABLE_PROBES && !again; p++) {
            uint32_t k = (i + p) & (TABLE_SLOTS - 1);
            uintptr_t v = __atomic_load_n(&table[k], __ATOMIC_ACQUIRE);
            if (v == (a | LIVE_ALLOC_DEFERRED)) {
                /* as below, and the old block's deferred sample is given up (counted dropped) */
                if (!__atomic_compare_exchange_n(&table[k], &v, a, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                    again = 1; /* the drain sent it just now: look again */
                    continue;
                }
                __atomic_fetch_sub(&deferred_pending, 1, __ATOMIC_RELAXED);
                __atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
                v = a;
            }
            if (v == a) {
                /* freed behind the hooks' back and reused: the old entry is taken over by the new block */
                __atomic_fetch_add(&stale_frees, 1, __ATOMIC_RELAXED);
                return k;
            }
            if (v <= TABLE_DELETED && free_at < 0) {
                free_at = k;
                seen = v;
            }
            if (v == 0) {
                break;
            }
        }
        if (again) {
            continue;
        }
        if (free_at < 0) {
            return -1;
        }
        if (__atomic_compare_exchange_n(&table[free_at], &seen, a, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            __atomic_fetch_add(&table_live, 1, __ATOMIC_RELAXED);
            return free_at;
        }
    }
    return -1;
}

/*
 * Removes a. Its size and stack id are read before the slot is given up: once it is, another thread's block may take
 * the slot and overwrite them.
 * @return whether a was there
 */
static int table_remove(uintptr_t a, int64_t *size, uint32_t *stack) {
    uint32_t i = table_hash(a);
    for (int p = 0; p < TABLE_PROBES; p++) {
        uint32_t k = (i + p) & (TABLE_SLOTS - 1);
        uintptr_t v = __atomic_load_n(&table[k], __ATOMIC_ACQUIRE);
        if (v == a) {
            *size = table_size[k];
            *stack = table_stack[k];
            if (__atomic_compare_exchange_n(&table[k], &v, TABLE_DELETED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_fetch_sub(&table_live, 1, __ATOMIC_RELAXED);
                return 1;
            }
            return 0;
        }
        if (v == 0) {
            return 0;
        }
    }
    return 0;
}

/* @return the slot of a's live block (its allocation sent or deferred), or -1 when a is not a sampled block */
static int64_t table_find(uintptr_t a) {
    uint32_t i = table_hash(a);
    for (int p = 0; p < TABLE_PROBES; p++) {
        uint32_t k = (i + p) & (TABLE_SLOTS - 1);
        uintptr_t v = __atomic_load_n(&table[k], __ATOMIC_ACQUIRE);
        if (v == a || v == (a | LIVE_ALLOC_DEFERRED)) {
            return k;
        }
        if (v == 0) {
            return -1;
        }
    }
    return -1;
}

/* ---- stacks sent already: raw-stack hash to id ---- */
/*
 * Open addressing over STACK_SLOTS hashes, linear probing bounded by STACK_PROBES; a slot's id is its index + 1.
 * stack_hash: 0 = empty, else the hash of the stack that claimed it (compare-and-swap from 0). stack_ready: set
 * (release) by the claimer once the stack's whole record is in the ring, so that a record naming the id is always
 * behind it in the ring's order. A claimer whose record does not fit empties the slot again. Reset by each start.
 */
#define STACK_SLOTS (1u << 16)
#define STACK_PROBES 16
static uint64_t *stack_hash;
static uint8_t *stack_ready;

static inline uint64_t stack_mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

/*
 * The id of a stack: > 0 when its whole record is in the ring already (send the id); 0 after claiming a slot, which
 * *claimed is then set to (send the whole stack, then stack_sent); 0 with *claimed -1 when no id can be had.
 */
static uint32_t stack_lookup(uint64_t h, int64_t *claimed) {
    *claimed = -1;
    uint32_t i = (uint32_t) (h >> 48);
    for (int p = 0; p < STACK_PROBES; p++) {
        uint32_t k = (i + p) & (STACK_SLOTS - 1);
        uint64_t v = __atomic_load_n(&stack_hash[k], __ATOMIC_ACQUIRE);
        if (v == h) {
            return __atomic_load_n(&stack_ready[k], __ATOMIC_ACQUIRE) ? k + 1 : 0;
        }
        if (v == 0) {
            uint64_t empty = 0;
            if (__atomic_compare_exchange_n(&stack_hash[k], &empty, h, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                *claimed = k;
                return 0;
            }
            if (empty == h) {
                return 0; /* another thread claimed it for this stack just now */
            }
        }
    }
    return 0;
}

/* ---- stacks ---- */
static void thread_stack_bounds(void) {
    pthread_attr_t attr;
    /* Under the guard: pthread_getattr_np may malloc (the main thread reads /proc/self/maps); that passes through. */
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr;
        size_t size;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            stack_low = (uintptr_t) addr;
            stack_high = (uintptr_t) addr + size;
        }
        pthread_attr_destroy(&attr);
    }
    if (stack_high == 0) {
        stack_low = 1;
        stack_high = 1; /* unknown: the walk stops at the first frame */
    }
}

/* The caller's pc, then the frame-pointer chain while it stays inside this thread's stack and goes up. */
static int native_walk(uintptr_t caller, uintptr_t *fp, int64_t *out, int max) {
    int n = 0;
    out[n++] = (int64_t) caller;
    if (stack_high == 0) {
        thread_stack_bounds();
    }
    /* fp is the hook's frame: fp[0] the caller's frame pointer, fp[1] the caller's pc (already taken). */
    uintptr_t *f = fp;
    while (n < max) {
        uintptr_t next = f[0];
        if (next <= (uintptr_t) f || next + 16 > stack_high || next < stack_low || (next & 7) != 0) {
            break;
        }
        f = (uintptr_t *) next;
        uintptr_t pc = f[1];
        if (pc < 4096) {
            break;
        }
        out[n++] = (int64_t) pc;
    }
    return n;
}

/*
 * A test hook: with MEMSCOPE_TEST_MALLOC_STALL=<thread name prefix> in the environment at start, the first sample of
 * a thread so named waits between claiming its record and publishing it until 2000 other records have found the ring
 * full (at most 30 s): a thread descheduled at the worst moment under load, made certain. Off otherwise (one load).
 */
static char stall_thread[16];
static volatile int stall_armed;
static volatile int64_t test_stalls;

static void test_stall(void) {
    char name[17] = {0};
    if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0 || strncmp(name, stall_thread, strlen(stall_thread)) != 0) {
        return;
    }
    int armed = 1;
    if (!__atomic_compare_exchange_n(&stall_armed, &armed, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return;
    }
    int64_t before = __atomic_load_n(&ring_full, __ATOMIC_ACQUIRE);
    struct timespec pause = {0, 1000000};
    for (int i = 0; i < 30000 && __atomic_load_n(&ring_full, __ATOMIC_ACQUIRE) - before < 2000; i++) {
        nanosleep(&pause, NULL);
    }
    __atomic_fetch_add(&test_stalls, 1, __ATOMIC_RELAXED);
}

static void record_alloc(void *p, size_t size, uintptr_t caller, uintptr_t *fp) {
    if (((uintptr_t) p & LIVE_FLAGS) != 0) {
        __atomic_fetch_add(&untracked, 1, __ATOMIC_RELAXED); /* not an allocator's alignment: no flag bits to use */
        return;
    }
    int64_t slot = table_insert((uintptr_t) p);
    if (slot < 0) {
        __atomic_fetch_add(&untracked, 1, __ATOMIC_RELAXED);
        return;
    }
    int64_t pcs[MAX_NATIVE_FRAMES];
    int nn = native_walk(caller, fp, pcs, native_frames_wanted);
    asgct_frame jf[MAX_JAVA_FRAMES];
    int nj = 0;
    int why = JAVA_NOT_A_JVM_THREAD;
    JNIEnv *env = NULL;
    if (asgct != NULL && vm != NULL && (*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_6) == JNI_OK && env != NULL) {
        asgct_trace t = {env, 0, jf};
        asgct(&t, java_frames_wanted, NULL);
        nj = t.count > 0 ? t.count : 0;
        why = t.count > 0 ? 0 : t.count < JAVA_ASGCT_LOWEST ? -7 : t.count; /* a code this file does not know: -7 */
    }
    uint64_t hash = 0x9E3779B97F4A7C15ULL ^ (uint64_t) nn;
    for (int i = 0; i < nn; i++) {
        hash = stack_mix(hash, (uint64_t) pcs[i]);
    }
    if (nj == 0) {
        hash = stack_mix(hash, (uint64_t) (int64_t) why); /* the same native frames, another cause: another stack */
    }
    for (int i = 0; i < nj; i++) {
        hash = stack_mix(hash, (uint64_t) (uintptr_t) jf[i].method);
        hash = stack_mix(hash, (uint64_t) (int64_t) (jf[i].bci < 0 ? -1 : jf[i].bci));
    }
    hash = hash == 0 ? 1 : hash;
    int64_t claimed = -1;
    int64_t unused_size;
    uint32_t unused_stack;
    uint32_t id = whole_stack ? 0 : stack_lookup(hash, &claimed);
    if (id != 0) {
        uint32_t length = RING_HEADER_BYTES + 8 * 5;
        ring_header *h = ring_claim(&ring, length);
        if (h != NULL && stall_armed) {
            test_stall();
        }
        if (h == NULL) {
            /* kept in the block's slot, sent by the drain at its turn (see deferred_record) */
            __atomic_fetch_add(&ring_full, 1, __ATOMIC_RELAXED);
            table_size[slot] = (int64_t) size;
            table_stack[slot] = id;
            deferred_record *d = &table_deferred[slot];
            d->alloc_nanos = now_nanos();
            d->alloc_tid = os_tid();
            d->alloc_at = __atomic_load_n(&ring.tail, __ATOMIC_ACQUIRE);
            __atomic_fetch_add(&deferred_pending, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&table[slot], (uintptr_t) p | LIVE_ALLOC_DEFERRED, __ATOMIC_RELEASE);
            __atomic_fetch_add(&allocs_deferred, 1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&samples, 1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&samples_by_id, 1, __ATOMIC_RELAXED);
            if (nj == 0) {
                __atomic_fetch_add(&java_stack_causes[-why], 1, __ATOMIC_RELAXED);
            }
            return;
        }
        table_size[slot] = (int64_t) size;
        table_stack[slot] = id;
        int64_t *w = (int64_t *) (h + 1);
        w[0] = (int64_t) (uintptr_t) p;
        w[1] = (int64_t) size;
        w[2] = now_nanos();
        w[3] = os_tid();
        w[4] = id;
        __atomic_fetch_add(&samples, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&samples_by_id, 1, __ATOMIC_RELAXED);
        if (nj == 0) {
            __atomic_fetch_add(&java_stack_causes[-why], 1, __ATOMIC_RELAXED);
        }
        ring_publish(h, MALLOC_RECORD_ALLOC_BY_ID, length);
        return;
    }
    uint32_t own_id = claimed >= 0 ? (uint32_t) claimed + 1 : 0;
    uint32_t length = RING_HEADER_BYTES + 8 * (7 + nn + 2 * nj);
    ring_header *h = ring_claim(&ring, length);
    if (h != NULL && stall_armed) {
        test_stall();
    }
    if (h == NULL) {
        __atomic_fetch_add(&ring_full, 1, __ATOMIC_RELAXED);
        if (claimed >= 0) {
            __atomic_store_n(&stack_hash[claimed], 0, __ATOMIC_RELEASE); /* the next sample of it sends it */
        }
        table_remove((uintptr_t) p, &unused_size, &unused_stack);
        __atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    table_size[slot] = (int64_t) size;
    table_stack[slot] = own_id;
    int64_t *w = (int64_t *) (h + 1);
    w[0] = (int64_t) (uintptr_t) p;
    w[1] = (int64_t) size;
    w[2] = now_nanos();
    w[3] = os_tid();
    w[4] = own_id;
    w[5] = nn;
    w[6] = nj > 0 ? nj : why;
    memcpy(w + 7, pcs, (size_t) nn * 8);
    int64_t *j = w + 7 + nn;
    for (int i = 0; i < nj; i++) {
        j[2 * i] = (int64_t) (uintptr_t) jf[i].method;
        j[2 * i + 1] = jf[i].bci;
    }
    __atomic_fetch_add(&samples, 1, __ATOMIC_RELAXED);
    if (nj == 0) {
        __atomic_fetch_add(&java_stack_causes[-why], 1, __ATOMIC_RELAXED);
    }
    ring_publish(h, MALLOC_RECORD_ALLOC, length);
    if (claimed >= 0) {
        __atomic_fetch_add(&stacks_sent, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&stack_ready[claimed], 1, __ATOMIC_RELEASE);
    }
}

/* The free of the sampled block in slot k, at address a: sent, or deferred when the ring is full (never dropped). */
static void record_free(uintptr_t a, int64_t k) {
    uint32_t length = RING_HEADER_BYTES + 8 * 5;
    __atomic_fetch_add(&frees_matched, 1, __ATOMIC_RELAXED);
    uintptr_t v = __atomic_load_n(&table[k], __ATOMIC_ACQUIRE);
    deferred_record *d = &table_deferred[k];
    for (;;) {
        if (v == a) {
            int64_t size = table_size[k];
            uint32_t id = table_stack[k];
            ring_header *h = ring_claim(&ring, length);
            if (h == NULL) {
                __atomic_fetch_add(&ring_full, 1, __ATOMIC_RELAXED);
                d->free_nanos = now_nanos();
                d->free_tid = os_tid();
                d->free_at = __atomic_load_n(&ring.tail, __ATOMIC_ACQUIRE);
                __atomic_fetch_add(&deferred_pending, 1, __ATOMIC_RELAXED);
                if (!__atomic_compare_exchange_n(&table[k], &v, a | LIVE_FREE_DEFERRED, 0, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE)) {
                    __atomic_fetch_sub(&deferred_pending, 1, __ATOMIC_RELAXED); /* taken over meanwhile (stale) */
                    return;
                }
                __atomic_fetch_add(&frees_deferred, 1, __ATOMIC_RELAXED);
                return;
            }
            if (__atomic_compare_exchange_n(&table[k], &v, TABLE_DELETED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_fetch_sub(&table_live, 1, __ATOMIC_RELAXED);
            }
            int64_t *w = (int64_t *) (h + 1);
            w[0] = (int64_t) a;
            w[1] = now_nanos();
            w[2] = os_tid();
            w[3] = size;
            w[4] = id;
            ring_publish(h, MALLOC_RECORD_FREE, length);
            return;
        }
        if (v != (a | LIVE_ALLOC_DEFERRED)) {
            return;
        }
        /* Its sample is not sent yet: the sample is dropped whole, its free with it, and the slot is free at once. (Kept
         * as both deferred, a block allocated and freed again and again at one address while the ring stays full would
         * fill that address's probe path with them, and the next samples there would find no slot.) */
        if (__atomic_compare_exchange_n(&table[k], &v, TABLE_DELETED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            __atomic_fetch_sub(&table_live, 1, __ATOMIC_RELAXED);
            __atomic_fetch_sub(&deferred_pending, 1, __ATOMIC_RELAXED);
            __atomic_fetch_sub(&allocs_deferred, 1, __ATOMIC_RELAXED);
            __atomic_fetch_sub(&samples, 1, __ATOMIC_RELAXED);
            __atomic_fetch_sub(&samples_by_id, 1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
            return;
        }
        /* the drain sent the sample just now: v is a again */
    }
}

/* After a successful allocation of size bytes at p: the sampling decision (inline fast path). */
static inline __attribute__((always_inline)) void allocated(void *p, size_t size, uintptr_t caller, uintptr_t *fp) {
    if (!active || guard || p == NULL) {
        return;
    }
    int64_t c = countdown - (int64_t) size;
    if (c > 0 && countdown_ready) {
        countdown = c;
        return;
    }
    guard = 1;
    if (!countdown_ready) {
        countdown_ready = 1;
        countdown = next_distance();
        c = countdown - (int64_t) size;
        if (c > 0) {
            countdown = c;
            guard = 0;
            return;
        }
    }
    countdown = next_distance();
    if (!own_thread) {
        record_alloc(p, size, caller, fp);
    }
    guard = 0;
}

/* Before a block is handed back: forget it if it was sampled (before the real free, so that its address cannot be
 * reused meanwhile by another thread's sampled block). */
static inline __attribute__((always_inline)) void freeing(void *p) {
    if (p == NULL || __atomic_load_n(&table_live, __ATOMIC_RELAXED) == 0 || !active) {
        return;
    }
    int g = guard;
    guard = 1;
    int64_t k = table_find((uintptr_t) p);
    if (k >= 0) {
        record_free((uintptr_t) p, k);
    }
    guard = g;
}

#define CALLER ((uintptr_t) __builtin_return_address(0))
#define FRAME ((uintptr_t *) __builtin_frame_address(0))

HOOK void *memscope_malloc(size_t size) {
    void *p = real_malloc(size);
    allocated(p, size, CALLER, FRAME);
    return p;
}

HOOK void *memscope_calloc(size_t n, size_t size) {
    void *p = real_calloc(n, size);
    allocated(p, n * size, CALLER, FRAME);
    return p;
}

HOOK void *memscope_realloc(void *old, size_t size) {
    if (old != NULL) {
        freeing(old);
    }
    void *p = real_realloc(old, size);
    if (p == NULL && size != 0 && old != NULL) {
        /* the old block is still allocated, though no longer tracked: its free is missed (stays outstanding) */
        return p;
    }
    allocated(p, size, CALLER, FRAME);
    return p;
}

HOOK void memscope_free(void *p) {
    freeing(p);
    real_free(p);
}

HOOK int memscope_posix_memalign(void **out, size_t alignment, size_t size) {
    int rc = real_posix_memalign(out, alignment, size);
    if (rc == 0) {
        allocated(*out, size, CALLER, FRAME);
    }
    return rc;
}

HOOK void *memscope_aligned_alloc(size_t alignment, size_t size) {
    void *p = real_aligned_alloc(alignment, size);
    allocated(p, size, CALLER, FRAME);
    return p;
}

HOOK void *memscope_memalign(size_t alignment, size_t size) {
    void *p = real_memalign(alignment, size);
    allocated(p, size, CALLER, FRAME);
    return p;
}

HOOK void *memscope_valloc(size_t size) {
    void *p = real_valloc(size);
    allocated(p, size, CALLER, FRAME);
    return p;
}

static int patch_all(void);

HOOK void *memscope_dlopen(const char *file, int mode) {
    void *h = real_dlopen(file, mode);
    if (h != NULL && active) {
        int g = guard;
        guard = 1;
        patch_all();
        guard = g;
    }
    return h;
}

/*
 * A dynamic lookup of an allocator function answers with its hook: the JVM's own lookups (FFM's default lookup, JNI
 * libraries' and JNA's symbol lookups through libjvm) then call the hook by address. Patched in libjvm only: a
 * lookup with RTLD_NEXT is relative to the caller, which would become this library (HotSpot makes none).
 */
HOOK void *memscope_dlsym(void *handle, const char *name) {
    void *r = real_dlsym(handle, name);
    if (r == NULL || !active) {
        return r;
    }
    if (r == (void *) real_malloc) return (void *) memscope_malloc;
    if (r == (void *) real_calloc) return (void *) memscope_calloc;
    if (r == (void *) real_realloc) return (void *) memscope_realloc;
    if (r == (void *) real_free) return (void *) memscope_free;
    if (r == (void *) real_posix_memalign) return (void *) memscope_posix_memalign;
    if (r == (void *) real_aligned_alloc) return (void *) memscope_aligned_alloc;
    if (r == (void *) real_memalign) return (void *) memscope_memalign;
    if (r == (void *) real_valloc) return (void *) memscope_valloc;
    return r;
}

/* ---- import patching ---- */
typedef struct {
    const char *name;
    void *hook;
    int allocator; /* 1: allocator, everywhere but libjvm; 0: dlopen, everywhere; 2: dlsym, libjvm only */
} hook_entry;

static hook_entry hooks[] = {
    {"malloc", (void *) memscope_malloc, 1},
    {"calloc", (void *) memscope_calloc, 1},
    {"realloc", (void *) memscope_realloc, 1},
    {"free", (void *) memscope_free, 1},
    {"posix_memalign", (void *) memscope_posix_memalign, 1},
    {"aligned_alloc", (void *) memscope_aligned_alloc, 1},
    {"memalign", (void *) memscope_memalign, 1},
    {"valloc", (void *) memscope_valloc, 1},
    {"dlopen", (void *) memscope_dlopen, 0},
    {"dlsym", (void *) memscope_dlsym, 2},
};
#define HOOK_COUNT ((int) (sizeof(hooks) / sizeof(hooks[0])))

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s == NULL ? path : s + 1;
}

/* 0: patch everything; 1: skip entirely; 2: dlopen only (libjvm) */
static int library_rule(struct dl_phdr_info *info) {
    if (info->dlpi_addr == own_base) {
        return 1;
    }
    const char *b = base_name(info->dlpi_name);
    if (strncmp(b, "libc.so", 7) == 0 || strncmp(b, "ld-linux", 8) == 0 || strncmp(b, "linux-vdso", 10) == 0
        || strncmp(b, "libmemscope", 11) == 0 || strncmp(b, "memscope-", 9) == 0) {
        return 1;
    }
    if (strcmp(b, "libjvm.so") == 0) {
        return patch_jvm ? 0 : 2;
    }
    return 0;
}

/*
 * The protection (PROT_* bits) of the mapping that holds addr, read from /proc/self/maps, or -1 when not found. With
 * open/read and a buffer on the stack: no allocation (it runs in the dlopen hook too).
 */
static int mapping_protection(uintptr_t addr) {
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    char buf[4096];
    size_t have = 0;
    int result = -1;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
        if (n <= 0) {
            break;
        }
        have += (size_t) n;
        char *line = buf;
        char *nl;
        while (result < 0 && (nl = memchr(line, '\n', have - (size_t) (line - buf))) != NULL) {
            *nl = 0;
            char *p;
            uintptr_t lo = (uintptr_t) strtoull(line, &p, 16);
            if (*p == '-') {
                uintptr_t hi = (uintptr_t) strtoull(p + 1, &p, 16);
                if (*p == ' ' && addr >= lo && addr < hi && nl - p >= 4) {
                    result = (p[1] == 'r' ? PROT_READ : 0) | (p[2] == 'w' ? PROT_WRITE : 0)
                            | (p[3] == 'x' ? PROT_EXEC : 0);
                }
            }
            line = nl + 1;
        }
        if (result >= 0) {
            break;
        }
        size_t rest = have - (size_t) (line - buf);
        memmove(buf, line, rest);
        have = rest == sizeof(buf) - 1 ? 0 : rest; /* a line longer than the buffer: not one of ours */
    }
    close(fd);
    return result;
}

/*
 * Writes an import slot. A slot in the RELRO pages (read-only once ld.so relocated them) is written with its page
 * made writable for the write, and the page then gets back the protection it had: another tool that patches imports
 * too (async-profiler hooks pthread_setspecific in libjvm's) may have left it writable and write it again later
 * (async-profiler restores its slot at exit); making it read-only would crash that write.
 */
typedef struct {
    uintptr_t page; /* the last RELRO page looked up in this library, 0 none */
    int protection;
} page_seen;

static int write_slot(void **slot, void *value, uintptr_t relro_start, uintptr_t relro_end, page_seen *seen) {
    if (*slot == value) {
        return 0;
    }
    uintptr_t a = (uintptr_t) slot;
    if (a >= relro_start && a < relro_end) {
        uintptr_t page = a & ~(uintptr_t) 4095;
        if (seen->page != page) {
            int found = mapping_protection(page);
            seen->page = page;
            seen->protection = found < 0 ? PROT_READ : found;
        }
        int was = seen->protection;
        if (was & PROT_WRITE) {
            __atomic_store_n(slot, value, __ATOMIC_RELEASE);
            return 1;
        }
        if (mprotect((void *) page, 4096, was | PROT_WRITE) != 0) {
            return 0;
        }
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        mprotect((void *) page, 4096, was);
        return 1;
    }
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    return 1;
}

static int patch_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void) size;
    (void) data;
    int rule = library_rule(info);
    if (rule == 1) {
        __atomic_fetch_add(&skipped_libraries, 1, __ATOMIC_RELAXED);
        return 0;
    }
    uintptr_t base = info->dlpi_addr;
    ElfW(Dyn) *dyn = NULL;
    uintptr_t relro_start = 0, relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC) {
            dyn = (ElfW(Dyn) *) (base + ph->p_vaddr);
        } else if (ph->p_type == PT_GNU_RELRO) {
            /* the pages ld.so made read-only: its end rounded down (a last partial page shares .data, writable) */
            relro_start = base + ph->p_vaddr;
            relro_end = (relro_start + ph->p_memsz) & ~(uintptr_t) 4095;
            relro_start &= ~(uintptr_t) 4095;
        }
    }
    if (dyn == NULL) {
        return 0;
    }
    ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t jmprel_size = 0, rela_size = 0;
    for (ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        uintptr_t v = d->d_un.d_ptr;
        switch (d->d_tag) {
            case DT_SYMTAB: symtab = (ElfW(Sym) *) (v < base ? base + v : v); break;
            case DT_STRTAB: strtab = (const char *) (v < base ? base + v : v); break;
            case DT_JMPREL: jmprel = (ElfW(Rela) *) (v < base ? base + v : v); break;
            case DT_PLTRELSZ: jmprel_size = d->d_un.d_val; break;
            case DT_RELA: rela = (ElfW(Rela) *) (v < base ? base + v : v); break;
            case DT_RELASZ: rela_size = d->d_un.d_val; break;
            default: break;
        }
    }
    if (symtab == NULL || strtab == NULL) {
        return 0;
    }
    int changed = 0;
    page_seen seen = {0, 0};
    for (int pass = 0; pass < 2; pass++) {
        ElfW(Rela) *r = pass == 0 ? jmprel : rela;
        size_t count = (pass == 0 ? jmprel_size : rela_size) / sizeof(ElfW(Rela));
        if (r == NULL) {
            continue;
        }
        for (size_t i = 0; i < count; i++) {
            uint32_t type = ELF64_R_TYPE(r[i].r_info);
            if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) {
                continue;
            }
            uint32_t s = ELF64_R_SYM(r[i].r_info);
            if (s == 0) {
                continue;
            }
            const char *name = strtab + symtab[s].st_name;
            for (int k = 0; k < HOOK_COUNT; k++) {
                int wanted = hooks[k].allocator == 0 || (hooks[k].allocator == 1 && rule == 0)
                             || (hooks[k].allocator == 2 && rule == 2);
                if (wanted && strcmp(name, hooks[k].name) == 0) {
                    if (write_slot((void **) (base + r[i].r_offset), hooks[k].hook, relro_start, relro_end, &seen)) {
                        changed++;
                    }
                    break;
                }
            }
        }
    }
    if (changed > 0) {
        __atomic_fetch_add(&patched_slots, changed, __ATOMIC_RELAXED);
        if (rule == 0) {
            __atomic_fetch_add(&patched_libraries, 1, __ATOMIC_RELAXED);
        }
    }
    return 0;
}

static int patch_all(void) {
    pthread_mutex_lock(&patch_lock);
    int64_t skipped_before = skipped_libraries;
    dl_iterate_phdr(patch_library, NULL);
    /* skipped libraries are counted once per pass: keep the last pass's count */
    __atomic_store_n(&skipped_libraries, skipped_libraries - skipped_before, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&patch_lock);
    return 0;
}

/* ---- jmethodIDs ahead of AsyncGetCallTrace ---- */
static void create_method_ids(jclass klass) {
    jint count = 0;
    jmethodID *methods = NULL;
    if ((*jvmti)->GetClassMethods(jvmti, klass, &count, &methods) == JVMTI_ERROR_NONE && methods != NULL) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *) methods);
    }
}

static void JNICALL on_class_load(jvmtiEnv *env, JNIEnv *jni, jthread thread, jclass klass) {
    (void) env;
    (void) jni;
    (void) thread;
    (void) klass;
}

static void JNICALL on_class_prepare(jvmtiEnv *env, JNIEnv *jni, jthread thread, jclass klass) {
    (void) env;
    (void) jni;
    (void) thread;
    create_method_ids(klass);
}

EXPORT jint JNICALL JNI_OnLoad(JavaVM *jvm, void *reserved) {
    (void) reserved;
    vm = jvm;
    return JNI_VERSION_1_6;
}

/* ---- entry points on java.lang.MemscopeHooks ---- */

/*
 * Resolves the originals and AsyncGetCallTrace, creates jmethodIDs, and patches every loaded library.
 * @return 0, or a negative code: -1 an original or AsyncGetCallTrace is missing, -2 no JVMTI, -3 no memory
 */
EXPORT jint JNICALL Java_java_lang_MemscopeHooks_mallocStart0(JNIEnv *jni, jclass cls, jlong intervalBytes,
                                                               jint nativeFrames, jint javaFrames, jlong ringBytes,
                                                               jboolean jvm) {
    (void) cls;
    guard = 1;
    interval = intervalBytes > 0 ? (double) intervalBytes : 512 * 1024;
    native_frames_wanted = nativeFrames < 1 ? 1 : nativeFrames > MAX_NATIVE_FRAMES ? MAX_NATIVE_FRAMES : nativeFrames;
    java_frames_wanted = javaFrames < 0 ? 0 : javaFrames > MAX_JAVA_FRAMES ? MAX_JAVA_FRAMES : javaFrames;
    patch_jvm = jvm;
    if (real_malloc == NULL) {
        real_malloc = dlsym(RTLD_DEFAULT, "malloc");
        real_calloc = dlsym(RTLD_DEFAULT, "calloc");
        real_realloc = dlsym(RTLD_DEFAULT, "realloc");
        real_free = dlsym(RTLD_DEFAULT, "free");
        real_posix_memalign = dlsym(RTLD_DEFAULT, "posix_memalign");
        real_aligned_alloc = dlsym(RTLD_DEFAULT, "aligned_alloc");
        real_memalign = dlsym(RTLD_DEFAULT, "memalign");
        real_valloc = dlsym(RTLD_DEFAULT, "valloc");
        real_dlopen = dlsym(RTLD_DEFAULT, "dlopen");
        real_dlsym = dlsym(RTLD_DEFAULT, "dlsym");
    }
    if (real_malloc == NULL || real_calloc == NULL || real_realloc == NULL || real_free == NULL
        || real_posix_memalign == NULL || real_aligned_alloc == NULL || real_memalign == NULL || real_valloc == NULL
        || real_dlopen == NULL || real_dlsym == NULL) {
        guard = 0;
        return -1;
    }
    Dl_info self;
    if (dladdr((void *) memscope_malloc, &self) != 0) {
        own_base = (uintptr_t) self.dli_fbase;
    }
    if (asgct == NULL) {
        Dl_info jvm_info;
        if (dladdr((void *) (*jni)->GetVersion, &jvm_info) != 0 && jvm_info.dli_fname != NULL) {
            void *h = real_dlopen(jvm_info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
            if (h != NULL) {
                asgct = (void (*)(asgct_trace *, jint, void *)) dlsym(h, "AsyncGetCallTrace");
                dlclose(h);
            }
        }
        if (asgct == NULL) {
            asgct = (void (*)(asgct_trace *, jint, void *)) dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
        }
    }
    if (asgct == NULL) {
        guard = 0;
        return -1;
    }
    if (jvmti == NULL) {
        if ((*vm)->GetEnv(vm, (void **) &jvmti, JVMTI_VERSION_1_2) != JNI_OK || jvmti == NULL) {
            guard = 0;
            return -2;
        }
        jvmtiEventCallbacks cb;
        memset(&cb, 0, sizeof(cb));
        cb.ClassLoad = on_class_load;
        cb.ClassPrepare = on_class_prepare;
        (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb));
    }
    /* AsyncGetCallTrace answers only while some environment wants ClassLoad events (JDK 17's forte.cpp). */
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
    jint count = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &count, &classes) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count; i++) {
            create_method_ids(classes[i]);
            (*jni)->DeleteLocalRef(jni, classes[i]);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *) classes);
    }
    /* The live-address set with its sizes and stack ids, and the stacks sent, in one mapping. */
    size_t table_bytes = TABLE_SLOTS * (sizeof(uintptr_t) + sizeof(int64_t) + sizeof(uint32_t)
                                        + sizeof(deferred_record) + sizeof(deferred_candidate))
                         + STACK_SLOTS * (sizeof(uint64_t) + sizeof(uint8_t));
    if (table != NULL) {
        /* An earlier capture's blocks still live and stacks sent are forgotten (its drain is over): the pages read
         * as zeros again. */
        madvise(table, table_bytes, MADV_DONTNEED);
        table_live = 0;
        deferred_pending = 0;
        deferred_rescan = 0;
        deferred_seen_head = UINT64_MAX;
    } else {
        void *t = mmap(NULL, table_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (t == MAP_FAILED) {
            guard = 0;
            return -3;
        }
        uint8_t *b = t; /* each part's size is a multiple of 8: every part stays aligned */
        table = (uintptr_t *) b;
        b += TABLE_SLOTS * sizeof(uintptr_t);
        table_size = (int64_t *) b;
        b += TABLE_SLOTS * sizeof(int64_t);
        stack_hash = (uint64_t *) b;
        b += STACK_SLOTS * sizeof(uint64_t);
        table_deferred = (deferred_record *) b;
        b += TABLE_SLOTS * sizeof(deferred_record);
        candidates = (deferred_candidate *) b;
        b += TABLE_SLOTS * sizeof(deferred_candidate);
        table_stack = (uint32_t *) b;
        b += TABLE_SLOTS * sizeof(uint32_t);
        stack_ready = b;
    }
    if (!ring_ready) {
        uint64_t cap = 1u << 20;
        while (cap < (uint64_t) ringBytes && cap < (1ull << 30)) {
            cap <<= 1;
        }
        if (ring_init(&ring, cap) != 0) {
            guard = 0;
            return -3;
        }
        ring_ready = 1;
    }
    samples = dropped = untracked = stale_frees = frees_matched = stacks_sent = samples_by_id = 0; /* per capture */
    ring_full = test_stalls = frees_deferred = allocs_deferred = 0;
    const char *stall = getenv("MEMSCOPE_TEST_MALLOC_STALL");
    if (stall != NULL && stall[0] != 0) {
        strncpy(stall_thread, stall, sizeof(stall_thread) - 1);
        stall_armed = 1;
    }
    for (int i = 0; i < JAVA_CAUSES; i++) {
        java_stack_causes[i] = 0;
    }
    __atomic_store_n(&active, 1, __ATOMIC_RELEASE);
    patch_all();
    guard = 0;
    return 0;
}

/* Hooks pass through from now on (slots stay patched: another thread may be inside a hook). */
EXPORT void JNICALL Java_java_lang_MemscopeHooks_mallocStop0(JNIEnv *jni, jclass cls) {
    (void) jni;
    (void) cls;
    __atomic_store_n(&active, 0, __ATOMIC_RELEASE);
    if (jvmti != NULL) {
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
    }
}

/* The calling thread's mallocs are memscope's own: never sampled. @return its OS thread id */
EXPORT jlong JNICALL Java_java_lang_MemscopeHooks_mallocOwnThread0(JNIEnv *jni, jclass cls) {
    (void) jni;
    (void) cls;
    own_thread = 1;
    return os_tid();
}

/* The calling thread's next allocation is sampled (the self-test). @return its OS thread id */
EXPORT jlong JNICALL Java_java_lang_MemscopeHooks_mallocForceSample0(JNIEnv *jni, jclass cls) {
    (void) jni;
    (void) cls;
    countdown_ready = 1;
    countdown = 0;
    whole_stack = 1;
    return os_tid();
}

/* ---- the drain: the ring's records, and the deferred ones at their turn ---- */

static void candidate_sift(deferred_candidate *c, uint64_t root, uint64_t n) {
    for (;;) {
        uint64_t child = 2 * root + 1;
        if (child >= n) {
            return;
        }
        if (child + 1 < n && c[child + 1].at > c[child].at) {
            child++;
        }
        if (c[root].at >= c[child].at) {
            return;
        }
        deferred_candidate t = c[root];
        c[root] = c[child];
        c[child] = t;
        root = child;
    }
}

/* The slots with a deferred record, by position (a heap sort: no allocation). @return how many */
static uint64_t collect_deferred(void) {
    uint64_t n = 0;
    for (uint64_t k = 0; k < TABLE_SLOTS; k++) {
        uintptr_t v = __atomic_load_n(&table[k], __ATOMIC_ACQUIRE);
        if (v <= TABLE_DELETED || (v & LIVE_FLAGS) == 0) {
            continue;
        }
        candidates[n].at = (v & LIVE_ALLOC_DEFERRED) ? table_deferred[k].alloc_at : table_deferred[k].free_at;
        candidates[n].slot = k;
        n++;
    }
    for (uint64_t i = n / 2; i-- > 0;) {
        candidate_sift(candidates, i, n);
    }
    for (uint64_t end = n; end-- > 1;) {
        deferred_candidate t = candidates[0];
        candidates[0] = candidates[end];
        candidates[end] = t;
        candidate_sift(candidates, 0, end);
    }
    return n;
}

/*
 * Writes slot k's deferred records that are due at ring position `at` into o (room longs): an allocation (as
 * ALLOC_BY_ID) and/or a free (as FREE). `last`: the capture is over and the ring cannot be read further (a record
 * claimed and never published): frees are written whatever their position (a free whose allocation was never read
 * is an unmatched free, harmless; left unsent it would be a freed block outstanding).
 * @return longs written, or -1 when o has no room
 */
static jint send_deferred(uint64_t k, uint64_t at, int last, jlong *o, jint room) {
    if (room < 12) {
        return -1;
    }
    uintptr_t v = __atomic_load_n(&table[k], __ATOMIC_ACQUIRE);
    for (;;) {
        if (v <= TABLE_DELETED || (v & LIVE_FLAGS) == 0) {
            return 0;
        }
        uintptr_t a = v & ~LIVE_FLAGS;
        deferred_record d = table_deferred[k];
        int64_t size = table_size[k];
        uint32_t id = table_stack[k];
        int alloc = (v & LIVE_ALLOC_DEFERRED) != 0;
        int freed = (v & LIVE_FREE_DEFERRED) != 0;
        if (alloc && d.alloc_at > at) {
            return 0;
        }
        int free_now = freed && (last || d.free_at <= at);
        if (!alloc && !free_now) {
            return 0;
        }
        uintptr_t next = free_now ? TABLE_DELETED : freed ? (a | LIVE_FREE_DEFERRED) : a;
        if (!__atomic_compare_exchange_n(&table[k], &v, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            continue; /* a hook deferred the block's free just now: v is reloaded */
        }
        jint n = 0;
        if (alloc) {
            o[n++] = MALLOC_RECORD_ALLOC_BY_ID;
            o[n++] = (jlong) a;
            o[n++] = size;
            o[n++] = d.alloc_nanos;
            o[n++] = d.alloc_tid;
            o[n++] = id;
        }
        if (free_now) {
            o[n++] = MALLOC_RECORD_FREE;
            o[n++] = (jlong) a;
            o[n++] = d.free_nanos;
            o[n++] = d.free_tid;
            o[n++] = size;
            o[n++] = id;
            __atomic_fetch_sub(&table_live, 1, __ATOMIC_RELAXED);
        }
        if (next == TABLE_DELETED || next == a) {
            __atomic_fetch_sub(&deferred_pending, 1, __ATOMIC_RELAXED);
        } else {
            deferred_rescan = 1; /* its free is due later */
        }
        return n;
    }
}

/*
 * Copies whole records into out: kind, then the record's words (see the top of this file), in the ring's order, each
 * deferred record at its turn. One batch per call: the array is pinned once (no JNI call per record), records are
 * copied until the next one does not fit.
 * @return the number of longs written
 */
static jint drain(JNIEnv *jni, jlongArray out, int last) {
    if (!ring_ready) {
        return 0;
    }
    int deferred = __atomic_load_n(&deferred_pending, __ATOMIC_ACQUIRE) > 0;
    if (ring_peek(&ring) == NULL && !deferred) {
        return 0;
    }
    uint64_t due = 0;
    uint64_t next = 0;
    /* A deferred record falls due when the head passes its position (its position is past the head when it is
     * deferred: the ring was full): look for them when the head has moved since the last look. Before the array is
     * pinned: the look reads the whole table (milliseconds), and a pinned array holds the garbage collector off. */
    if (deferred && (deferred_rescan || last || ring.head != deferred_seen_head)) {
        deferred_rescan = 0;
        deferred_seen_head = ring.head;
        due = collect_deferred();
    }
    jint capacity = (*jni)->GetArrayLength(jni, out);
    jlong *o = (*jni)->GetPrimitiveArrayCritical(jni, out, NULL);
    if (o == NULL) {
        deferred_rescan = due > 0;
        return 0;
    }
    jint n = 0;
    ring_header *h;
    for (;;) {
        h = ring_peek(&ring);
        uint64_t at = ring.head;
        int stuck = h == NULL && last;
        while (next < due && (candidates[next].at <= at || stuck)) {
            jint w = send_deferred(candidates[next].slot, at, stuck, o + n, capacity - n);
            if (w < 0) {
                deferred_rescan = 1;
                goto full;
            }
            n += w;
            next++;
        }
        if (h == NULL) {
            break;
        }
        jint words = (h->length - RING_HEADER_BYTES) / 8;
        if (n + 1 + words > capacity) {
            break;
        }
        o[n] = h->kind;
        memcpy(o + n + 1, h + 1, (size_t) words * 8);
        n += 1 + words;
        ring_consume(&ring, h);
    }
full:
    (*jni)->ReleasePrimitiveArrayCritical(jni, out, o, 0);
    return n;
}

EXPORT jint JNICALL Java_java_lang_MemscopeHooks_mallocDrain0(JNIEnv *jni, jclass cls, jlongArray out) {
    (void) cls;
    return drain(jni, out, 0);
}

/*
 * The drain's last calls, after mallocStop0 and once mallocDrain0 finds nothing: as mallocDrain0, and a deferred free
 * waiting behind a record that was claimed and never published (its thread held for good) is sent all the same.
 */
EXPORT jint JNICALL Java_java_lang_MemscopeHooks_mallocDrainLast0(JNIEnv *jni, jclass cls, jlongArray out) {
    (void) cls;
    return drain(jni, out, 1);
}

/* samples, dropped, untracked, staleFrees, patchedLibraries, skippedLibraries, patchedSlots, freesMatched, live,
 * stacksSent, samplesById, ringFull, testStalls, freesDeferred, allocsDeferred, deferredPending, ringUnreadBytes,
 * then the samples without Java frames by cause (JAVA_CAUSES of them, index -code: no Java frame, AsyncGetCallTrace's
 * errors -1 .. -10, not a JVM thread) */
#define MALLOC_COUNTERS (17 + JAVA_CAUSES)
EXPORT void JNICALL Java_java_lang_MemscopeHooks_mallocCounters0(JNIEnv *jni, jclass cls, jlongArray out) {
    (void) cls;
    jlong c[MALLOC_COUNTERS] = {samples, dropped, untracked, stale_frees, patched_libraries, skipped_libraries,
                                patched_slots, frees_matched, table_live, stacks_sent, samples_by_id, ring_full,
                                test_stalls, frees_deferred, allocs_deferred, deferred_pending,
                                ring_ready ? (jlong) ring_used(&ring) : 0};
    for (int i = 0; i < JAVA_CAUSES; i++) {
        c[17 + i] = __atomic_load_n(&java_stack_causes[i], __ATOMIC_RELAXED);
    }
    jint n = (*jni)->GetArrayLength(jni, out);
    (*jni)->SetLongArrayRegion(jni, out, 0, n < MALLOC_COUNTERS ? n : MALLOC_COUNTERS, c);
}

/*
 * A native pc's name: "library!function" when the pc is inside a dynamic symbol's extent, else "library+0xOFF"
 * (offset from the library's load base); null when no library holds it.
 */
EXPORT jstring JNICALL Java_java_lang_MemscopeHooks_mallocSymbol0(JNIEnv *jni, jclass cls, jlong pc) {
    (void) cls;
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (dladdr1((void *) (uintptr_t) pc, &info, (void **) &sym, RTLD_DL_SYMENT) == 0 || info.dli_fname == NULL) {
        return NULL;
    }
    const char *lib = base_name(info.dli_fname);
    char text[512];
    uintptr_t a = (uintptr_t) pc;
    if (info.dli_sname != NULL && sym != NULL && info.dli_saddr != NULL && a >= (uintptr_t) info.dli_saddr
        && (sym->st_size == 0 ? a == (uintptr_t) info.dli_saddr : a < (uintptr_t) info.dli_saddr + sym->st_size)) {
        snprintf(text, sizeof(text), "%s!%s", lib, info.dli_sname);
    } else {
        snprintf(text, sizeof(text), "%s+0x%lx", lib, (unsigned long) (a - (uintptr_t) info.dli_fbase));
    }
    return (*jni)->NewStringUTF(jni, text);
}
