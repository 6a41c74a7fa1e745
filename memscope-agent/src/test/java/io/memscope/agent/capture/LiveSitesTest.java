package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.ReferenceQueue;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Held (reachable at the last whole-heap collection), unconfirmed (survived only collections that did not judge
 * them), live and allocation-rate figures per site. Weights are 1 here.
 */
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
            if (u.site() == site) {
                return u;
            }
        }
        throw new AssertionError("site " + site);
    }

    @Test
    void survivorsOfYoungCollectionsAreUnconfirmedUntilAWholeHeapCollectionJudgesThem() throws Exception {
        SampleRef kept = sample(1, 1000);
        SampleRef garbage = sample(2, 500);
        assertThat(sites.heldBytes()).isZero();
        assertThat(sites.heldAsOfNanos()).isEqualTo(-1);
        assertThat(sites.liveBytes()).isEqualTo(1500);

        long young = System.nanoTime();
        SampleRef afterGcStart = sample(1, 300); // allocated after the GC began: live, not judged
        collected(garbage);                       // the GC found it unreachable
        sites.gcProcessed(young, CollectionLog.NO_VERDICT);
        assertThat(sites.heldBytes()).as("a young collection confirms nothing").isZero();
        assertThat(sites.unconfirmedBytes()).isEqualTo(1000);
        assertThat(sites.heldAsOfNanos()).isEqualTo(-1);
        assertThat(sites.lastCollectionNanos()).isEqualTo(young);
        assertThat(usage(1).unconfirmedBytes()).isEqualTo(1000);
        assertThat(usage(1).liveBytes()).isEqualTo(1300);
        assertThat(sites.top(10, LiveSites.Order.HELD)).as("what may be held, until a whole-heap collection judges")
                .extracting(u -> u.site()).containsExactly(1);
        assertThat(sites.top(10, LiveSites.Order.UNCONFIRMED)).extracting(u -> u.site()).containsExactly(1);

        // A whole-heap collection judges what was allocated before its snapshot: the survivor of the young
        // collection and the object allocated after it are both reachable.
        long full = System.nanoTime();
        SampleRef afterFull = sample(3, 50);
        sites.gcProcessed(full, full);
        assertThat(sites.heldBytes()).isEqualTo(1300);
        assertThat(sites.unconfirmedBytes()).isZero();
        assertThat(sites.heldAsOfNanos()).isEqualTo(full);
        assertThat(usage(1).heldBytes()).isEqualTo(1300);
        assertThat(usage(3).heldBytes()).isZero();

        // A later young collection: the object allocated after the full one survives it, unconfirmed.
        long second = System.nanoTime();
        collected(kept);
        sites.gcProcessed(second, CollectionLog.NO_VERDICT);
        assertThat(sites.heldBytes()).isEqualTo(300);
        assertThat(sites.unconfirmedBytes()).isEqualTo(50);
        // An older GC processed late changes nothing.
        sites.gcProcessed(young, CollectionLog.NO_VERDICT);
        assertThat(sites.heldBytes()).isEqualTo(300);
        collected(afterGcStart);
        collected(afterFull);
        assertThat(sites.heldBytes()).isZero();
        assertThat(sites.unconfirmedBytes()).isZero();
        assertThat(sites.liveBytes()).isZero();
        assertThat(sites.top(10, LiveSites.Order.HELD)).isEmpty();
    }

    @Test
    void withoutGcsNothingIsHeld() {
        sites = new LiveSites(false);
        sample(1, 100);
        sites.gcProcessed(System.nanoTime(), System.nanoTime());
        assertThat(sites.heldBytes()).isZero();
        assertThat(sites.unconfirmedBytes()).isZero();
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
        assertThat(byRate).extracting(u -> u.site()).containsExactly(3, 4);
        assertThat(byRate.get(0).allocationRate()).isEqualTo(4096); // 8192 bytes over a 2 s window
        assertThat(sites.allocationRate()).isEqualTo((8192 + 1024) / 2);
        sites.tick(t0 + 5 * LiveSites.TICK_NANOS);
        assertThat(sites.top(10, LiveSites.Order.ALLOCATION_RATE)).isEmpty();
        assertThat(sites.allocationRate()).isZero();
    }

    @Test
    void jvmSamplesMoveAsTheSamplerSays() {
        sites.sampled(5, 800, 1.0);
        sites.sampled(5, 200, 1.0);
        sites.allocatedOnly(6, 4000, 1.0); // not tracked: allocated, never live or held
        assertThat(sites.heldAsOfNanos()).isEqualTo(-1);
        sites.moved(5, 800, 1.0, LiveSites.NEW, LiveSites.UNCONFIRMED);
        sites.moved(5, 200, 1.0, LiveSites.NEW, LiveSites.UNCONFIRMED);
        assertThat(sites.heldBytes()).isZero();
        assertThat(sites.unconfirmedBytes()).isEqualTo(1000);
        sites.moved(5, 800, 1.0, LiveSites.UNCONFIRMED, LiveSites.CONFIRMED);
        sites.heldAsOf(42);
        assertThat(sites.heldBytes()).isEqualTo(800);
        assertThat(sites.unconfirmedBytes()).isEqualTo(200);
        assertThat(sites.heldAsOfNanos()).isEqualTo(42);
        sites.heldAsOf(41); // older: no change
        assertThat(sites.heldAsOfNanos()).isEqualTo(42);
        assertThat(usage(5).liveBytes()).isEqualTo(1000);
        assertThat(usage(6).liveBytes()).isZero();
        assertThat(usage(6).allocatedBytes()).isEqualTo(4000);
        sites.collected(5, 200, 1.0, LiveSites.UNCONFIRMED);
        assertThat(sites.heldBytes()).isEqualTo(800);
        assertThat(sites.unconfirmedBytes()).isZero();
        sites.collected(5, 800, 1.0, LiveSites.CONFIRMED);
        assertThat(sites.heldBytes()).isZero();
        assertThat(sites.liveBytes()).isZero();
        assertThat(sites.allocatedBytes()).isEqualTo(5000);
    }

    /** The per-site arrays grow by doubling up to the site table's bound and the site beyond it, never past it. */
    @Test
    void perSiteArraysStopAtTheSiteTablesBound() {
        sample(300, 10);
        assertThat(sites.capacity()).isEqualTo(512);
        int beyond = SiteTable.limit(); // the id of the site beyond the bound
        sample(beyond - 1, 10);
        sample(beyond, 10);
        assertThat(sites.capacity()).isEqualTo(beyond + 1);
        assertThat(usage(beyond).allocatedBytes()).isEqualTo(10);
        assertThat(usage(300).allocatedBytes()).isEqualTo(10);
    }
}
