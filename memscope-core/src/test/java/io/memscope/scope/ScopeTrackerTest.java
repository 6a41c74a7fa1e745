package io.memscope.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ScopeTrackerTest {
    /** The exact heap size of a byte[n] on this JVM, measured with the thread's own counter. */
    static long sizeOfByteArray(int n) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            ScopeWorkloads.sink = new byte[n];
            long after = mx.getCurrentThreadAllocatedBytes();
            best = Math.min(best, after - before);
        }
        return best;
    }

    static void allocate(int arrays, int bytes) {
        ScopeWorkloads.allocate(arrays, bytes);
    }

    @Test
    void nestedScopesHavePathsDepthsAndExactEntries() {
        ScopeTracker t = ScopeTracker.create(100);
        for (int i = 0; i < 3; i++) {
            try (MemoryScope request = t.enter("request")) {
                assertThat(request.path()).isEqualTo("request");
                assertThat(request.depth()).isEqualTo(1);
                try (MemoryScope parse = t.enter("parse")) {
                    assertThat(parse.path()).isEqualTo("request/parse");
                    assertThat(parse.parentPath()).isEqualTo("request");
                    assertThat(parse.depth()).isEqualTo(2);
                    assertThat(t.openPaths()).containsExactly("request", "request/parse");
                }
                try (MemoryScope render = t.enter("render")) {
                    try (MemoryScope parse = t.enter("parse")) {
                        assertThat(parse.path()).isEqualTo("request/render/parse");
                    }
                }
            }
        }
        assertThat(t.openPaths()).isEmpty();
        ScopeSnapshot s = t.snapshot();
        assertThat(s.paths()).extracting(ScopeSnapshot.PathStats::path)
                .containsExactly("request", "request/parse", "request/render", "request/render/parse");
        for (ScopeSnapshot.PathStats st : s.paths()) {
            assertThat(st.entries()).isEqualTo(3);
            assertThat(st.tasks()).isZero();
            assertThat(st.forcedExits()).isZero();
            assertThat(st.maxNanos()).isLessThanOrEqualTo(st.totalNanos());
            assertThat(st.selfNanos()).isBetween(0L, st.totalNanos());
        }
        ScopeSnapshot.PathStats request = s.path("request");
        long children = s.path("request/parse").totalNanos() + s.path("request/render").totalNanos();
        assertThat(request.selfNanos()).isEqualTo(request.totalNanos() - children);
        assertThat(s.path("request/render").selfNanos())
                .isEqualTo(s.path("request/render").totalNanos() - s.path("request/render/parse").totalNanos());
        assertThat(s.distinctPaths()).isEqualTo(4);
        assertThat(s.foldedEntries()).isZero();
        assertThat(s.outOfOrderExits() + s.staleCloses() + s.foreignCloses() + s.invalidNames()).isZero();
    }

    @Test
    void allocatedBytesAreExactAndLeaveMemscopesOwnOut() {
        assumeTrue(ThreadAllocation.supported());
        long array = sizeOfByteArray(1000);
        long small = sizeOfByteArray(24);
        ScopeTracker t = ScopeTracker.create(100);
        ScopeWorkloads.nested(t, 2000); // the interpreter, then compiled code: the same figures
        ScopeSnapshot s = t.snapshot();
        assertThat(s.allocationMeasured()).isTrue();
        ScopeSnapshot.PathStats outer = s.path("outer");
        ScopeSnapshot.PathStats inner = s.path("outer/inner");
        assertThat(s.path("outer/inner/empty").allocatedBytes()).isZero();
        assertThat(s.path("outer/empty").allocatedBytes()).isZero();
        assertThat(inner.allocatedBytes()).isEqualTo(2000 * 2 * small);
        assertThat(inner.selfAllocatedBytes()).isEqualTo(2000 * 2 * small);
        assertThat(inner.maxAllocatedBytes()).isEqualTo(2 * small);
        assertThat(outer.selfAllocatedBytes()).isEqualTo(2000 * 3 * array);
        assertThat(outer.allocatedBytes()).isEqualTo(2000 * (3 * array + 2 * small));
        assertThat(outer.entriesWithoutAllocation()).isZero();
    }

    @Test
    void outOfOrderExitsAreRepairedAndCounted() {
        ScopeTracker t = ScopeTracker.create(100);
        MemoryScope a = t.enter("a");
        MemoryScope b = t.enter("b");
        MemoryScope c = t.enter("c");
        a.close(); // b and c were still open: closed first
        assertThat(t.openPaths()).isEmpty();
        c.close(); // already closed by the repair: ignored
        b.close();
        a.close(); // a second close
        try (MemoryScope d = t.enter("d")) {
            assertThat(d.path()).isEqualTo("d"); // the stack is sound again
        }
        ScopeSnapshot s = t.snapshot();
        assertThat(s.outOfOrderExits()).isEqualTo(2);
        assertThat(s.staleCloses()).isEqualTo(3);
        assertThat(s.path("a/b").forcedExits()).isEqualTo(1);
        assertThat(s.path("a/b/c").forcedExits()).isEqualTo(1);
        assertThat(s.path("a").forcedExits()).isZero();
        assertThat(s.path("a").entries()).isEqualTo(1);
        assertThat(s.path("d").entries()).isEqualTo(1);
    }

    @Test
    void closeOnAnotherThreadIsIgnoredUntilTheParentRepairsIt() throws Exception {
        ScopeTracker t = ScopeTracker.create(100);
        MemoryScope outer = t.enter("outer");
        MemoryScope inner = t.enter("inner");
        Thread other = new Thread(inner::close);
        other.start();
        other.join();
        assertThat(t.openPaths()).containsExactly("outer", "outer/inner");
        outer.close();
        ScopeSnapshot s = t.snapshot();
        assertThat(s.foreignCloses()).isEqualTo(1);
        assertThat(s.outOfOrderExits()).isEqualTo(1);
        assertThat(s.path("outer/inner").forcedExits()).isEqualTo(1);
    }

    @Test
    void scopesLeftOpenByAnEndedThreadAreAbandoned() throws Exception {
        ScopeTracker t = ScopeTracker.create(100);
        Thread th = new Thread(() -> {
            t.enter("left-open");
            try (MemoryScope done = t.enter("closed")) {
                allocate(1, 10);
            }
        });
        th.start();
        th.join();
        ScopeSnapshot s = t.snapshot();
        assertThat(s.abandoned()).isEqualTo(1);
        assertThat(s.path("left-open")).isNull();
        assertThat(s.path("left-open/closed").entries()).isEqualTo(1);
        // the ended thread's state is reused by the next thread, its figures kept
        Thread next = new Thread(() -> t.enter("x").close());
        next.start();
        next.join();
        assertThat(t.threadStates()).isEqualTo(1); // the ended thread's, reused
        assertThat(t.snapshot().path("left-open/closed").entries()).isEqualTo(1);
    }

    @Test
    void distinctPathsAreBoundedWithAnExactCountOfWhatWasFolded() {
        ScopeTracker t = ScopeTracker.create(3);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 10; i++) {
                try (MemoryScope s = t.enter("name-" + i)) {
                    try (MemoryScope nested = t.enter("nested")) {
                        // below a folded scope, everything is folded too
                        if (i >= 3) {
                            assertThat(nested.path()).isEqualTo(ScopeTracker.OTHER);
                        }
                    }
                }
            }
        }
        ScopeSnapshot s = t.snapshot();
        assertThat(s.distinctPaths()).isEqualTo(3);
        assertThat(s.paths()).extracting(ScopeSnapshot.PathStats::path)
                .containsExactly("name-0", "name-0/nested", "name-1", ScopeTracker.OTHER);
        assertThat(s.path("name-0/nested").entries()).isEqualTo(2);
        // 2 rounds x (name-1/nested and name-2..9 with their nested) = 2 x (1 + 8 + 8)
        assertThat(s.foldedEntries()).isEqualTo(34);
        assertThat(s.path(ScopeTracker.OTHER).entries()).isEqualTo(34);
        assertThat(s.foldedDistinctPaths()).isEqualTo(9); // name-1/nested, name-2 .. name-9
        assertThat(s.foldedDistinctExact()).isTrue();
        assertThat(s.maxPaths()).isEqualTo(3);
    }

    @Test
    void foldedTimesAreNotCountedTwiceForNestedFoldedScopes() {
        ScopeTracker t = ScopeTracker.create(1);
        t.enter("kept").close();
        try (MemoryScope a = t.enter("folded-a")) {
            try (MemoryScope b = t.enter("folded-b")) {
                allocate(1, 100);
            }
        }
        ScopeSnapshot.PathStats other = t.snapshot().path(ScopeTracker.OTHER);
        assertThat(other.entries()).isEqualTo(2);
        assertThat(other.selfNanos()).isEqualTo(other.totalNanos()); // only the outer folded entry's time
    }

    @Test
    void badNamesAreReplacedAndCounted() {
        ScopeTracker t = ScopeTracker.create(100);
        t.enter(null).close();
        t.enter(null).close();
        t.enter("").close();
        t.enter("a/b").close();
        t.enter("x".repeat(300)).close();
        ScopeSnapshot s = t.snapshot();
        assertThat(s.path("(invalid)").entries()).isEqualTo(3);
        assertThat(s.path("a_b").entries()).isEqualTo(1);
        assertThat(s.path("x".repeat(ScopeTracker.MAX_NAME)).entries()).isEqualTo(1);
        assertThat(s.invalidNames()).isEqualTo(4); // null, "", "a/b", the long one (each once)
    }

    @Test
    void tooDeepIsRefusedWithANoOpHandle() {
        ScopeTracker t = ScopeTracker.create(10);
        List<MemoryScope> open = new ArrayList<>();
        for (int i = 0; i < ThreadScopes.MAX_DEPTH + 1; i++) {
            open.add(t.enter("r"));
        }
        assertThat(open.get(ThreadScopes.MAX_DEPTH).path()).isEmpty();
        open.get(0).close();
        ScopeSnapshot s = t.snapshot();
        assertThat(s.tooDeep()).isEqualTo(1);
        assertThat(t.openPaths()).isEmpty();
    }

    @Test
    void wrappedTasksRunInTheScopePathOnThePoolsThreadWithExactBytes() throws Exception {
        assumeTrue(ThreadAllocation.supported());
        ScopeTracker t = ScopeTracker.create(100);
        long array = sizeOfByteArray(4000);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            ScopeWorkloads.request(t, pool, 20, 4000);
        } finally {
            pool.shutdown();
        }
        ScopeSnapshot s = t.snapshot();
        ScopeSnapshot.PathStats request = s.path("request");
        assertThat(request.entries()).isEqualTo(20 + 80);
        assertThat(request.tasks()).isEqualTo(80);
        assertThat(request.allocatedBytes() - s.path("request/submit").allocatedBytes()).isEqualTo(80 * 3 * array);
        assertThat(request.selfAllocatedBytes()).isEqualTo(80 * 2 * array);
        ScopeSnapshot.PathStats parse = s.path("request/parse");
        assertThat(parse.entries()).isEqualTo(80);
        assertThat(parse.allocatedBytes()).isEqualTo(80 * array);
    }

    @Test
    void scopedExecutorServiceTakesTheSubmittersScope() throws Exception {
        ScopeTracker t = ScopeTracker.create(100);
        ExecutorService pool = new ScopedExecutorService(Executors.newSingleThreadExecutor(), t);
        try {
            try (MemoryScope job = t.enter("job")) {
                assertThat(pool.submit(() -> t.openPaths()).get()).containsExactly("job");
                java.util.concurrent.Callable<List<String>> paths = t::openPaths;
                assertThat(pool.invokeAll(List.of(paths)).get(0).get()).containsExactly("job");
            }
            assertThat(pool.submit(() -> t.openPaths()).get()).isEmpty(); // no scope at submit: runs as it is
        } finally {
            pool.shutdown();
        }
        assertThat(t.snapshot().path("job").tasks()).isEqualTo(2);
    }

    @Test
    void aTaskRunByTheThreadAlreadyInsideItsPathJustRuns() {
        ScopeTracker t = ScopeTracker.create(100);
        try (MemoryScope job = t.enter("job")) {
            Runnable check = () -> assertThat(t.openPaths()).containsExactly("job");
            job.wrap(check).run();
        }
        assertThat(t.snapshot().path("job").entries()).isEqualTo(1);
    }

    @Test
    void virtualThreadsRunScopedTasksAndGiveTheirStateBack() throws Throwable {
        ExecutorService virtual = VirtualThreads.perTaskExecutor();
        assumeTrue(virtual != null, "virtual threads need JDK 21+");
        ScopeTracker t = ScopeTracker.create(100);
        int tasks = 2000;
        CountDownLatch started = new CountDownLatch(tasks);
        try (MemoryScope request = t.enter("request")) {
            ExecutorService scoped = new ScopedExecutorService(virtual, t);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                done.add(scoped.submit(() -> {
                    try (MemoryScope io = t.enter("io")) {
                        started.countDown();
                        Thread.sleep(1); // the virtual thread unmounts inside the scope
                        allocate(1, 100);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            scoped.shutdown();
        }
        ScopeSnapshot s = t.snapshot();
        assertThat(s.path("request").tasks()).isEqualTo(tasks);
        assertThat(s.path("request/io").entries()).isEqualTo(tasks);
        // the JDK does not count virtual threads' allocated bytes: said so, not guessed
        assertThat(s.path("request/io").entriesWithoutAllocation()).isEqualTo(tasks);
        assertThat(s.path("request/io").allocatedBytes()).isZero();
        // states go back to the pool when a virtual thread's last scope closes: far fewer than threads
        assertThat(t.threadStates()).isLessThan(tasks / 2);
    }

    @Test
    void concurrentThreadsCountExactly() throws Exception {
        ScopeTracker t = ScopeTracker.create(100);
        int threads = 4;
        int loops = 20_000;
        List<Thread> l = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread th = new Thread(() -> {
                ScopeWorkloads.empty(t, loops);
            });
            l.add(th);
            th.start();
        }
        Thread reader = new Thread(() -> {
            while (l.stream().anyMatch(Thread::isAlive)) {
                ScopeSnapshot.PathStats a = t.snapshot().path("a");
                assertThat(a == null ? 0 : a.entries()).isBetween(0L, (long) threads * loops);
            }
        });
        reader.start();
        for (Thread th : l) {
            th.join();
        }
        reader.join();
        ScopeSnapshot s = t.snapshot();
        assertThat(s.path("a").entries()).isEqualTo((long) threads * loops);
        assertThat(s.path("a/even").entries()).isEqualTo((long) threads * loops / 2);
        assertThat(s.path("a/odd").entries()).isEqualTo((long) threads * loops / 2);
        assertThat(s.path("a").allocatedBytes()).isZero();
    }
}
