package io.memscope.events.jvm;

import io.memscope.events.EventCursor;
import io.memscope.events.EventsProducer;
import io.memscope.events.EventsSettings;
import io.memscope.events.RuntimeEvents;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

/**
 * Two JFR bridges in one JVM, each feeding its own producer, write the JVM's GC pauses and lifecycle into two files
 * without sharing a stream or a handle; detaching one leaves the other running. The process-wide bridge stays off.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JvmRuntimeEventsTwoInstancesTest {
    @TempDir
    Path tmp;

    private static final class Names implements EventCursor.Callbacks {
        final List<String> seen = new ArrayList<>();

        @Override
        public void spanBegin(long threadId, long timestamp, String name) {
            seen.add(name);
        }

        @Override
        public void lifecycle(long threadId, long timestamp, String name, long data) {
            seen.add(name);
        }

        boolean pause() {
            return seen.stream().anyMatch(n -> n.startsWith("gc.pause/"));
        }
    }

    private EventsSettings settings(String dir) {
        return EventsSettings.fromEnvironment().withDirectory(tmp.resolve(dir)).withSlots(8)
                .withPreserve(true);
    }

    @Test
    void twoBridgesWriteTheSamePausesIntoTwoFiles() throws Exception {
        EventsProducer a = new EventsProducer();
        EventsProducer b = new EventsProducer();
        JvmRuntimeEvents bridgeA = new JvmRuntimeEvents(a);
        JvmRuntimeEvents bridgeB = new JvmRuntimeEvents(b);
        assertThat(bridgeA.attach()).as("its producer is not running").isFalse();
        try {
            assertThat(a.start(settings("a"))).isTrue();
            assertThat(b.start(settings("b"))).isTrue();
            assertThat(bridgeA.attach()).isTrue();
            assertThat(bridgeB.attach()).isTrue();
            assertThat(RuntimeEvents.enabled()).isFalse();

            Names inA = new Names();
            Names inB = new Names();
            try (EventCursor ca = EventCursor.open(a.file()); EventCursor cb = EventCursor.open(b.file())) {
                // JFR delivers about once a second; the cursors are read on this thread
                await("a GC pause in both files").atMost(Duration.ofSeconds(60)).pollInSameThread()
                        .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
                            System.gc();
                            ca.poll(inA);
                            cb.poll(inB);
                            assertThat(inA.pause() && inB.pause()).as("pauses in both, seen: %s / %s", inA.seen, inB.seen)
                                    .isTrue();
                        });
            }
            assertThat(inA.seen).contains("vm.start");
            assertThat(inB.seen).contains("vm.start");

            bridgeA.detach();
            assertThat(bridgeB.attach()).as("still attached").isTrue();
        } finally {
            a.stop();
            b.stop();
            bridgeA.detach();
            bridgeB.detach();
        }
    }
}
