package io.memscope.events;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two event producers in one JVM write two files and share nothing: names, ids, rings, slots and start/stop are
 * each producer's own, read back from each file with {@link EventCursor}; a third producer asked to write a file
 * that one of them writes refuses.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EventsProducerTwoInstancesTest {
    @TempDir
    Path tmp;

    private final EventsProducer first = new EventsProducer();
    private final EventsProducer second = new EventsProducer();

    @AfterEach
    void stop() {
        first.stop();
        second.stop();
    }

    private EventsSettings settings(String dir) {
        return EventsSettings.fromMap(java.util.Map.of()).withDirectory(tmp.resolve(dir)).withRingSize(4096)
                .withSlots(2).withPreserve(true);
    }

    @Test
    void twoProducersWriteTwoFiles() throws Exception {
        assertThat(first.start(settings("a"))).isTrue();
        assertThat(second.start(settings("b"))).isTrue();
        assertThat(first.file()).isNotEqualTo(second.file());
        assertThat(RuntimeEvents.enabled()).as("the process-wide producer stays off").isFalse();

        Span onlyFirst = first.span("first.span");
        Counter shared = first.counter("same.name");
        Counter sharedSecond = second.counter("same.name");
        Lifecycle onlySecond = second.lifecycle("second.life");
        UserEvent<Integer> ints = second.register("second.int", EventType.INT);

        onlyFirst.begin();
        shared.set(1);
        sharedSecond.set(2);
        onlySecond.emit(3);
        ints.writeInt(4);
        onlyFirst.end();
        RuntimeEvents.counter("process.counter").set(99); // the stopped process-wide producer: nowhere

        Recorded a = new Recorded();
        try (EventCursor c = EventCursor.open(first.file())) {
            assertThat(c.poll(a)).isEqualTo(3);
        }
        assertThat(a.lines).containsExactly("begin first.span", "counter same.name 1", "end first.span");
        Recorded b = new Recorded();
        try (EventCursor c = EventCursor.open(second.file())) {
            assertThat(c.poll(b)).isEqualTo(3);
        }
        assertThat(b.lines).containsExactly("counter same.name 2", "lifecycle second.life 3",
                "custom second.int:int [04000000]");

        // stopping one leaves the other writing
        Path firstFile = first.file();
        first.stop();
        assertThat(first.enabled()).isFalse();
        assertThat(second.enabled()).isTrue();
        onlyFirst.begin();
        sharedSecond.set(5);
        try (EventCursor c = EventCursor.open(firstFile)) {
            assertThat(c.producerClosed()).isTrue();
            assertThat(c.poll(new Recorded())).isEqualTo(3);
        }
        Recorded b2 = new Recorded();
        try (EventCursor c = EventCursor.open(second.file())) {
            c.poll(b2);
        }
        assertThat(b2.lines).endsWith("counter same.name 5");
    }

    @Test
    void aSecondProducerOfTheSameFileRefuses() {
        assertThat(first.start(settings("same"))).isTrue();
        assertThat(second.start(settings("same"))).isFalse();
        assertThat(second.enabled()).isFalse();
        first.stop();
        assertThat(Files.exists(tmp.resolve("same").resolve(ProcessHandle.current().pid() + ".events")))
                .as("preserved").isTrue();
        assertThat(second.start(settings("same"))).as("free once the first stopped").isTrue();
    }
}
