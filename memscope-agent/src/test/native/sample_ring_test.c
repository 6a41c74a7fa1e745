/*
 * The sampler's queue (sample_ring.h) under the interleavings that broke it: a producer held up inside ring_claim,
 * between its reads of the ring's two positions, while the others and the consumer take the ring round more than
 * once. Built and run by SampleRingTest (gcc, Linux); exits 0 when every check holds, else prints what failed.
 *
 * 1. Deterministic, one thread: the hook between the two reads (RING_CLAIM_BETWEEN_LOADS) runs "the others" once:
 *    records claimed, published and consumed until the ring went round, then claimed and published until it is full
 *    and left queued. The held-up claim must then find the ring full (NULL), and every queued record must read back
 *    intact. With the head read before the tail, the claim paired a head from before the ring went round with the
 *    new tail, its free space wrapped to a huge number, and it was handed the oldest queued record's bytes.
 * 2. Threads: PRODUCERS producers claim, check that the claimed bytes are zero (free), fill and publish RECORDS each;
 *    every 64th claim of each is held up between the two reads (sched_yield, then 100 microseconds); the consumer
 *    checks every record's length and contents and zeroes it. No overlap, no torn record, the ring never broken,
 *    every record read once.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void between_loads(void);
#define RING_CLAIM_BETWEEN_LOADS() between_loads()
#include "sample_ring.h"

static sample_ring ring;
static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAILED: " __VA_ARGS__); printf("\n"); } } while (0)

/* ------------------------------------------------------------------------------------ 1. deterministic */

#define SMALL_CAPACITY 4096
#define RECORD_BYTES 64
static int interfere_once;
static int threaded;

static void fill(ring_header *h, uint64_t value, uint32_t length) {
    uint64_t *p = (uint64_t *) (h + 1);
    for (uint32_t i = 0; i < (length - RING_HEADER_BYTES) / 8; i++) {
        p[i] = value;
    }
    ring_publish(h, 2, length);
}

/* Whether every payload word of h is `value` (or, with value 0, whatever the first word is). */
static int intact(ring_header *h, uint64_t *value) {
    uint64_t *p = (uint64_t *) (h + 1);
    uint32_t words = (uint32_t) (h->length - RING_HEADER_BYTES) / 8;
    for (uint32_t i = 1; i < words; i++) {
        if (p[i] != p[0]) {
            return 0;
        }
    }
    *value = words > 0 ? p[0] : 0;
    return 1;
}

/* The other producers and the consumer, while the held-up producer is between its two reads. */
static void others_go_round(void) {
    uint64_t start = ring.tail;
    uint64_t n = 1000;
    while (ring.tail - start <= 2 * ring.capacity) {
        fill(ring_claim(&ring, RECORD_BYTES), n++, RECORD_BYTES);
        ring_consume(&ring, ring_peek(&ring));
    }
    ring_header *h;
    while ((h = ring_claim(&ring, RECORD_BYTES)) != NULL) {
        fill(h, n++, RECORD_BYTES);
    }
}

static void between_loads(void) {
    if (threaded) {
        static __thread unsigned claims;
        if (++claims % 64 == 0) {
            sched_yield();
            struct timespec pause = {0, 100 * 1000};
            nanosleep(&pause, NULL);
        }
    } else if (interfere_once) {
        interfere_once = 0;
        others_go_round();
    }
}

static void held_up_claim_while_the_ring_goes_round(void) {
    CHECK(ring_init(&ring, SMALL_CAPACITY) == 0, "ring_init");
    /* a few records first, so that the positions are not at 0 */
    for (uint64_t i = 1; i <= 5; i++) {
        fill(ring_claim(&ring, RECORD_BYTES), i, RECORD_BYTES);
        ring_consume(&ring, ring_peek(&ring));
    }
    interfere_once = 1;
    ring_header *held = ring_claim(&ring, RECORD_BYTES);
    CHECK(interfere_once == 0, "the hook ran");
    CHECK(held == NULL, "a claim on a full ring was handed %s", held == NULL ? "" : "queued bytes");
    CHECK(ring_used(&ring) == ring.capacity, "the ring is full: %llu of %llu bytes used",
          (unsigned long long) ring_used(&ring), (unsigned long long) ring.capacity);
    if (held != NULL) {
        fill(held, 0xdeadbeef, RECORD_BYTES); /* what the held-up producer writes next */
    }
    uint64_t expected = 0, value = 0;
    int records = 0;
    ring_header *h;
    while ((h = ring_peek(&ring)) != NULL) {
        CHECK(intact(h, &value), "record %d torn", records);
        CHECK(expected == 0 || value == expected + 1, "record %d is %llx after %llx", records,
              (unsigned long long) value, (unsigned long long) expected);
        expected = value;
        ring_consume(&ring, h);
        records++;
    }
    CHECK(!ring.broken, "the ring was found overwritten");
    CHECK(records == SMALL_CAPACITY / RECORD_BYTES, "%d records read back of %d queued", records,
          SMALL_CAPACITY / RECORD_BYTES);
    ring_free(&ring);
    printf("held-up claim: %d records read back, the claim %s\n", records, held == NULL ? "refused" : "granted");
}

/* --------------------------------------------------------------------------------------------- 2. threads */

#define PRODUCERS 4
#define RECORDS 40000
static int64_t overlaps;

static void *produce(void *arg) {
    uint64_t id = (uint64_t) (uintptr_t) arg;
    for (uint64_t seq = 0; seq < RECORDS;) {
        uint32_t length = 16 + 8 * (uint32_t) ((seq * 7 + id) % 24);
        ring_header *h = ring_claim(&ring, length);
        if (h == NULL) {
            sched_yield();
            continue;
        }
        const uint64_t *p = (const uint64_t *) h;
        for (uint32_t i = 0; i < length / 8; i++) {
            if (p[i] != 0) {
                __atomic_add_fetch(&overlaps, 1, __ATOMIC_RELAXED);
                break;
            }
        }
        fill(h, id << 48 | (seq + 1), length);
        seq++;
    }
    return NULL;
}

static void producers_held_up_at_random(void) {
    threaded = 1;
    CHECK(ring_init(&ring, 1 << 14) == 0, "ring_init");
    pthread_t t[PRODUCERS];
    for (uintptr_t i = 0; i < PRODUCERS; i++) {
        pthread_create(&t[i], NULL, produce, (void *) (i + 1));
    }
    uint64_t last[PRODUCERS + 1] = {0};
    int64_t read = 0, torn = 0, out_of_order = 0;
    while (read < (int64_t) PRODUCERS * RECORDS && !ring.broken) {
        ring_header *h = ring_peek(&ring);
        if (h == NULL) {
            sched_yield();
            continue;
        }
        uint64_t value;
        if (!intact(h, &value)) {
            torn++;
        } else {
            uint64_t id = value >> 48;
            uint64_t seq = value & ((UINT64_C(1) << 48) - 1);
            if (id < 1 || id > PRODUCERS || seq != last[id] + 1) {
                out_of_order++;
            } else {
                last[id] = seq;
            }
        }
        ring_consume(&ring, h);
        read++;
    }
    if (ring.broken) {
        threaded = 0; /* the producers may wait for room that never comes: report and leave */
        printf("FAILED: the ring was found overwritten after %lld records\n", (long long) read);
        failures++;
        fflush(stdout);
        _exit(1);
    }
    for (int i = 0; i < PRODUCERS; i++) {
        pthread_join(t[i], NULL);
    }
    CHECK(overlaps == 0, "%lld claims were handed bytes not yet consumed", (long long) overlaps);
    CHECK(torn == 0, "%lld records torn", (long long) torn);
    CHECK(out_of_order == 0, "%lld records out of a producer's order", (long long) out_of_order);
    CHECK(ring_peek(&ring) == NULL && ring_used(&ring) == 0, "the ring is empty at the end");
    ring_free(&ring);
    printf("threads: %lld records from %d producers read once each\n", (long long) read, PRODUCERS);
}

int main(void) {
    held_up_claim_while_the_ring_goes_round();
    producers_held_up_at_random();
    printf(failures == 0 ? "sample ring: passed\n" : "sample ring: %d checks failed\n", failures);
    return failures == 0 ? 0 : 1;
}
