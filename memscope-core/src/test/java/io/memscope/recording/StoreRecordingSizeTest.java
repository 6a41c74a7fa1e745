package io.memscope.recording;

import io.memscope.internal.recording.RecordingWriter;
import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.internal.store.EventStore;
import io.memscope.internal.store.StringTable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bytes per event on disk (the recording format's target: at most 10) for a typical allocation stream as the store
 * produces it: real threads with their own names and ids, the store's own {@code System.nanoTime()} timestamps, the
 * store's timestamp-ordered merge of the threads, drained into the writer in several drains while recording goes on.
 *
 * <p>The stream follows the agent's model (as {@link TypicalStream}): 200 sites with Zipf-like
 * popularity, each with a fixed size, type name and stack; 75 % heap ALLOCATE of sampled objects (ids from one
 * shared counter), 18 % heap DEALLOCATE of a recent sample id carrying the object's lifetime in ns as previous
 * size, 7 % native ALLOCATE/DEALLOCATE of 4 KiB at real-looking addresses. Between two events each thread does
 * some work, as an application does between two sampled allocations.
 */
@Timeout(120)
class StoreRecordingSizeTest {
    static final int SITES = 200;

    @TempDir
    Path dir;

    /** The sites' sizes, type names and stacks, shared by all threads. */
    private static final class Sites {
        final long[] size = new long[SITES + 1];
        final int[] typeName = new int[SITES + 1];
        final long[] stack = new long[SITES + 1];
        final String[] typeNames = {"byte[]", "java.lang.String", "java.util.HashMap$Node", "int[]",
            "java.lang.Object[]", "com.example.Order", "java.util.ArrayList", "char[]"};

        Sites(StringTable strings, RecordingWriter w) {
            SplittableRandom r = new SplittableRandom(11);
            for (int s = 1; s <= SITES; s++) {
                String type = typeNames[r.nextInt(typeNames.length)];
                typeName[s] = strings.intern(type);
                size[s] = 16 + 8L * r.nextInt(64);
                stack[s] = r.nextLong();
                w.site(s, "com.example.pkg" + (s % 7) + ".Class" + (s % 23), "method" + (s % 11),
                        "Class" + (s % 23) + ".java", 10 + s, type);
                w.stack(stack[s], List.of("com.example.pkg.Class" + (s % 23) + ".method" + (s % 11) + "(Class"
                        + (s % 23) + ".java:" + (10 + s) + ")", "com.example.Main.main(Main.java:5)"));
            }
        }
    }

    /** Records {@code n} events of the typical stream on the current thread; {@code work} iterations between. */
    private static long produce(EventStore store, Sites sites, AtomicLong sampleIds, int n, long seed, int work) {
        SplittableRandom r = new SplittableRandom(seed);
        long nativeBase = 0x7f3a_1000_0000L;
        long sink = 0;
        for (int i = 0; i < n; i++) {
            int site = 1 + (int) (Math.pow(r.nextDouble(), 3) * SITES);
            int kind = r.nextInt(100);
            if (kind < 75) {
                store.record(MemoryEventType.ALLOCATE, sampleIds.getAndIncrement(), sites.size[site], 0, site,
                        sites.stack[site], sites.typeName[site], 0);
            } else if (kind < 93) {
                long victim = Math.max(1, sampleIds.get() - 1 - r.nextInt(2000));
                long lifetime = 1_000 + r.nextLong(50_000_000L);
                store.record(MemoryEventType.DEALLOCATE, victim, sites.size[site], lifetime, site,
                        sites.stack[site], sites.typeName[site], 0);
            } else {
                long address = nativeBase + 4096L * r.nextInt(4096);
                store.record(r.nextBoolean() ? MemoryEventType.ALLOCATE : MemoryEventType.DEALLOCATE, address,
                        4096, 0, 0, 0, 0, 0);
            }
            for (int k = r.nextInt(work + 1); k > 0; k--) {
                sink += sink * 31 + k;               // the application's work between two sampled allocations
            }
        }
        return sink;
    }

    /** @return bytes per event of the file (everything: header, string, site and stack tables, END) */
    private double bytesPerEvent(int threads, int perThread, int work) throws Exception {
        EventStore store = EventStore.unbounded();
        Path file = dir.resolve("typical-" + work + ".msrec");
        RecordingWriter writer = RecordingWriter.builder(file).strings(store.strings())
                .clock(store.wallClockEpochNanos(), store.nanoTimeAtEpoch()).open();
        Sites sites = new Sites(store.strings(), writer);
        AtomicLong sampleIds = new AtomicLong(1);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            long seed = t;
            new Thread(() -> {
                try {
                    produce(store, sites, sampleIds, perThread, seed, work);
                } finally {
                    done.countDown();
                }
            }, "http-nio-8080-exec-" + (t + 1)).start();
        }
        int drains = 0;
        while (!done.await(5, java.util.concurrent.TimeUnit.MILLISECONDS)) {
            store.drainTo(writer);
            drains++;
        }
        store.drainTo(writer);
        writer.close();
        Recording rec = RecordingReader.readStrict(file);
        long events = (long) threads * perThread;
        assertThat((long) rec.eventCount()).isEqualTo(events);
        double perEvent = Files.size(file) / (double) events;
        System.out.printf("typical stream from the store: %d threads, work %d, %d events, %d drains, "
                + "%d bytes: %.2f bytes/event%n", threads, work, events, drains, Files.size(file), perEvent);
        return perEvent;
    }

    @Test
    void typicalAllocationStreamFromTheStoreTakesAtMostTenBytesPerEvent() throws Exception {
        assertThat(bytesPerEvent(4, 50_000, 2_000)).as("bytes per event on disk").isLessThanOrEqualTo(10.0);
    }

    @Test
    void backToBackRecordingAlsoTakesAtMostTenBytesPerEvent() throws Exception {
        // No work between events: smaller time deltas, and the threads' events interleave however the
        // scheduler ran them.
        assertThat(bytesPerEvent(4, 50_000, 0)).as("bytes per event on disk").isLessThanOrEqualTo(10.0);
    }
}
