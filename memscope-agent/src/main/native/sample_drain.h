/*
 * The drain thread's side of a capture (included once, by memscope_sampler.c, after sampler_lifecycle.h): drain0
 * moves queued records to Java and their references into the live table (live_table.h); commit0 says which samples
 * were kept; scan0 runs the mark pass after a collection and reports what it found; held0 answers which tracked
 * samples of a window are held now; collections0 the collections the JVM reported.
 */
#ifndef MEMSCOPE_SAMPLE_DRAIN_H
#define MEMSCOPE_SAMPLE_DRAIN_H

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
 * Under table_lock: ends a harvest that was left unfinished (its caller stopped between two scan0 calls, an exception
 * on the drain thread) by moving the entries not gone through yet down over the gap. The gap's slots hold stale
 * copies: entries already moved down, and entries whose references scan0 has deleted. Going through the table again
 * from 0 without closing it would visit those copies as entries and delete a reference twice (or one deleted
 * already): the JVM's handle storage would then hand one slot to two owners, and free a block still in use.
 */
static void live_close_gap(void) {
    if (live_read > live_write) {
        memmove(&live[live_write], &live[live_read], sizeof(live_entry) * (size_t) (live_count - live_read));
        live_count -= live_read - live_write;
    }
    live_read = live_write = live_count;
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
        if (!sample_record_valid(r)) {
            ring_give_up();
            break;
        }
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
 *
 * About 100 lines: one pass under table_lock, then the JNI work outside it; splitting it would spread that lock's
 * scope over several functions.
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
        live_close_gap();
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

#endif
