package io.memscope.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.memscope.accounting.Column;
import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.OwnerScope;
import io.memscope.accounting.SummaryRow;
import io.memscope.accounting.SummaryTable;
import io.memscope.internal.error.Failures;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** TrackingArena without the agent (this test JVM has none): the accounting, and the wrapped arena's contract. */
class TrackingArenaTest {
    private MemoryAccounting acct;
    private Instrument arenaMemory;

    @BeforeEach
    void setUp() {
        acct = new MemoryAccounting();
        arenaMemory = acct.instrument("memory/test/arena");
        Failures.reset();
    }

    private SummaryRow global() {
        for (SummaryRow r : acct.summary(SummaryTable.GLOBAL)) {
            if (r.eventName().equals(arenaMemory.name())) {
                return r;
            }
        }
        throw new AssertionError("no global row for " + arenaMemory);
    }

    private SummaryRow user(String user) {
        for (SummaryRow r : acct.summary(SummaryTable.USER)) {
            if (user.equals(r.user()) && r.eventName().equals(arenaMemory.name())) {
                return r;
            }
        }
        throw new AssertionError("no row for user " + user);
    }

    @Test
    void everySegmentIsChargedAndClosingFreesThemAll() {
        TrackingArena arena = TrackingArena.ofConfined(arenaMemory);
        MemorySegment a = arena.allocate(1000);
        MemorySegment b = arena.allocate(JAVA_LONG, 16);          // SegmentAllocator's default methods go through allocate
        MemorySegment c = arena.allocateFrom("hello, arena");     // 13 bytes with the terminator
        b.setAtIndex(JAVA_LONG, 15, 42L);
        assertThat(a.byteSize()).isEqualTo(1000);
        assertThat(arena.segmentCount()).isEqualTo(3);
        assertThat(arena.allocatedBytes()).isEqualTo(1000 + 128 + 13);
        SummaryRow open = global();
        assertThat(open.get(Column.COUNT_ALLOC)).isEqualTo(3);
        assertThat(open.get(Column.COUNT_FREE)).isZero();
        assertThat(open.currentBytes()).isEqualTo(1141);
        assertThat(open.highBytes()).isEqualTo(1141);
        assertThat(c.getString(0)).isEqualTo("hello, arena");

        arena.close();
        SummaryRow closed = global();
        assertThat(closed.get(Column.COUNT_FREE)).isEqualTo(3);
        assertThat(closed.get(Column.SUM_NUMBER_OF_BYTES_FREE)).isEqualTo(1141);
        assertThat(closed.currentBytes()).isZero();
        assertThat(closed.highBytes()).isEqualTo(1141);
        assertThat(arena.segmentCount()).isZero();
        assertThat(a.scope().isAlive()).isFalse();
        assertThat(Failures.total()).isZero();
    }

    @Test
    void aSharedArenaChargesEachThreadsUserAndFreesBackToThemFromTheClosingThread() throws Exception {
        TrackingArena arena = TrackingArena.ofShared(arenaMemory);
        List<Thread> threads = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        String[] users = {"alice", "bob"};
        for (int t = 0; t < 2; t++) {
            String user = users[t];
            int size = 4096 * (t + 1);
            threads.add(Thread.ofPlatform().start(() -> {
                try (OwnerScope s = acct.scope(user, "h1")) {
                    for (int i = 0; i < 50; i++) {
                        arena.allocate(size);
                    }
                }
                done.countDown();
            }));
        }
        done.await();
        assertThat(user("alice").currentBytes()).isEqualTo(50 * 4096);
        assertThat(user("bob").currentBytes()).isEqualTo(50 * 8192);
        assertThat(global().get(Column.COUNT_ALLOC)).isEqualTo(100);
        for (Thread t : threads) {
            t.join();
        }
        arena.close(); // from this thread: each free is charged back to its owner's account
        assertThat(user("alice").currentBytes()).isZero();
        assertThat(user("bob").currentBytes()).isZero();
        assertThat(user("bob").highBytes()).isEqualTo(50 * 8192);
        assertThat(global().get(Column.COUNT_FREE)).isEqualTo(100);
        assertThat(global().currentBytes()).isZero();
    }

    @Test
    void theWrappedArenasErrorsPassThroughAndChargeNothing() throws Exception {
        TrackingArena confined = TrackingArena.wrap(Arena.ofConfined(), arenaMemory);
        assertThatThrownBy(() -> confined.allocate(-1)).isInstanceOf(IllegalArgumentException.class);
        Throwable[] fromOther = new Throwable[1];
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                confined.allocate(64);
            } catch (Throwable t) {
                fromOther[0] = t;
            }
        });
        other.join();
        assertThat(fromOther[0]).isInstanceOf(WrongThreadException.class);
        assertThat(global().get(Column.COUNT_ALLOC)).isZero();
        confined.allocate(64);
        confined.close();
        assertThatThrownBy(confined::close).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> confined.allocate(8)).isInstanceOf(IllegalStateException.class);
        assertThat(global().get(Column.COUNT_ALLOC)).isEqualTo(1);
        assertThat(global().get(Column.COUNT_FREE)).isEqualTo(1);

        // An arena that cannot be closed: close() throws as Arena.global() does, and nothing is freed.
        TrackingArena global = TrackingArena.wrap(Arena.global(), arenaMemory);
        global.allocate(JAVA_INT, 10);
        assertThatThrownBy(global::close).isInstanceOf(UnsupportedOperationException.class);
        assertThat(global().currentBytes()).isEqualTo(40);
        assertThat(global.allocatedBytes()).isEqualTo(40);
        assertThat(Failures.total()).isZero();
        assertThat(global().get(Column.COUNT_ANOMALIES)).isZero();
    }

    @Test
    void aWrappedPoolIsChargedPerSliceHandedOut() {
        try (Arena backing = Arena.ofConfined()) {
            MemorySegment slab = backing.allocate(1 << 16);
            long[] next = {0};
            Arena pool = new Arena() { // slices one slab: allocates no native memory of its own per segment
                @Override
                public MemorySegment allocate(long byteSize, long byteAlignment) {
                    long at = (next[0] + byteAlignment - 1) / byteAlignment * byteAlignment;
                    next[0] = at + byteSize;
                    return slab.asSlice(at, byteSize);
                }

                @Override
                public MemorySegment.Scope scope() {
                    return backing.scope();
                }

                @Override
                public void close() {
                    next[0] = 0;
                }
            };
            TrackingArena tracked = TrackingArena.wrap(pool, arenaMemory);
            tracked.allocate(100, 8);
            tracked.allocate(200, 8);
            assertThat(global().currentBytes()).isEqualTo(300);
            tracked.close();
            assertThat(global().currentBytes()).isZero();
            assertThat(next[0]).isZero();
        }
    }

    @Test
    void theDefaultInstrumentIsTheGlobalRegistrysArenaInstrument() {
        try (TrackingArena arena = TrackingArena.ofConfined()) {
            arena.allocate(10);
            assertThat(arena.instrument().name()).isEqualTo(TrackingArena.DEFAULT_INSTRUMENT);
            assertThat(arena.instrument().accounting()).isSameAs(MemoryAccounting.global());
        }
    }

    @Test
    void aFailingBridgeIsCountedNotThrownAndSwitchedOff() throws Exception {
        java.lang.invoke.MethodHandle fails = java.lang.invoke.MethodHandles
                .throwException(void.class, IllegalStateException.class)
                .bindTo(new IllegalStateException("bridge broke"));
        java.lang.invoke.MethodHandle noop = java.lang.invoke.MethodHandles.empty(
                java.lang.invoke.MethodType.methodType(void.class));
        AgentBridge.install(fails, noop);
        try (TrackingArena arena = TrackingArena.ofConfined(arenaMemory)) {
            MemorySegment s = arena.allocate(256);
            assertThat(s.byteSize()).isEqualTo(256);
            arena.allocate(256);
        }
        assertThat(Failures.total()).isEqualTo(1);
        assertThat(Failures.messages().get(0)).contains("ffm.bridge", "bridge broke");
        assertThat(global().get(Column.COUNT_FREE)).isEqualTo(2);
        AgentBridge.reset();
    }

    @Test
    void withoutTheAgentThereIsNoBridgeAndNoFailure() {
        AgentBridge.reset();
        assertThat(AgentBridge.current()).isNull();
        try (TrackingArena arena = TrackingArena.ofShared(arenaMemory)) {
            arena.allocate(10);
        }
        assertThat(Failures.total()).isZero();
    }
}
