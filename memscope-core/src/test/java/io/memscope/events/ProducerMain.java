package io.memscope.events;

import java.nio.file.Paths;
import java.util.Map;

/** A child JVM for tests: writes {@code count} counters and a span, prints READY, then sleeps until killed. */
public final class ProducerMain {
    public static void main(String[] args) throws Exception {
        EventsSettings s = EventsSettings.fromMap(Map.of()).withDirectory(Paths.get(args[0])).withRingSize(65536)
                .withSlots(4);
        if (!RuntimeEvents.start(s)) {
            System.out.println("FAILED");
            return;
        }
        int count = Integer.parseInt(args[1]);
        Span span = RuntimeEvents.span("child.span");
        Counter counter = RuntimeEvents.counter("child.counter");
        span.begin();
        for (int i = 0; i < count; i++) {
            counter.set(i);
        }
        span.end();
        System.out.println("READY " + RuntimeEvents.file());
        System.out.flush();
        Thread.sleep(60_000);
    }
}
