package io.memscope.accounting;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static io.memscope.accounting.Column.*;
import static org.assertj.core.api.Assertions.assertThat;

@Timeout(30)
class RemoteQueueTest {
    private final MemoryAccounting acct = new MemoryAccounting();
    private final Instrument inst = acct.instrument("memory/remote/blocks");

    @SuppressWarnings("deprecation")
    @Test
    void manyFreesQueuedToAnIdleOwnerStayBoundedAndExact() throws Exception {
        List<Owner> owners = new ArrayList<>();
        CountDownLatch allocated = new CountDownLatch(1);
        CountDownLatch freed = new CountDownLatch(1);
        long[] id = new long[1];
        long[][] row = new long[1][];
        Thread owner = new Thread(() -> {
            id[0] = Thread.currentThread().getId();
            for (int i = 0; i < 10_000; i++) {
                owners.add(acct.alloc(inst, 8));
            }
            allocated.countDown();
            try {
                freed.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            acct.alloc(inst, 1); // applies the queue first
            row[0] = Rows.values(Rows.thread(acct, id[0], inst.name()).get(0));
        });
        owner.start();
        allocated.await();
        for (Owner o : owners) {
            acct.free(inst, 8, o); // 10 000 frees from this thread, the owner idle: queued, folded past 4096
        }
        SummaryRow viewed = Rows.thread(acct, id[0], inst.name()).get(0);
        assertThat(viewed.get(COUNT_FREE)).isEqualTo(10_000);
        assertThat(viewed.currentBytes()).isZero();
        freed.countDown();
        owner.join(10_000);
        assertThat(row[0]).containsExactly(10_001, 10_000, 80_001, 80_000, 0, 1, 10_000, 0, 1, 80_000, 0);
        assertThat(inst.anomalies()).isZero();
    }

    @Test
    void scopeClosedOnAnotherThreadIsAnAnomaly() {
        OwnerScope s = acct.scope("u", "h");
        Rows.onThread("closer", s::close);
        assertThat(Rows.global(acct, MemoryAccounting.INVALID_INSTRUMENT).get(COUNT_ANOMALIES)).isEqualTo(1);
        assertThat(acct.currentOwner().user()).isEqualTo("u");
    }

    @Test
    void claimOfUnrecordedMemoryStartsRecordingIt() {
        Owner o = acct.claim(inst, 100, Owner.NONE);
        assertThat(o.isRecorded()).isTrue();
        acct.free(inst, 100, o);
        assertThat(Rows.values(Rows.global(acct, inst.name()))).containsExactly(1, 1, 100, 100, 0, 0, 1, 0, 0, 100, 0);
    }
}
