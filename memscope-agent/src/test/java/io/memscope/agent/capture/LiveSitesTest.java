package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.ReferenceQueue;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Held (reachable at the last processed GC), live and allocation-rate figures per site. Weights are 1 here. */
class LiveSitesTest {
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();

    @BeforeEach
    void clear() {
        LiveSites.clear(true);
    }

    private SampleRef sample(int site, long size) {
        SampleRef r = new SampleRef(new Object(), queue, 1, site, size, 1.0, 0);
        LiveSites.sampled(r);
        return r;
    }

    private static void collected(SampleRef r) {
        assertThat(r.settle()).isTrue();
        LiveSites.collected(r);
    }

    private static LiveSites.Usage usage(int site) {
        for (LiveSites.Usage u : LiveSites.top(100, LiveSites.Order.ALLOCATED)) {
            if (u.site == site) {
                return u;
            }
        }
        throw new AssertionError("site " + site);
    }

    @Test
    void heldIsWhatWasAllocatedBeforeTheLastGcAndSurvivedIt() throws Exception {
        SampleRef kept = sample(1, 1000);
        SampleRef garbage = sample(2, 500);
        assertThat(LiveSites.heldBytes()).isZero();
        assertThat(LiveSites.heldAsOfNanos()).isEqualTo(-1);
        assertThat(LiveSites.liveBytes()).isEqualTo(1500);

        long gcStart = System.nanoTime();
        SampleRef afterGcStart = sample(1, 300); // allocated after the GC began: live, not held
        collected(garbage);                       // the GC found it unreachable
        LiveSites.gcProcessed(gcStart);
        assertThat(LiveSites.heldBytes()).isEqualTo(1000);
        assertThat(LiveSites.heldAsOfNanos()).isEqualTo(gcStart);
        assertThat(usage(1).heldBytes).isEqualTo(1000);
        assertThat(usage(1).liveBytes).isEqualTo(1300);
        assertThat(usage(2).heldBytes).isZero();
        assertThat(LiveSites.top(10, LiveSites.Order.HELD)).extracting(u -> u.site).containsExactly(1);

        // A later GC collects the held object and holds the one allocated meanwhile.
        long second = System.nanoTime();
        collected(kept);
        LiveSites.gcProcessed(second);
        assertThat(LiveSites.heldBytes()).isEqualTo(300);
        assertThat(usage(1).heldBytes).isEqualTo(300);
        // An older GC processed late changes nothing.
        LiveSites.gcProcessed(gcStart);
        assertThat(LiveSites.heldBytes()).isEqualTo(300);
        collected(afterGcStart);
        assertThat(LiveSites.heldBytes()).isZero();
        assertThat(LiveSites.liveBytes()).isZero();
        assertThat(LiveSites.top(10, LiveSites.Order.HELD)).isEmpty();
    }

    @Test
    void withoutGcsNothingIsHeld() {
        LiveSites.clear(false);
        sample(1, 100);
        LiveSites.gcProcessed(System.nanoTime());
        assertThat(LiveSites.heldBytes()).isZero();
    }

    @Test
    void theAllocationRateIsPerTickWindow() {
        long t0 = System.nanoTime();
        LiveSites.tick(t0 + 2 * LiveSites.TICK_NANOS); // closes the window opened by clear()
        sample(3, 4096);
        sample(3, 4096);
        sample(4, 1024);
        LiveSites.tick(t0 + 2 * LiveSites.TICK_NANOS + LiveSites.TICK_NANOS / 2); // too early: no new window
        LiveSites.tick(t0 + 4 * LiveSites.TICK_NANOS);
        List<LiveSites.Usage> byRate = LiveSites.top(10, LiveSites.Order.ALLOCATION_RATE);
        assertThat(byRate).extracting(u -> u.site).containsExactly(3, 4);
        assertThat(byRate.get(0).allocationRate).isEqualTo(4096); // 8192 bytes over a 2 s window
        assertThat(LiveSites.allocationRate()).isEqualTo((8192 + 1024) / 2);
        LiveSites.tick(t0 + 5 * LiveSites.TICK_NANOS);
        assertThat(LiveSites.top(10, LiveSites.Order.ALLOCATION_RATE)).isEmpty();
        assertThat(LiveSites.allocationRate()).isZero();
    }
}
