package io.memscope.recording;

import io.memscope.internal.recording.RecordingWriter;
import io.memscope.internal.store.EventStore;

import java.nio.file.Path;

/**
 * Run as a separate JVM by {@link KilledStoreDrainerTest}: three threads record the events of
 * {@link StoreToRecordingTest#recordExpected} (workers 0, 1, 2) into an {@link EventStore} without end, while the
 * main thread drains the store into a recording (small blocks) in a loop, printing {@code DRAINED <events>}
 * after each drain has been flushed to the file. It never closes the recording: the test kills it.
 */
public final class KilledStoreDrainerMain {
    private KilledStoreDrainerMain() {
    }

    public static void main(String[] args) throws Exception {
        EventStore store = EventStore.builder().capacityEvents(2_000_000).build();   // drop-newest if ever full
        RecordingWriter writer = StoreToRecordingTest.writerFor(store, Path.of(args[0]), 4096);
        writer.metadata("purpose", "killed store drainer test");
        for (int w = 0; w < 3; w++) {
            int worker = w;
            Thread t = new Thread(() -> {
                try {
                    for (long i = 0; ; i++) {
                        StoreToRecordingTest.recordExpected(store, worker, i);
                        if (i % 100 == 99) {
                            Thread.sleep(1);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, StoreToRecordingTest.Expected.threadName(w));
            t.setDaemon(true);
            t.start();
        }
        long drained = 0;
        long deadline = System.nanoTime() + 60_000_000_000L;      // never outlive a lost parent by much
        while (System.nanoTime() < deadline) {
            drained += store.drainTo(writer);
            writer.flush();
            System.out.println("DRAINED " + drained + " DROPPED " + store.dropped());
            System.out.flush();
            Thread.sleep(5);
        }
    }
}
