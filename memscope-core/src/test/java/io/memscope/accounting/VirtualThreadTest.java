package io.memscope.accounting;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Virtual threads (JDK 21+, started by reflection: the module compiles for 17) are owners like any thread. */
@Timeout(60)
class VirtualThreadTest {
    @Test
    void virtualThreadsAreChargedAndAggregatedWhenTheyEnd() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
        Method start = Thread.class.getMethod("startVirtualThread", Runnable.class);
        MemoryAccounting acct = new MemoryAccounting();
        Instrument inst = acct.instrument("memory/virtual/buffers");
        List<Thread> threads = new ArrayList<>();
        List<Owner> owners = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 500; i++) {
            String tenant = "tenant" + (i % 5);
            threads.add((Thread) start.invoke(null, (Runnable) () -> {
                try (OwnerScope s = acct.scope(tenant, "vt")) {
                    owners.add(acct.alloc(inst, 10));
                    acct.free(inst, 1000, acct.alloc(inst, 1000));
                }
            }));
        }
        for (Thread t : threads) {
            t.join(10_000);
            assertThat(t.isAlive()).isFalse();
        }
        SummaryRow g = Rows.global(acct, inst.name());
        assertThat(g.get(Column.COUNT_ALLOC)).isEqualTo(1000);
        assertThat(g.currentBytes()).isEqualTo(5000);
        assertThat(g.highBytes()).isBetween(6000L, 500L * 1010);
        assertThat(Rows.user(acct, "tenant3", inst.name()).currentBytes()).isEqualTo(1000);
        assertThat(acct.threadCount()).isZero();
        for (Owner o : owners) {
            acct.free(inst, 10, o);
        }
        assertThat(Rows.host(acct, "vt", inst.name()).currentBytes()).isZero();
        assertThat(inst.anomalies()).isZero();
    }
}
