/*
 * The layouts a sample takes on its way to Java (included once, by memscope_sampler.c, after sample_ring.h).
 *
 * 1. In the ring (sample_ring.h): on_sampled, on the allocating thread, claims one record and publishes it by
 *    storing `length` last. Native byte order, 8-byte aligned; the frames follow only the first time a stack is
 *    queued (frames > 0), else the stack is named by its hash alone.
 *
 *     0                   4                   8
 *     +-------------------+-------------------+
 *     | length            | kind = SAMPLE (2) |  ring_header (length 0 while claimed, not yet published)
 *     +-------------------+-------------------+
 *   8 | object: weak global reference to the sampled object    |
 *     +-------------------------------------------------------+
 *  16 | thread: global reference to the Thread, its first      |
 *     |         sample of this capture; else NULL              |
 *     +-------------------------------------------------------+
 *  24 | size: bytes, as the JVM reported them                  |
 *     +-------------------------------------------------------+
 *  32 | time: CLOCK_MONOTONIC nanoseconds (System.nanoTime)    |
 *     +-------------------------------------------------------+
 *  40 | tid: the thread's Java id                              |
 *     +-------------------------------------------------------+
 *  48 | stack: 64-bit hash of the frames, never 0 (0: none)    |
 *     +-------------------+-------------------+
 *  56 | class_id          | gc_epoch          |  class_id: the classes table's slot + 1 (0: unknown);
 *     +-------------------+-------------------+  gc_epoch: collections started when last known alive
 *  64 | frames            | collected_by      |  frames: jvmtiFrameInfo entries following; collected_by: the
 *     +-------------------+-------------------+  collection that cleared it while queued (a mark pass), else 0
 *  72 | born              | reserved (0)      |  born: collections started when it was sampled
 *     +-------------------+-------------------+
 *  80 | frames x jvmtiFrameInfo, 16 bytes each: (jmethodID, bytecode index)                 ...
 *     +------------------------------------------------------------------------------------+
 *
 * 2. Handed to Java by drain0: RECORD_LONGS longs per record in the `records` array (read by
 *    SampleDrain.process), the frames of stacks queued for the first time as (jmethodID, bytecode index) long
 *    pairs in the `frames` array:
 *
 *     long  0        1        2        3        4        5             6                 7
 *     +--------+--------+--------+--------+--------+-------------+-----------------+-----------------+
 *     | index  | size   | time   | tid    | stack  | thread ref  | gc_epoch<<32    | frame_pos<<32   |
 *     |        |        |        |        |        | (jobject or | | class_id      | | frames        |
 *     |        |        |        |        |        |  0)         |                 |                 |
 *     +--------+--------+--------+--------+--------+-------------+-----------------+-----------------+
 *
 *    index: the sample's entry in the live table (live_table.h), -1 when the table is full (not tracked);
 *    thread ref: the record's `thread`, taken (and deleted) by thread0; frame_pos: where its frames start in
 *    `frames` (in longs), frames: how many (0 when the stack was sent before).
 */
#ifndef MEMSCOPE_SAMPLE_RECORD_H
#define MEMSCOPE_SAMPLE_RECORD_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "sample_ring.h"

/* The ring record kind of a sample (RING_RECORD_PADDING is 1). */
#define RECORD_SAMPLE 2

typedef struct {
    ring_header header;
    jweak object;
    jobject thread;
    jlong size;
    jlong time;
    jlong tid;
    jlong stack;
    uint32_t class_id;
    uint32_t gc_epoch;
    uint32_t frames;
    uint32_t collected_by;
    uint32_t born;
    uint32_t reserved;
} sample_record;

/* The drawing above, checked. */
_Static_assert(offsetof(sample_record, object) == 8, "sample_record layout");
_Static_assert(offsetof(sample_record, thread) == 16, "sample_record layout");
_Static_assert(offsetof(sample_record, size) == 24, "sample_record layout");
_Static_assert(offsetof(sample_record, time) == 32, "sample_record layout");
_Static_assert(offsetof(sample_record, tid) == 40, "sample_record layout");
_Static_assert(offsetof(sample_record, stack) == 48, "sample_record layout");
_Static_assert(offsetof(sample_record, class_id) == 56, "sample_record layout");
_Static_assert(offsetof(sample_record, gc_epoch) == 60, "sample_record layout");
_Static_assert(offsetof(sample_record, frames) == 64, "sample_record layout");
_Static_assert(offsetof(sample_record, collected_by) == 68, "sample_record layout");
_Static_assert(offsetof(sample_record, born) == 72, "sample_record layout");
_Static_assert(sizeof(sample_record) == 80, "sample_record layout: the frames start at 80");
_Static_assert(sizeof(sample_record) % 8 == 0, "records are 8-byte aligned");

/* Longs per record handed to Java by drain0 (SampleDrain.RECORD_LONGS), and where each is. */
#define RECORD_LONGS 8
#define RECORD_INDEX 0
#define RECORD_SIZE 1
#define RECORD_TIME 2
#define RECORD_TID 3
#define RECORD_STACK 4
#define RECORD_THREAD 5
#define RECORD_CLASS_EPOCH 6
#define RECORD_FRAMES 7

#endif
