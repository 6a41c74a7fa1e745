package io.memscope.internal.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.memscope.MemoryEventType.ALLOCATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ThreadLifecycleTest {

    @Test
    void deadThreadsKeepTheirEventsUntilDrainedThenTheirBuffersAreReleased() throws Exception {
        EventStore store = EventStore.unbounded();
        List<WeakReference<ThreadBuffer>> buffers = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Thread t = new Thread(() -> {
                for (int j = 0; j < 10; j++) {
                    store.record(ALLOCATE, j, 8, 0, 1, 0, 0, 0);
                }
            }, "short-" + i);
            t.start();
            t.join();
            ids.add(threadId(t));
        }
        assertThat(store.size()).isEqualTo(500);
        // when the registry fills up, the buffers of ended threads are already compacted away
        assertThat(store.registeredBuffers()).isLessThan(50);
        collectBufferRefs(store, buffers);
        // a snapshot keeps every event, and moves those of ended threads into one graveyard buffer
        Snapshot s = store.snapshot();
        assertThat(s.size()).isEqualTo(500);
        assertThat(store.size()).isEqualTo(500);
        assertThat(store.registeredBuffers()).isEqualTo(1);
        buffers.removeIf(r -> r.get() != null && r.get().isGraveyard());
        awaitCollected(buffers); // the threads' own buffers are gone before their events are drained
        Snapshot after = store.snapshot();
        assertThat(after.size()).isEqualTo(500);
        for (int i = 0; i < 50; i++) {
            Snapshot mine = after.onThread(ids.get(i));
            assertThat(mine.size()).isEqualTo(10);
            assertThat(mine.get(0).threadName()).isEqualTo("short-" + i);
            assertThat(mine.asList()).extracting(io.memscope.MemoryEvent::address)
                    .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        }
        List<WeakReference<ThreadBuffer>> graveyard = new ArrayList<>();
        collectBufferRefs(store, graveyard);
        assertThat(store.drainTo(io.memscope.recording.FieldSink.of((ts, type, a, sz, p, th, tn, vn, tyn, st, si) -> { }))).isEqualTo(500);
        assertThat(store.registeredBuffers()).isZero();
        awaitCollected(graveyard);
    }

    @Test
    void endedThreadsCostTheirEventsNotTheirBuffersWithoutDrain() throws Exception {
        EventStore store = EventStore.unbounded();
        int threads = 3000;
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                for (int j = 0; j < 5; j++) {
                    store.record(ALLOCATE, j, 8, 0, 1, 0, 0, 0);
                }
            });
            t.start();
            t.join();
        }
        assertThat(store.size()).isEqualTo(threads * 5L);
        assertThat(store.registeredBuffers()).as("buffers of ended threads are compacted as threads come")
                .isLessThan(100);
        store.snapshot();
        assertThat(store.registeredBuffers()).isEqualTo(1);
        // 32 bytes per event plus one context per ended thread (its thread id differs: 40 bytes of columns and
        // 2 - 4 hash slots of 48 bytes), no buffer each: about 72 bytes per event with 5 events per thread
        double perEvent = store.retainedBytes() / (double) store.size();
        assertThat(perEvent).isLessThan(80);
        assertThat(store.snapshot().size()).isEqualTo(threads * 5);
    }

    @Test
    void endedThreadsWithManyEventsKeepTheirBufferUntilDrained() throws Exception {
        EventStore store = EventStore.unbounded();
        Thread big = new Thread(() -> {
            for (int j = 0; j < EventStore.BURY_LIMIT + 1; j++) {
                store.record(ALLOCATE, j, 8, 0, 1, 0, 0, 0);
            }
        });
        big.start();
        big.join();
        store.snapshot();
        assertThat(store.registeredBuffers()).isEqualTo(1); // its own, not moved
        assertThat(store.size()).isEqualTo(EventStore.BURY_LIMIT + 1);
        store.clear();
        assertThat(store.registeredBuffers()).isZero();
    }

    @SuppressWarnings("deprecation")
    private static long threadId(Thread t) {
        return t.getId();
    }

    @Test
    void thousandsOfShortLivedPlatformThreadsLeaveNoState() throws Exception {
        EventStore store = EventStore.unbounded();
        int rounds = 4;
        int perRound = 1000;
        for (int r = 0; r < rounds; r++) {
            List<Thread> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(2, task -> { // a pool too: its threads end later
                Thread t = new Thread(task);
                workers.add(t);
                return t;
            });
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < perRound; i++) {
                threads.add(new Thread(() -> {
                    for (int j = 0; j < 20; j++) {
                        store.record(ALLOCATE, j, 8, 0, 1, 0, 0, 0);
                    }
                }));
            }
            for (Thread t : threads) {
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            pool.submit(() -> store.record(ALLOCATE, 1, 1, 0, 0, 0, 0, 0)).get();
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            for (Thread w : workers) {
                w.join(); // awaitTermination returns before the worker thread has quite ended
            }
            assertThat(store.size()).isEqualTo(perRound * 20L + 1);
            List<WeakReference<ThreadBuffer>> refs = new ArrayList<>();
            collectBufferRefs(store, refs);
            assertThat(store.drainTo(io.memscope.recording.FieldSink.of((ts, type, a, s, p, th, tn, vn, tyn, st, si) -> { })))
                    .isEqualTo(perRound * 20L + 1);
            assertThat(store.registeredBuffers()).isZero();
            awaitCollected(refs);
        }
    }

    @Test
    void registryIsReapedWhileThreadsComeAndGoWithoutDrain() throws Exception {
        EventStore store = EventStore.unbounded();
        for (int i = 0; i < 3000; i++) {
            Thread t = new Thread(() -> store.record(ALLOCATE, 1, 1, 0, 0, 0, 0, 0));
            t.start();
            t.join();
            if (i % 100 == 99) {
                store.clear(); // events gone: the dead threads' buffers can go too
            }
        }
        assertThat(store.registeredBuffers()).isLessThan(200);
    }

    @Test
    void virtualThreadsOnJdk21AndLater() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
        // Compiled for Java 17: reach the JDK 21 API reflectively.
        ExecutorService executor = (ExecutorService) Executors.class
                .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        EventStore store = EventStore.unbounded();
        int tasks = 10_000;
        try {
            List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                int id = i;
                futures.add(executor.submit(() -> {
                    for (int j = 0; j < 5; j++) {
                        store.record(ALLOCATE, ((long) id << 8) | j, 8, 0, 1, 0, 0, 0);
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : futures) {
                f.get();
            }
        } finally {
            executor.shutdown();
            assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(store.size()).isEqualTo(tasks * 5L);
        List<WeakReference<ThreadBuffer>> refs = new ArrayList<>();
        collectBufferRefs(store, refs);
        Snapshot s = store.snapshot();
        assertThat(s.size()).isEqualTo(tasks * 5);
        // virtual threads end asynchronously after their task; once ended, their buffers are compacted away
        await("the ended virtual threads' buffers compacted away").atMost(Duration.ofSeconds(20))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).untilAsserted(() -> {
                    assertThat(store.snapshot().size()).isEqualTo(tasks * 5);
                    assertThat(store.registeredBuffers()).as("registered buffers").isEqualTo(1);
                });
        assertThat(store.size()).isEqualTo(tasks * 5L);
        refs.removeIf(r -> r.get() != null && r.get().isGraveyard());
        awaitCollected(refs);
        collectBufferRefs(store, refs);
        java.util.BitSet seen = new java.util.BitSet();
        assertThat(store.drainTo(io.memscope.recording.FieldSink.of((ts, type, a, sz, p, th, tn, vn, tyn, st, si) -> seen.set((int) a))))
                .isEqualTo(tasks * 5L);
        assertThat(seen.cardinality()).isEqualTo(tasks * 5);
        // virtual threads end asynchronously after their task: wait until all are seen dead and reaped
        await("every virtual thread seen dead and its buffer reaped").atMost(Duration.ofSeconds(20))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).untilAsserted(() -> {
                    store.clear();
                    assertThat(store.registeredBuffers()).as("registered buffers").isZero();
                });
        awaitCollected(refs);
    }

    // --- helpers

    private static void collectBufferRefs(EventStore store, List<WeakReference<ThreadBuffer>> out) {
        for (ThreadBuffer b : store.registry().table().slots) {
            if (b != null) {
                out.add(new WeakReference<>(b));
            }
        }
    }

    private static void awaitCollected(List<WeakReference<ThreadBuffer>> refs) {
        await("the drained thread buffers collected").atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
                    System.gc();
                    assertThat(refs.stream().filter(r -> r.get() != null).count())
                            .as("thread buffers still reachable after drain").isZero();
                });
    }
}
