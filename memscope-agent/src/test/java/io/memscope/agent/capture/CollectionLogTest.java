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
     * one that grows faster than the collections. The bound asserted is generous: it proves the work is not
     * quadratic, it is not a measurement.
     */
    @Test
    void tensOfThousandsOfCollectionsNeverReadAreSettledAtTheEndInBoundedTime() {
        int collections = 50_000;
        CollectionLog log = new CollectionLog(true);
        for (int i = 0; i < collections; i++) {
            long start = 1_000_000_000L + 3_000_000L * i; // one 1 ms collection every 3 ms
            log.pause(i + 1, start, start + 900_000);
        }
        List<GcRecord> records = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> log.take(true));
        assertThat(records).hasSize(collections);
        assertThat(records).allSatisfy(r -> assertThat(r.name()).isEqualTo(CollectionLog.UNNAMED));
    }
}
