package io.memscope.track;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

class ObjectTrackerTest {
    static volatile Object sink;

    /** Waits (with GCs) until the tracker has seen {@code n} collections; fails after 20 s. */
    static void awaitCollected(ObjectTracker t, long n) throws InterruptedException {
        await(n + " collections seen by the object tracker").atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10)).untilAsserted(() -> {
                    System.gc();
                    assertThat(t.collected()).as("collected").isGreaterThanOrEqualTo(n);
                });
    }

    @Test
    void aTrackedObjectIsFollowedUntilCollectedWithoutBeingKeptAlive() throws Exception {
        ObjectTracker t = ObjectTracker.create(100);
        Object kept = new HashMap<String, String>();
        t.track("kept", kept);
        t.track("dropped", new byte[4000]);
        List<ObjectTracker.Tracked> before = t.objects();
        assertThat(before).extracting(ObjectTracker.Tracked::name).containsExactlyInAnyOrder("kept", "dropped");
        assertThat(before).allMatch(ObjectTracker.Tracked::alive);
        awaitCollected(t, 1); // only the tracker knew of the array: tracking does not hold it
        List<ObjectTracker.Tracked> after = t.objects();
        ObjectTracker.Tracked dropped = after.stream().filter(o -> o.name().equals("dropped")).findFirst().orElseThrow();
        assertThat(dropped.alive()).isFalse();
        assertThat(dropped.type()).isEqualTo("byte[]");
        assertThat(dropped.collectedAtNanos()).isGreaterThan(dropped.trackedAtNanos());
        assertThat(dropped.ageNanos(0)).isPositive();
        ObjectTracker.Tracked live = after.stream().filter(o -> o.name().equals("kept")).findFirst().orElseThrow();
        assertThat(live.alive()).isTrue();
        assertThat(live.type()).isEqualTo("java.util.HashMap");
        assertThat(live.threadName()).isEqualTo(Thread.currentThread().getName());
        assertThat(t.tracked()).isEqualTo(2);
        sink = kept;
    }

    @Test
    void capacityAndBadCallsAreCountedNotThrown() {
        ObjectTracker t = ObjectTracker.create(2);
        Object a = new Object();
        Object b = new Object();
        Object c = new Object();
        t.track("a", a);
        t.track("b", b);
        t.track("c", c);
        t.track(null, a);
        t.track("", a);
        t.track("x", null);
        assertThat(t.tracked()).isEqualTo(2);
        assertThat(t.dropped()).isEqualTo(1);
        assertThat(t.invalid()).isEqualTo(3);
        sink = new Object[] {a, b, c};
    }

    /** The estimate agrees with the JVM's own count of the bytes allocated for the object. */
    @Test
    void shallowSizeMatchesWhatTheJvmAllocated() {
        assertThat(ShallowSize.of(new byte[1000])).isEqualTo(allocated(() -> new byte[1000]));
        assertThat(ShallowSize.of(new long[7])).isEqualTo(allocated(() -> new long[7]));
        assertThat(ShallowSize.of(new Object[5])).isEqualTo(allocated(() -> new Object[5]));
        assertThat(ShallowSize.of(new int[0])).isEqualTo(allocated(() -> new int[0]));
        assertThat(ShallowSize.of(new Object())).isEqualTo(allocated(Object::new));
        assertThat(ShallowSize.of(new Fields())).isEqualTo(allocated(Fields::new));
        assertThat(ShallowSize.of(new OnlyLong())).isEqualTo(allocated(OnlyLong::new));
        assertThat(ShallowSize.of(new java.util.ArrayList<>())).isEqualTo(allocated(java.util.ArrayList::new));
        assertThat(ShallowSize.exact(new byte[1])).isTrue();
        assertThat(ShallowSize.exact(new Object())).isFalse();
    }

    static long allocated(Supplier<Object> make) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            sink = make.get();
            best = Math.min(best, mx.getCurrentThreadAllocatedBytes() - before);
        }
        return best;
    }

    static final class Fields {
        long a;
        int b;
        byte c;
        Object d;
        Object e;
    }

    static final class OnlyLong {
        long a;
    }
}
