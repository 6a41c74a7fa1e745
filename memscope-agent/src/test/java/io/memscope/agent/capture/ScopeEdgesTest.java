package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.internal.store.StringTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

class ScopeEdgesTest {
    private final StringTable strings = new StringTable();
    private final ScopeEdges edges = new ScopeEdges(strings);

    /** One drained edge. */
    record Edge(long nanos, long threadId, int threadNameId, boolean exit, int pathId, long taskId, long bytes) {
    }

    private List<Edge> drain() {
        List<Edge> out = new ArrayList<>();
        long n = edges.drainTo((t, tid, name, exit, path, task, bytes) ->
                out.add(new Edge(t, tid, name, exit, path, task, bytes)));
        assertThat(n).isEqualTo(out.size());
        return out;
    }

    private static long pathAndKind(int path, boolean exit) {
        return (path & 0xFFFFFFFFL) | (exit ? ScopeEdgeLog.EXIT : 0);
    }

    @Test
    @SuppressWarnings("deprecation")
    void everyEdgeComesOutOnceInItsOrderAcrossBlocksAndDrains() {
        ScopeEdgeLog log = edges.register();
        assertThat(strings.get(log.threadNameId)).isEqualTo(Thread.currentThread().getName());
        List<Edge> all = new ArrayList<>();
        int written = 0;
        for (int round : new int[] {1, 15, 16, 17, 3000, 1024, 2048, 5}) {
            for (int i = 0; i < round; i++, written++) {
                boolean exit = (written & 1) == 1;
                log.add(1000 + written, pathAndKind(7 + written % 3, exit), exit ? written * 8L : written % 5);
            }
            assertThat(edges.pending()).isEqualTo(round);
            all.addAll(drain());
            assertThat(edges.pending()).isZero();
        }
        assertThat(all).hasSize(written);
        for (int i = 0; i < written; i++) {
            Edge e = all.get(i);
            boolean exit = (i & 1) == 1;
            assertThat(e).isEqualTo(new Edge(1000 + i, Thread.currentThread().getId(), log.threadNameId, exit,
                    7 + i % 3, exit ? 0 : i % 5, exit ? i * 8L : -1));
        }
        assertThat(drain()).isEmpty();
    }

    /**
     * A thread keeps its last log in its state after the capture ended: the released capture must not keep its
     * pool, its other logs or its string table reachable through it.
     */
    @Test
    void aReleasedCaptureKeepsNothingAThreadsStaleLogCouldReach() throws Exception {
        ScopeEdges capture = new ScopeEdges(new StringTable());
        java.lang.ref.WeakReference<StringTable> table = tableOf(capture);
        ScopeEdgeLog stale = capture.register();
        int n = 0;
        for (; n < 5 * ScopeEdgeLog.BLOCK_EDGES; n++) {
            stale.add(n, pathAndKind(1, false), 0);
        }
        Thread other = new Thread(() -> capture.register().add(1, pathAndKind(2, false), 0));
        other.start();
        other.join();
        assertThat(capture.drainTo((t, tid, name, exit, path, task, bytes) -> { })).isEqualTo(n + 1);
        assertThat(capture.pooled()).as("drained full blocks pooled for reuse").isPositive();
        assertThat(capture.threads()).isEqualTo(2);

        capture.release();

        assertThat(capture.pooled()).isZero();
        assertThat(capture.threads()).isZero();
        assertThat(capture.reuse()).isNull();
        // the stale log still takes edges without failing, over its last block: not recorded, and no growth
        long grown = 0;
        boolean measuring = OwnBytes.measure;
        OwnBytes.prepare();
        OwnBytes.measure = true;
        try {
            for (int i = 0; i < 3 * ScopeEdgeLog.BLOCK_EDGES; i++) {
                grown += stale.add(n + i, pathAndKind(1, true), 8);
            }
        } finally {
            OwnBytes.measure = measuring;
        }
        assertThat(grown).as("bytes allocated by a stale log after the end").isZero();
        assertThat(capture.register().threadNameId).as("a thread registering after the end gets no name").isZero();
        assertThat(capture.threads()).isZero();
        assertThat(capture.drainTo((t, tid, name, exit, path, task, bytes) -> { })).isZero();
        await("the string table collected").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10)).untilAsserted(() -> {
                    System.gc();
                    assertThat(table.get()).as("the string table, reachable from the stale log before").isNull();
                });
        assertThat(stale.capture).isSameAs(capture);
    }

    /** A weak reference to the capture's table, made without keeping a strong one in this frame. */
    private static java.lang.ref.WeakReference<StringTable> tableOf(ScopeEdges capture) throws Exception {
        java.lang.reflect.Field f = ScopeEdges.class.getDeclaredField("strings");
        f.setAccessible(true);
        return new java.lang.ref.WeakReference<>((StringTable) f.get(capture));
    }

    @Test
    void fullBlocksAreReusedOnceDrainedSoAThreadThatKeepsGoingAllocatesNothing() {
        boolean measuring = OwnBytes.measure;
        OwnBytes.prepare(); // the per-thread counter, looked up before measuring starts (as ApiHooks.linked does)
        OwnBytes.measure = true;
        try {
            ScopeEdgeLog log = edges.register();
            long growing = 0;
            int n = 0;
            for (; n < 6 * ScopeEdgeLog.BLOCK_EDGES; n++) {
                growing += log.add(n, pathAndKind(1, false), 0);
            }
            assertThat(growing).as("blocks allocated while the log grows, measured").isPositive();
            assertThat(drain()).hasSize(n);
            long steady = 0;
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 3 * ScopeEdgeLog.BLOCK_EDGES; i++, n++) {
                    steady += log.add(n, pathAndKind(1, true), 64);
                }
                assertThat(drain()).hasSize(3 * ScopeEdgeLog.BLOCK_EDGES);
            }
            assertThat(steady).as("bytes allocated once the drains keep up").isZero();
        } finally {
            OwnBytes.measure = measuring;
        }
    }

    @Test
    void concurrentThreadsAndDrainsLoseNothingKeepEachThreadsOrderAndMergeByTime() throws Exception {
        int threads = 3;
        int perThread = 200_000;
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean done = new AtomicBoolean();
        List<Thread> producers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int path = t + 1;
            Thread p = new Thread(() -> {
                ScopeEdgeLog log = edges.register();
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    log.add(System.nanoTime(), pathAndKind(path, (i & 1) == 1), i);
                }
            }, "producer-" + t);
            producers.add(p);
            p.start();
        }
        Map<Long, List<Edge>> byThread = new HashMap<>();
        start.countDown();
        while (!done.get()) {
            done.set(producers.stream().noneMatch(Thread::isAlive));
            List<Edge> batch = drain();
            for (int i = 1; i < batch.size(); i++) {
                assertThat(batch.get(i).nanos()).isGreaterThanOrEqualTo(batch.get(i - 1).nanos());
            }
            for (Edge e : batch) {
                byThread.computeIfAbsent(e.threadId(), k -> new ArrayList<>()).add(e);
            }
        }
        for (Thread p : producers) {
            p.join();
        }
        for (Edge e : drain()) {
            byThread.computeIfAbsent(e.threadId(), k -> new ArrayList<>()).add(e);
        }
        assertThat(byThread).hasSize(threads);
        for (List<Edge> l : byThread.values()) {
            assertThat(l).hasSize(perThread);
            for (int i = 0; i < perThread; i++) {
                Edge e = l.get(i);
                assertThat(e.exit() ? e.bytes() : e.taskId()).isEqualTo(i);
                assertThat(e.pathId()).isEqualTo(l.get(0).pathId());
            }
        }
        assertThat(drain()).isEmpty();
        assertThat(edges.threads()).as("ended threads' logs, drained, are dropped").isZero();
    }

    @Test
    void aSinkThatFailsMidDrainLosesNothingAndRepeatsNothing() {
        ScopeEdgeLog log = edges.register();
        int n = 3 * ScopeEdgeLog.BLOCK_EDGES + 100;
        for (int i = 0; i < n; i++) {
            log.add(i, pathAndKind(1, false), i);
        }
        List<Edge> out = new ArrayList<>();
        int failAt = ScopeEdgeLog.BLOCK_EDGES + 7;
        try {
            edges.drainTo((t, tid, name, exit, path, task, bytes) -> {
                if (out.size() == failAt) {
                    throw new IllegalStateException("disk full");
                }
                out.add(new Edge(t, tid, name, exit, path, task, bytes));
            });
        } catch (IllegalStateException expected) {
            // the recording's failure: the drain stops there
        }
        assertThat(out).hasSize(failAt);
        out.addAll(drain());
        assertThat(out).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(out.get(i).taskId()).isEqualTo(i);
        }
    }

    @Test
    void aThreadThatOutrunsTheDrainWakesItOncePerBlocksBeforeWake() {
        int[] wakes = {0};
        edges.wakeDrainWith(() -> wakes[0]++);
        ScopeEdgeLog log = edges.register();
        int growing = 0; // edges in the first, smaller blocks: 16 + 32 + ... + 512
        for (int b = ScopeEdgeLog.FIRST_EDGES; b < ScopeEdgeLog.BLOCK_EDGES; b *= 2) {
            growing += b;
        }
        // then full-size blocks, the pool empty: the 2 * BLOCKS_BEFORE_WAKE + 1 st begins with the last edge
        int n = growing + 2 * ScopeEdges.BLOCKS_BEFORE_WAKE * ScopeEdgeLog.BLOCK_EDGES + 1;
        int i = 0;
        for (; i < n; i++) {
            log.add(i, pathAndKind(1, false), i);
        }
        assertThat(wakes[0]).as("one wake per %d full blocks allocated afresh", ScopeEdges.BLOCKS_BEFORE_WAKE)
                .isEqualTo(2);
        assertThat(drain()).hasSize(i);
        for (int k = 0; k < 50 * ScopeEdgeLog.BLOCK_EDGES; k++, i++) {
            log.add(i, pathAndKind(1, false), i);
        }
        assertThat(wakes[0]).as("no wake while drained blocks come back from the pool").isEqualTo(2);
    }
}
