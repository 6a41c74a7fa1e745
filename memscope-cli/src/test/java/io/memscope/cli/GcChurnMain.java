package io.memscope.cli;

import io.memscope.events.Counter;
import io.memscope.events.RuntimeEvents;
import io.memscope.events.Span;

import java.util.ArrayList;
import java.util.List;

/**
 * A GC-heavy child JVM for the CLI tests: churns garbage for {@code args[0]} ms with a retained set (young and
 * mixed pauses), calls System.gc() twice (full pauses), and writes {@code app.work} spans and an
 * {@code app.iterations} counter around each of its 20 rounds. Prints "started" at once, "done" at the end. With
 * {@code -Dmemscope.test.awaitJfr=true} it first waits (at most 60 s) until a JFR recording runs in its JVM: the
 * agent starts its JFR bridge in the background, which on a loaded machine can take longer than the churn.
 */
public final class GcChurnMain {
    public static void main(String[] args) throws Exception {
        long millis = Long.parseLong(args[0]);
        if (Boolean.getBoolean("memscope.test.awaitJfr")) {
            awaitJfr();
        }
        Span work = RuntimeEvents.span("app.work");
        Counter iterations = RuntimeEvents.counter("app.iterations");
        System.out.println("started");
        System.out.flush();
        List<byte[]> keep = new ArrayList<>();
        long roundNanos = millis * 1_000_000L / 20;
        long sink = 0;
        for (int round = 0; round < 20; round++) {
            work.begin();
            long end = System.nanoTime() + roundNanos;
            long i = 0;
            while (System.nanoTime() < end) {
                byte[] b = new byte[8192];
                sink += b.length;
                if ((i++ & 31) == 0) {
                    keep.add(b);
                    if (keep.size() > 3000) {
                        keep.subList(0, 1500).clear();
                    }
                }
            }
            iterations.set(i);
            work.end();
            if (round == 5 || round == 15) {
                System.gc();
            }
        }
        System.out.println("done " + sink);
    }

    private static void awaitJfr() throws InterruptedException {
        long end = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < end) {
            if (jdk.jfr.FlightRecorder.isInitialized() && jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()
                    .stream().anyMatch(r -> r.getState() == jdk.jfr.RecordingState.RUNNING)) {
                return;
            }
            Thread.sleep(20);
        }
    }
}
