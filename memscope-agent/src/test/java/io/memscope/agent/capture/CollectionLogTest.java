package io.memscope.agent.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import io.memscope.recording.GcRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import org.junit.jupiter.api.Test;

class CollectionLogTest {

    /**
     * The drain thread registers the GC listener at the first collection; the capture may end at that moment. Every
     * listener registered must be removed by stop(): one left behind would keep the capture's log reachable from the
     * JVM's collector beans and keep receiving notifications for the rest of the application's life.
     */
    @Test
    void aCaptureThatEndsWhileTheListenerIsBeingRegisteredLeavesNoListenerBehind() throws Exception {
        List<CollectionLog> logs = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            CollectionLog log = new CollectionLog(true);
            logs.add(log);
            CountDownLatch go = new CountDownLatch(1);
            Thread drain = new Thread(() -> {
                go.countDown();
                log.caughtUp(); // registers the listener
            });
            drain.start();
            go.await();
            if ((i & 1) == 0) {
                Thread.onSpinWait(); // vary where stop() lands in the registration
            }
            log.stop();
            drain.join();
            assertThat(log.listening()).isFalse();
        }
        // Listeners are called in the order they were added: once a listener added now has seen a collection, every
        // listener left behind by the loop above has seen it too.
        CountDownLatch seen = new CountDownLatch(1);
        NotificationListener probe = (n, h) -> {
            if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                seen.countDown();
            }
        };
        List<NotificationEmitter> emitters = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter e) {
                e.addNotificationListener(probe, null, null);
                emitters.add(e);
            }
        }
        try {
            while (!seen.await(100, TimeUnit.MILLISECONDS)) {
                System.gc();
            }
        } finally {
            for (NotificationEmitter e : emitters) {
                e.removeNotificationListener(probe);
            }
        }
        long late = logs.stream().mapToLong(CollectionLog::lateNotifications).sum();
        assertThat(late).as("notifications that reached a stopped capture's log").isZero();
    }

    /**
     * A log nobody read during a long run (the recording could not be opened, so nothing took its records) is
     * settled all at once at the capture's end, inside the JVM's shutdown hook: that must take a bounded time, not
     * one proportional to collections times notifications (it took hours at a few thousand of each). The bound
     * asserted is generous: it proves the work is not quadratic, it is not a measurement.
     */
    @Test
    void tensOfThousandsOfCollectionsNeverReadAreSettledAtTheEndInBoundedTime() {
        int collections = 50_000;
        long offset = 7_000_000_000_123L; // nanoTime minus the management clock
        CollectionLog log = new CollectionLog(true);
        for (int i = 0; i < collections; i++) {
            long startMillis = 100 + 3L * i; // one 1 ms collection every 3 ms
            long start = offset + startMillis * 1_000_000L + 200_000;
            log.pause(i + 1, start, start + 900_000);
            log.arrived("Copy", "end of minor GC", "Allocation Failure", startMillis, 1, 2000 + i, 1000, 4000,
                    start + 2_000_000);
        }
        List<GcRecord> records = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> log.take(true));
        assertThat(records).hasSize(collections);
        // At most MAX_WAITING notifications wait: the oldest beyond it were dropped and counted, the others matched.
        long named = records.stream().filter(r -> r.name().equals("Copy")).count();
        assertThat(named).isGreaterThanOrEqualTo(CollectionLog.MAX_WAITING * 3 / 4).isLessThanOrEqualTo(
                CollectionLog.MAX_WAITING);
        assertThat(log.unmatched()).isEqualTo(collections - named);
        assertThat(records.get(collections - 1).name()).isEqualTo("Copy");
        assertThat(records.get(collections - 1).heapUsedBefore()).isEqualTo(2000 + collections - 1);
    }

    /** The offset is learned from the first notifications even when the JVM had collected a lot before. */
    @Test
    void theOffsetIsLearnedFromTheFirstNotificationsWhateverCameBefore() {
        long offset = 123_456_789_000L;
        CollectionLog log = new CollectionLog(true);
        for (int i = 0; i < 20_000; i++) { // collections whose notifications were never received
            long start = offset + (10L + 2 * i) * 1_000_000L;
            log.pause(i + 1, start, start + 500_000);
        }
        long base = 10L + 2 * 20_000 + 50;
        for (int i = 0; i < 100; i++) {
            long startMillis = base + 5L * i;
            long start = offset + startMillis * 1_000_000L + 100_000;
            log.pause(20_001 + i, start, start + 1_200_000);
            log.arrived("G1 Young Generation", "end of minor GC", "G1 Evacuation Pause", startMillis, 1, 10, 5, 20,
                    start + 3_000_000);
        }
        List<GcRecord> records = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> log.take(true));
        assertThat(records).hasSize(20_100);
        assertThat(records.subList(0, 20_000)).allSatisfy(r -> assertThat(r.name()).isEqualTo(CollectionLog.UNNAMED));
        assertThat(records.subList(20_000, 20_100))
                .allSatisfy(r -> assertThat(r.name()).isEqualTo("G1 Young Generation"));
        assertThat(log.unmatched()).isZero();
    }
}
