package io.memscope.recording;

import io.memscope.internal.recording.RecordingWriter;
import io.memscope.MemoryEventType;

import java.nio.file.Path;

/**
 * Run as a separate JVM by {@link KilledWriterTest}: writes a recording of predictable events
 * ({@link #expectedAddress(long)} ...) as fast as it can, announcing on stdout how many events are flushed,
 * until it is killed. It never closes the file.
 */
public final class KilledWriterMain {
    private KilledWriterMain() {
    }

    static long expectedAddress(long i) {
        return 0x10_0000L + 64 * i;
    }

    static long expectedSize(long i) {
        return 16 + (i % 7) * 8;
    }

    public static void main(String[] args) throws Exception {
        RecordingWriter w = RecordingWriter.builder(Path.of(args[0])).blockBytes(4096).open();
        int thread = w.strings().intern("killed-writer-main");
        int type = w.strings().intern("byte[]");
        w.metadata("purpose", "killed writer test");
        long i = 0;
        while (true) {
            for (int k = 0; k < 1000; k++, i++) {
                w.accept(1_000_000 + i * 100, MemoryEventType.ALLOCATE, expectedAddress(i), expectedSize(i), 0, 1,
                        thread, 0, type, 0, (int) (i % 5) + 1);
            }
            if (i % 10_000 == 0) {
                w.flush();
                System.out.println("FLUSHED " + i);
                System.out.flush();
            }
            if (i >= 5_000_000) {
                Thread.sleep(1000);     // the test kills it long before; never spin forever
            }
        }
    }
}
