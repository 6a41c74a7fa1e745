/*
 * The collections the JVM reports, and the samples whose collection is watched (included once, by
 * memscope_sampler.c, after its state).
 *
 * Collections: every collection the JVM reports through JVMTI (GarbageCollectionStart/Finish: the stop-the-world
 * pauses, including those of ZGC and Shenandoah), numbered from 1 in the order they start, with start and end on
 * the monotonic clock (System.nanoTime's on Linux).
 *
 * The live table: one entry per queued sample, from drain0 until its collection has been reported (scan0) or the
 * drain thread dropped it (commit0). Bounded by live_limit: a sample that does not fit is not tracked.
 *
 * Exact attribution. An entry records `checked`, the collection after which its object was last seen alive, and
 * `collected_by`, the collection after which it was first seen gone. A mark pass for collection k (every
 * collection up to k ended, none is running) looks at every entry not yet checked against k: gone means collected by
 * k, else checked = k. The drain thread runs a mark pass after each collection ends (scan0). When collection k+1
 * starts and the pass for k has not run yet (two collections back to back), on_gc_start runs it first, before that
 * collection touches a reference: so every sample is looked at between every two collections, and
 * collected_by == checked + 1 always, for the entries in the table and for the records still in the ring alike.
 * An entry also records `born`, the collections started when it was sampled: once checked > born it survived a
 * collection that started after it was allocated, and scan0 reports it a survivor (once). Whether that collection
 * looked at it is not known here (a young collection does not look at the old generation): scan0 is told when a
 * collection examined the whole heap, with the time before which it judged every object (its snapshot), and reports
 * each entry sampled before that time and still alive confirmed (once).
 *
 * A reference is looked at with a plain read of the JVM's weak handle (its slot holds the object, or null once the
 * collector cleared it), as async-profiler's live mode does: JNI's IsSameObject cannot be called from a collection
 * callback. start0 checks the handle layout it relies on (a weak handle is a slot address tagged with low bits) and
 * falls back to IsSameObject on the drain thread alone when it does not hold (attribution then exact only when the
 * drain thread runs between collections); every reference found gone is confirmed with IsSameObject before it is
 * reported, and a disagreement switches to that fallback for good.
 *
 * Locking: table_lock, a spin lock, guards the table, the ring's consumer side and marked_through. The drain thread
 * holds it only in plain C (no JNI or JVMTI call: the VM thread may be waiting for it at a safepoint); a collection
 * takes it in its start callback and releases it in its finish callback, so that no pass overlaps a collection.
 */

#define GC_LOG_SLOTS 4096
typedef struct {
    jlong start;
    jlong end;
} gc_entry;
static gc_entry gc_log[GC_LOG_SLOTS];
static volatile uint32_t gc_started_count;
static volatile uint32_t gc_finished_count;
/* The first collection of the current capture (collections0's default start). */
static uint32_t capture_first_collection;

#define ENTRY_UNCOMMITTED 0
#define ENTRY_TRACKED 1
#define ENTRY_DROPPED 2

typedef struct {
    jweak ref;
    jlong id;
    jlong size;
    jlong time;
    /* The allocating thread's Java id, and the stack's id on the Java side (commit0), for held0's queries. */
    jlong tid;
    jlong stack;
    int32_t site;
    uint32_t state;
    uint32_t checked;
    uint32_t collected_by;
    /* Collections started when it was sampled; a survivor once checked > born (alive after a later collection). */
    uint32_t born;
    /* What scan0 reported of it (each bit once): HELD_SURVIVOR, HELD_CONFIRMED. */
    uint32_t held;
} live_entry;

/* Survived a collection that started after it was sampled: not garbage then, as far as that collection looked. */
#define HELD_SURVIVOR 1u
/* Alive after a collection that examined the whole heap and judged it (sampled before that collection's snapshot):
 * reachable at that snapshot. */
#define HELD_CONFIRMED 2u

/* Valid entries: [0, live_write) and [live_read, live_count); the gap is a harvest in progress (scan0). */
static live_entry *live;
static uint32_t live_count;
static uint32_t live_write;
static uint32_t live_read;
static uint32_t live_capacity;
static uint32_t live_limit;
/* The last collection every entry and queued record has been checked against. */
static uint32_t marked_through;
/* Plain reads of weak handles are valid in this JVM (start0 checked). */
static volatile int raw_handles;
static volatile int64_t raw_disagreements;
static volatile int64_t marked_by_collection;

static volatile int table_lock;
/* Whether the running collection took table_lock in on_gc_start (VM thread only). */
static int collection_holds_lock;

static inline void lock_table(void) {
    for (int spins = 0; __atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE); spins++) {
        if (spins < 64) {
            __builtin_ia32_pause();
        } else {
            sched_yield();
        }
    }
}

/* @return whether the lock was taken within a short spin (the drain thread does not wait out a collection) */
static inline int try_lock_table(void) {
    for (int spins = 0; spins < 256; spins++) {
        if (!__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE)) {
            return 1;
        }
        __builtin_ia32_pause();
    }
    return 0;
}

static inline void unlock_table(void) {
    __atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
}

/*
 * Whether the object of a weak global reference is gone, read from the JVM's handle: the address of a slot, tagged
 * in its two low bits, that holds the object or null (generational ZGC's null may carry color bits in the low 16).
 */
static inline int referent_gone(jweak ref) {
    uintptr_t slot = (uintptr_t) ref & ~(uintptr_t) 3;
    uintptr_t value = __atomic_load_n((uintptr_t *) slot, __ATOMIC_RELAXED);
    return (value >> 16) == 0;
}

/* @return whether this JVM's weak handles look as referent_gone expects (a live object: tag 1, a real address) */
static int check_handle_layout(JNIEnv *jni, jobject live_object) {
    jweak w = new_weak(jni, live_object);
    if (w == NULL) {
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
        }
        return 0;
    }
    int ok = ((uintptr_t) w & 3) == 1 && ((uintptr_t) w & ~(uintptr_t) 3) != 0 && !referent_gone(w)
            && !(*jni)->IsSameObject(jni, w, NULL);
    delete_weak(jni, w);
    return ok;
}

/*
 * Under table_lock, with collection k the last one ended and none running: checks every entry and queued record
 * not yet checked against k. jni is the drain thread's environment, or NULL in a collection callback (then only plain
 * reads are possible, and raw_handles is set).
 */
static void mark(uint32_t k, JNIEnv *jni) {
    int raw = raw_handles;
    for (uint32_t i = 0; i < live_count; i++) {
        if (i == live_write && live_read > live_write) {
            i = live_read;
            if (i >= live_count) {
                break;
            }
        }
        live_entry *e = &live[i];
        if (e->state == ENTRY_DROPPED || e->collected_by != 0 || e->checked >= k) {
            continue;
        }
        int gone = raw ? referent_gone(e->ref) : jni != NULL && (*jni)->IsSameObject(jni, e->ref, NULL);
        if (gone) {
            e->collected_by = k;
        } else {
            e->checked = k;
        }
    }
    if (ring.buffer != NULL && raw) {
        /* Published records waiting in the ring, up to the first one still being written. */
        uint64_t position = ring.head;
        uint64_t tail = __atomic_load_n(&ring.tail, __ATOMIC_ACQUIRE);
        while (position < tail) {
            ring_header *h = (ring_header *) (ring.buffer + (position & ring.mask));
            int32_t length = __atomic_load_n(&h->length, __ATOMIC_ACQUIRE);
            if (length <= 0 || !ring_length_valid(&ring, position, length)) {
                break; /* not published yet; or overwritten, which the drain thread finds and reports */
            }
            if (h->kind == RECORD_SAMPLE && sample_record_valid((sample_record *) h)) {
                sample_record *r = (sample_record *) h;
                if (r->collected_by == 0 && r->gc_epoch < k) {
                    if (referent_gone(r->object)) {
                        r->collected_by = k;
                    } else {
                        r->gc_epoch = k;
                    }
                }
            }
            position += (uint64_t) length;
        }
    }
    marked_through = k;
}

/*
 * Depth of the JVM's GC markers: HotSpot nests them (a metadata-threshold collection posts GarbageCollectionStart for
 * its VM operation and again for the full collection it runs inside it, before either finish). Only the outermost
 * start and finish count: one pause, one collection, and table_lock taken once (a nested start spinning on the lock
 * its own pause holds would stop the JVM for good).
 */
static volatile int gc_marker_depth;

/*
 * On the VM thread, at the start of a collection's pause. The count goes up first: a sampling callback still running
 * (in native code, not stopped by the pause) that reads it then records that its object, held by its local
 * reference, survives this collection.
 */
static void JNICALL on_gc_start(jvmtiEnv *env) {
    (void) env;
    if (__atomic_fetch_add(&gc_marker_depth, 1, __ATOMIC_ACQ_REL) != 0) {
        return; /* nested inside a pause already started */
    }
    uint32_t k = __atomic_load_n(&gc_started_count, __ATOMIC_RELAXED) + 1;
    gc_entry *e = &gc_log[k & (GC_LOG_SLOTS - 1)];
    __atomic_store_n(&e->end, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&e->start, now_nanos(), __ATOMIC_RELAXED);
    __atomic_store_n(&gc_started_count, k, __ATOMIC_RELEASE);
    collection_holds_lock = raw_handles;
    if (collection_holds_lock) {
        lock_table();
        uint32_t previous = __atomic_load_n(&gc_finished_count, __ATOMIC_ACQUIRE);
        if (marked_through < previous && live != NULL) {
            mark(previous, NULL);
            __atomic_add_fetch(&marked_by_collection, 1, __ATOMIC_RELAXED);
        }
        /* held until on_gc_finish: no pass of the drain thread overlaps this collection */
    }
}

/* Only raw monitors, memory and environment-local storage may be used here (no JNI): plain C is fine. */
static void JNICALL on_gc_finish(jvmtiEnv *env) {
    (void) env;
    int depth = __atomic_sub_fetch(&gc_marker_depth, 1, __ATOMIC_ACQ_REL);
    if (depth > 0) {
        return; /* a nested marker ends: the pause goes on */
    }
    if (depth < 0) {
        /* a finish without its start (the events were enabled between the two): nothing to end */
        __atomic_store_n(&gc_marker_depth, 0, __ATOMIC_RELEASE);
        return;
    }
    uint32_t k = __atomic_load_n(&gc_started_count, __ATOMIC_ACQUIRE);
    __atomic_store_n(&gc_log[k & (GC_LOG_SLOTS - 1)].end, now_nanos(), __ATOMIC_RELAXED);
    __atomic_store_n(&gc_finished_count, k, __ATOMIC_RELEASE);
    if (collection_holds_lock) {
        collection_holds_lock = 0;
        unlock_table();
    }
    if (wake_ready) {
        sem_post(&wake);
    }
}
