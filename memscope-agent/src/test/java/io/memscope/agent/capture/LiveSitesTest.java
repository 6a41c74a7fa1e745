package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.ReferenceQueue;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Held (reachable at the last processed GC), live and allocation-rate figures per site. Weights are 1 here. */
class LiveSitesTest {
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    private LiveSites sites = new LiveSites(true);

    private SampleRef sample(int site, long size) {
        SampleRef r = new SampleRef(new Object(), queue, 1, site, size, 1.0, 0, 1, 0);
        sites.sampled(r);
        return r;
    }

    private void collected(SampleRef r) {
        assertThat(r.settle()).isTrue();
        sites.collected(r);
    }

    private LiveSites.Usage usage(int site) {
        for (LiveSites.Usage u : sites.top(100, LiveSites.Order.ALLOCATED)) {
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
        assertThat(sites.heldBytes()).isZero();
        assertThat(sites.heldAsOfNanos()).isEqualTo(-1);
        assertThat(sites.liveBytes()).isEqualTo(1500);

        long gcStart = System.nanoTime();
        SampleRef afterGcStart = sample(1, 300); // allocated after the GC began: live, not held
        collected(garbage);                       // the GC found it unreachable
        sites.gcProcessed(gcStart);
        assertThat(sites.heldBytes()).isEqualTo(1000);
        assertThat(sites.heldAsOfNanos()).isEqualTo(gcStart);
        assertThat(usage(1).heldBytes).isEqualTo(1000);
        assertThat(usage(1).liveBytes).isEqualTo(1300);
        assertThat(usage(2).heldBytes).isZero();
        assertThat(sites.top(10, LiveSites.Order.HELD)).extracting(u -> u.site).containsExactly(1);

        // A later GC collects the held object and holds the one allocated meanwhile.
        long second = System.nanoTime();
        collected(kept);
        sites.gcProcessed(second);
        assertThat(sites.heldBytes()).isEqualTo(300);
        assertThat(usage(1).heldBytes).isEqualTo(300);
        // An older GC processed late changes nothing.
        sites.gcProcessed(gcStart);
        assertThat(sites.heldBytes()).isEqualTo(300);
        collected(afterGcStart);
        assertThat(sites.heldBytes()).isZero();
        assertThat(sites.liveBytes()).isZero();
        assertThat(sites.top(10, LiveSites.Order.HELD)).isEmpty();
    }

    @Test
    void withoutGcsNothingIsHeld() {
        sites = new LiveSites(false);
        sample(1, 100);
        sites.gcProcessed(System.nanoTime());
        assertThat(sites.heldBytes()).isZero();
    }

    @Test
    void theAllocationRateIsPerTickWindow() {
        long t0 = System.nanoTime();
        sites.tick(t0 + 2 * LiveSites.TICK_NANOS); // closes the window opened when the figures were made
        sample(3, 4096);
        sample(3, 4096);
        sample(4, 1024);
        sites.tick(t0 + 2 * LiveSites.TICK_NANOS + LiveSites.TICK_NANOS / 2); // too early: no new window
        sites.tick(t0 + 4 * LiveSites.TICK_NANOS);
        List<LiveSites.Usage> byRate = sites.top(10, LiveSites.Order.ALLOCATION_RATE);
        assertThat(byRate).extracting(u -> u.site).containsExactly(3, 4);
        assertThat(byRate.get(0).allocationRate).isEqualTo(4096); // 8192 bytes over a 2 s window
        assertThat(sites.allocationRate()).isEqualTo((8192 + 1024) / 2);
        sites.tick(t0 + 5 * LiveSites.TICK_NANOS);
        assertThat(sites.top(10, LiveSites.Order.ALLOCATION_RATE)).isEmpty();
        assertThat(sites.allocationRate()).isZero();
    }

    @Test
    void jvmSamplesAreHeldWhenTheSamplerSaysSo() {
        sites.sampled(5, 800, 1.0);
        sites.sampled(5, 200, 1.0);
        sites.allocatedOnly(6, 4000, 1.0); // not tracked: allocated, never live or held
        assertThat(sites.heldAsOfNanos()).isEqualTo(-1);
        sites.becameHeld(5, 800, 1.0);
        sites.heldAsOf(42);
        assertThat(sites.heldBytes()).isEqualTo(800);
        assertThat(sites.heldAsOfNanos()).isEqualTo(42);
        sites.heldAsOf(41); // older: no change
        assertThat(sites.heldAsOfNanos()).isEqualTo(42);
        assertThat(usage(5).liveBytes).isEqualTo(1000);
        assertThat(usage(6).liveBytes).isZero();
        assertThat(usage(6).allocatedBytes).isEqualTo(4000);
        sites.collected(5, 200, 1.0, false);
        assertThat(sites.heldBytes()).isEqualTo(800);
        sites.collected(5, 800, 1.0, true);
        assertThat(sites.heldBytes()).isZero();
        assertThat(sites.liveBytes()).isZero();
        assertThat(sites.allocatedBytes()).isEqualTo(5000);
    }
}
