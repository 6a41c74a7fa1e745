/*
 * A bounded ring of variable-length records with many producers and one consumer, in memory the library owns.
 *
 * Producers (the JVM's allocating threads, inside the JVMTI callback) claim space with one compare-and-swap on the
 * tail, write their record, and publish it by storing its length last (release). The consumer (memscope's drain
 * thread) reads records in claim order up to the first one not yet published, zeroes what it read and then
 * advances the head (release), so that a producer that sees the new head also sees zeroed memory. A producer never
 * waits: when the record does not fit, it counts it as dropped and returns.
 *
 *     0        4        8
 *     +--------+--------+---------------------------------------------+
 *     | length |  kind  |  payload (length - 8 bytes, 8-byte aligned)  |
 *     +--------+--------+---------------------------------------------+
 *
 * length is 0 while a record is claimed but not yet published. A record never wraps: when it does not fit before the
 * end of the buffer, the producer claims the rest of the buffer as a PADDING record and its record starts at 0.
 *
 * Capacity is a power of two. The memory comes from calloc, so pages not yet reached by the ring are not resident.
 *
 * The consumer checks every length it reads before it uses it (at least a header, a multiple of 8, not past the end
 * of the buffer: a record never wraps). A length that fails means the ring's memory was overwritten: the consumer
 * stops for good (`broken`), so that it never zeroes or reads past the record with it, and the ring's owner says so.
 */
#ifndef MEMSCOPE_SAMPLE_RING_H
#define MEMSCOPE_SAMPLE_RING_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RING_RECORD_PADDING 1
#define RING_HEADER_BYTES 8

/* A test's hook between ring_claim's two reads (src/test/native/ring_claim_test.c holds a producer up there);
   nothing in the library. */
#ifndef RING_CLAIM_BETWEEN_LOADS
#define RING_CLAIM_BETWEEN_LOADS() ((void) 0)
#endif

typedef struct {
    int32_t length;
    int32_t kind;
} ring_header;

typedef struct {
    uint8_t *buffer;
    uint64_t capacity;
    uint64_t mask;
    /* Set by the consumer when a length it read could not be a record's (see above); never cleared. */
    volatile int broken;
    /* Producers: next byte to claim. On its own cache line (the consumer's head is written on every drain). */
    _Alignas(64) uint64_t tail;
    _Alignas(64) uint64_t head;
} sample_ring;

/* @return 0, or -1 when the memory cannot be had */
static inline int ring_init(sample_ring *r, uint64_t capacity) {
    memset(r, 0, sizeof(*r));
    r->buffer = calloc(1, (size_t) capacity);
    if (r->buffer == NULL) {
        return -1;
    }
    r->capacity = capacity;
    r->mask = capacity - 1;
    return 0;
}

static inline void ring_free(sample_ring *r) {
    free(r->buffer);
    r->buffer = NULL;
}

/* Bytes claimed and not yet consumed (any thread; a snapshot, at most the capacity). */
static inline uint64_t ring_used(sample_ring *r) {
    uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    /* tail first, as in ring_claim; a head read after records past that tail were consumed is beyond it */
    return head > tail ? 0 : tail - head;
}

/*
 * Claims length bytes (a multiple of 8, at most the capacity) for a record of the given kind.
 *
 * @return the record's header, to be filled and then published with ring_publish, or NULL when the ring is full
 */
static inline ring_header *ring_claim(sample_ring *r, uint32_t length) {
    for (;;) {
        /* The tail first, then the head. The compare-and-swap below succeeds only if the tail has not moved since
           it was read, and the head only grows: when it succeeds, at most tail - head bytes are in use, so the free
           space is never over-estimated. (A head read after records past that tail were consumed is beyond the
           tail: `used` wraps above the capacity, and the claim starts over with both read again.) Read the other
           way round, a producer held up between the two reads (preempted, a page fault) paired a head from before
           the ring went round with a later tail: tail - head above the capacity, `capacity - used` wrapping to a
           huge number, and a claim of bytes the consumer had not read yet, whose records it then overwrote. */
        uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
        RING_CLAIM_BETWEEN_LOADS();
        uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
        uint64_t used = tail - head;
        if (used > r->capacity) {
            continue; /* the head was read after records claimed past this tail were consumed: the tail moved on */
        }
        uint64_t index = tail & r->mask;
        uint64_t to_end = r->capacity - index;
        uint64_t padding = length > to_end ? to_end : 0;
        uint64_t required = (uint64_t) length + padding;
        if (required > r->capacity - used) {
            return NULL;
        }
        if (__atomic_compare_exchange_n(&r->tail, &tail, tail + required, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            if (padding != 0) {
                ring_header *pad = (ring_header *) (r->buffer + index);
                pad->kind = RING_RECORD_PADDING;
                __atomic_store_n(&pad->length, (int32_t) padding, __ATOMIC_RELEASE);
            }
            return (ring_header *) (r->buffer + ((tail + padding) & r->mask));
        }
    }
}

/* Makes a claimed record visible to the consumer: its kind and payload must be written before. */
static inline void ring_publish(ring_header *h, int32_t kind, uint32_t length) {
    h->kind = kind;
    __atomic_store_n(&h->length, (int32_t) length, __ATOMIC_RELEASE);
}

/* Whether length, read at ring position `at`, can be a published record's: a header at least, 8-byte aligned, and
 * not past the buffer's end. */
static inline int ring_length_valid(const sample_ring *r, uint64_t at, int32_t length) {
    return length >= RING_HEADER_BYTES && (length & 7) == 0
            && (uint64_t) length <= r->capacity - (at & r->mask);
}

/*
 * Consumer only: the oldest record if it is published (padding skipped), else NULL (also once the ring is broken).
 */
static inline ring_header *ring_peek(sample_ring *r) {
    for (;;) {
        if (r->broken) {
            return NULL;
        }
        uint64_t head = r->head;
        ring_header *h = (ring_header *) (r->buffer + (head & r->mask));
        int32_t length = __atomic_load_n(&h->length, __ATOMIC_ACQUIRE);
        if (length == 0) {
            return NULL;
        }
        if (!ring_length_valid(r, head, length)) {
            r->broken = 1;
            return NULL;
        }
        if (h->kind != RING_RECORD_PADDING) {
            return h;
        }
        memset(h, 0, (size_t) length);
        __atomic_store_n(&r->head, head + (uint64_t) length, __ATOMIC_RELEASE);
    }
}

/* Consumer only: releases the record ring_peek returned. */
static inline void ring_consume(sample_ring *r, ring_header *h) {
    int32_t length = h->length;
    if (!ring_length_valid(r, r->head, length)) {
        r->broken = 1; /* changed since ring_peek read it: overwritten */
        return;
    }
    memset(h, 0, (size_t) length);
    __atomic_store_n(&r->head, r->head + (uint64_t) length, __ATOMIC_RELEASE);
}

#endif
