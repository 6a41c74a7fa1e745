package io.memscope.recording;

import io.memscope.internal.recording.RecordingWriter;
import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEvent;
import io.memscope.MemoryEventType;
import io.memscope.recording.EventSink;
import io.memscope.internal.store.EventStore;
import io.memscope.internal.store.Snapshot;
import io.memscope.internal.store.StringTable;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

/**
 * The two halves together: an {@link EventStore} recorded into by many threads and drained into a
 * {@link RecordingWriter} while recording goes on, then read back with {@link RecordingReader}.
 */
@Timeout(120)
class StoreToRecordingTest {
    static final MemoryEventType[] TYPES = MemoryEventType.values();
    static final int SITES = 40;

    @TempDir
    Path dir;

    /** What worker {@code w} records as its {@code i}-th event (all but the timestamp, which the store takes). */
    static final class Expected {
        static MemoryEventType type(long i) {
            return TYPES[(int) (i % TYPES.length)];
        }

        static long address(int w, long i) {
            return (long) (w + 1) << 40 | i;
        }

        static long size(long i) {
            return 16 + 8 * (i % 50);
        }

        static long previousSize(long i) {
            if (type(i) != MemoryEventType.REALLOCATE) {
                return 0;
            }
            return i % 4 == 1 ? (1L << 33) + i : 8 + i % 100;    // some too large for the store's int column
        }

        static int site(int w, long i) {
            return 1 + (int) ((i * 7 + w) % SITES);
        }

        static long stack(int site) {
            return 0x5EED_0000_0000L + site % 8;
        }

        static String typeName(int site) {
            return new String[] {"byte[]", "java.lang.String", "int[]", "com.example.Order", "char[]"}[site % 5];
        }

        static String variable(long i) {
            return i % 23 == 0 ? "buf" : i % 31 == 0 ? "cache \"hot\" ü" : null;
        }

        static String threadName(int w) {
            return w == 2 ? "worker-2 \"quoted\" ü\t" : "worker-" + w;
        }
    }

    /** Records event {@code i} of worker {@code w} into {@code store}. */
    static void recordExpected(EventStore store, int w, long i) {
        StringTable t = store.strings();
        int site = Expected.site(w, i);
        store.record(Expected.type(i), Expected.address(w, i), Expected.size(i), Expected.previousSize(i), site,
                Expected.stack(site), t.intern(Expected.typeName(site)), t.intern(Expected.variable(i)));
    }

    /** Defines the sites and stacks the events refer to. */
    static void defineSites(RecordingWriter w) {
        for (int s = 1; s <= SITES; s++) {
            w.site(s, "com.example.Site" + s, "make", "Site" + s + ".java", 10 + s, Expected.typeName(s));
        }
        for (int k = 0; k < 8; k++) {
            w.stack(Expected.stack(k), List.of("com.example.Frame" + k + ".run(Frame" + k + ".java:" + k + ")"));
        }
    }

    static RecordingWriter writerFor(EventStore store, Path file, int blockBytes) {
        RecordingWriter w = RecordingWriter.builder(file).strings(store.strings())
                .clock(store.wallClockEpochNanos(), store.nanoTimeAtEpoch()).blockBytes(blockBytes).open();
        defineSites(w);
        return w;
    }

    /** A sink that passes events to the writer and keeps them, strings resolved, to compare with later. */
    static EventSink tee(EventSink writer, StringTable strings, List<MemoryEvent> kept) {
        return e -> {
            writer.accept(e);
            kept.add(new MemoryEvent(e.timestampNanos(), e.type(), e.address(), e.size(), e.previousSize(),
                    e.threadId(), strings.get(e.threadNameId()), strings.get(e.variableNameId()),
                    strings.get(e.typeNameId()), e.stackId(), e.siteId()));
        };
    }

    @Test
    void drainsWhileRecordingContinuesGiveBackExactlyWhatWasRecorded() throws Exception {
        int workers = 6;
        int perWorker = 20_000;
        EventStore store = EventStore.unbounded();
        Path file = dir.resolve("drained.msrec");
        RecordingWriter writer = writerFor(store, file, 4096);

        CountDownLatch start = new CountDownLatch(1);
        // Drains that handed out events, published by the drainer. Workers wait at a few gates for the next one,
        // so that recording spans many drains however fast or slow this machine is (a sleep alone does not).
        AtomicInteger drainsWithEvents = new AtomicInteger();
        AtomicReference<Throwable> workerFailure = new AtomicReference<>();
        Thread[] threads = new Thread[workers];
        for (int w = 0; w < workers; w++) {
            int worker = w;
            threads[w] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    int seenAtLastGate = drainsWithEvents.get();
                    for (long i = 0; i < perWorker; i++) {
                        recordExpected(store, worker, i);
                        if (i % 50 == 49) {
                            Thread.sleep(1);        // spread recording over many drains
                        }
                        if (i % 2000 == 1999) {
                            // Events recorded since the last gate are waiting (or already drained, which also
                            // moved the count): the next drain with events comes.
                            int gate = seenAtLastGate;
                            await("a drain with events after the gate of worker " + worker).atMost(Duration.ofSeconds(30))
                                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                                    .until(() -> drainsWithEvents.get() > gate);
                            seenAtLastGate = drainsWithEvents.get();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException | Error e) {
                    workerFailure.compareAndSet(null, e);
                }
            }, Expected.threadName(w));
            threads[w].start();
        }

        List<MemoryEvent> handedOut = new ArrayList<>();   // every drain, in order
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> drainerFailure = new AtomicReference<>();
        int[] drainsAndOlderStarts = new int[3];            // drains, drains starting older than the last ended, checked snapshots
        Thread drainer = new Thread(() -> {
            try {
                long lastEnded = Long.MIN_VALUE;
                while (true) {
                    boolean last = done.get();
                    // A snapshot right before the drain: the drain holds all of it and, per thread, starts with it
                    // (events recorded between the two calls come after it).
                    List<MemoryEvent> before = new ArrayList<>(store.snapshot().asList());
                    List<MemoryEvent> drained = new ArrayList<>();
                    store.drainTo(tee(writer, store.strings(), drained));
                    assertSnapshotIsPerThreadPrefix(before, drained, last);
                    drainsAndOlderStarts[2] += before.isEmpty() ? 0 : 1;
                    for (int i = 1; i < drained.size(); i++) {
                        if (drained.get(i).timestampNanos() < drained.get(i - 1).timestampNanos()) {
                            throw new AssertionError("drain not in timestamp order at " + i + ": " + drained);
                        }
                    }
                    if (!drained.isEmpty()) {
                        drainsAndOlderStarts[0]++;
                        drainsWithEvents.incrementAndGet();
                        if (drained.get(0).timestampNanos() < lastEnded) {
                            drainsAndOlderStarts[1]++;
                        }
                        lastEnded = drained.get(drained.size() - 1).timestampNanos();
                    }
                    handedOut.addAll(drained);
                    if (last) {
                        return;
                    }
                    Thread.sleep(1); // the drainer's period: a drain every millisecond, as a background drainer
                }
            } catch (Throwable t) {
                drainerFailure.set(t);
            }
        }, "drainer");
        drainer.start();
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        if (workerFailure.get() != null) {
            throw new AssertionError("a worker failed", workerFailure.get());
        }
        done.set(true);
        drainer.join();
        if (drainerFailure.get() != null) {
            throw new AssertionError("drainer failed", drainerFailure.get());
        }
        assertThat(store.size()).isZero();
        writer.close();

        assertThat(handedOut).hasSize(workers * perWorker);
        assertThat(drainsAndOlderStarts[0]).as("drains with events").isGreaterThan(5);
        System.out.printf("store -> recording: %d events in %d drains (%d starting older than the previous one "
                        + "ended, %d checked against a snapshot), %d bytes%n", handedOut.size(),
                drainsAndOlderStarts[0], drainsAndOlderStarts[1], drainsAndOlderStarts[2], writer.bytesWritten());

        // The file holds exactly what the drains handed out, in the same order, strings resolved.
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.eventCount()).isEqualTo(handedOut.size());
        for (int i = 0; i < rec.eventCount(); i++) {
            if (!rec.event(i).equals(handedOut.get(i))) {
                assertThat(rec.event(i)).as("event " + i).isEqualTo(handedOut.get(i));
            }
        }
        assertThat(rec.totals()).hasValueSatisfying(t -> {
            assertThat(t.eventsWritten()).isEqualTo((long) workers * perWorker);
            assertThat(t.eventsDropped()).isZero();
            assertThat(t.clean()).isTrue();
        });
        assertThat(rec.sites()).hasSize(SITES);
        assertThat(rec.header().toInstant(store.nanoTimeAtEpoch()).toEpochMilli())
                .isEqualTo(store.wallClockEpochNanos() / 1_000_000);

        // ... and that is exactly what the workers recorded: each thread's events complete, in its order.
        Map<String, Integer> workerOf = new HashMap<>();
        for (int w = 0; w < workers; w++) {
            workerOf.put(Expected.threadName(w), w);
        }
        long[] next = new long[workers];
        long[] lastTimestamp = new long[workers];
        java.util.Arrays.fill(lastTimestamp, Long.MIN_VALUE);
        for (MemoryEvent e : rec.events()) {
            Integer w = workerOf.get(e.threadName());
            assertThat(w).as("thread name %s", e.threadName()).isNotNull();
            assertThat(e.threadId()).isEqualTo(threadIdOf(threads[w]));
            assertThat(e).isEqualTo(expectedEvent(w, next[w]++, e.timestampNanos(), e.threadId()));
            assertThat(e.timestampNanos()).isGreaterThanOrEqualTo(lastTimestamp[w]);
            lastTimestamp[w] = e.timestampNanos();
        }
        assertThat(next).containsOnly(perWorker);
    }

    /** The expected {@code i}-th event of worker {@code w}, given its timestamp and thread id. */
    static MemoryEvent expectedEvent(int w, long i, long timestamp, long threadId) {
        int site = Expected.site(w, i);
        return new MemoryEvent(timestamp, Expected.type(i), Expected.address(w, i), Expected.size(i),
                Expected.previousSize(i), threadId, Expected.threadName(w), Expected.variable(i),
                Expected.typeName(site), Expected.stack(site), site);
    }

    @SuppressWarnings("deprecation")
    static long threadIdOf(Thread t) {
        return t.getId();
    }

    /**
     * Every event of the snapshot taken right before a drain is in the drain; per thread, the snapshot's events
     * are the first events of the drain. With no concurrent recording ({@code quiescent}) they are equal.
     */
    private static void assertSnapshotIsPerThreadPrefix(List<MemoryEvent> snapshot, List<MemoryEvent> drained,
                                                        boolean quiescent) {
        if (quiescent) {
            if (!drained.equals(snapshot)) {
                assertThat(drained).as("snapshot and drain with nothing recorded in between").isEqualTo(snapshot);
            }
            return;
        }
        Map<Long, List<MemoryEvent>> drainedByThread = byThread(drained);
        byThread(snapshot).forEach((tid, events) -> {
            List<MemoryEvent> d = drainedByThread.getOrDefault(tid, List.of());
            if (d.size() < events.size() || !d.subList(0, events.size()).equals(events)) {
                assertThat(d).as("thread %d: drain starts with the snapshot's events", tid).startsWith(
                        events.toArray(new MemoryEvent[0]));
            }
        });
    }

    private static Map<Long, List<MemoryEvent>> byThread(List<MemoryEvent> events) {
        Map<Long, List<MemoryEvent>> m = new HashMap<>();
        for (MemoryEvent e : events) {
            m.computeIfAbsent(e.threadId(), k -> new ArrayList<>()).add(e);
        }
        return m;
    }

    @Test
    void laterDrainStartingOlderThanTheLastOneEndedRoundTrips() throws Exception {
        for (int maxPerBlock : new int[] {3, 65_536}) {          // across a block boundary, and inside one block
            EventStore store = EventStore.unbounded();
            Path file = dir.resolve("older-" + maxPerBlock + ".msrec");
            List<MemoryEvent> handedOut = new ArrayList<>();
            try (RecordingWriter writer = RecordingWriter.builder(file).strings(store.strings())
                    .maxEventsPerBlock(maxPerBlock).open()) {
                EventSink sink = tee(writer, store.strings(), handedOut);
                // Thread "early" took its clock reading (1500) before the first drain's cut but published after it.
                store.record(new MemoryEvent(1000, MemoryEventType.ALLOCATE, 0x10, 8, 0, 1, "late", null,
                        "byte[]", 0, 1));
                store.record(new MemoryEvent(2000, MemoryEventType.ALLOCATE, 0x20, 8, 0, 1, "late", null,
                        "byte[]", 0, 1));
                store.record(new MemoryEvent(3000, MemoryEventType.DEALLOCATE, 0x10, 8, 0, 1, "late", null,
                        "byte[]", 0, 1));
                assertThat(store.drainTo(sink)).isEqualTo(3);
                Thread early = new Thread(() -> {
                    store.record(new MemoryEvent(1500, MemoryEventType.ALLOCATE, 0x30, 16, 0, 2, "early", "v",
                            "int[]", 7, 2));
                    store.record(new MemoryEvent(-5_000, MemoryEventType.REALLOCATE, 0x40, 32, 16, 2, "early",
                            null, "int[]", 7, 2));                         // nanoTime may be negative, too
                });
                early.start();
                early.join();
                assertThat(store.drainTo(sink)).isEqualTo(2);
            }
            assertThat(handedOut).extracting(MemoryEvent::timestampNanos)
                    .containsExactly(1000L, 2000L, 3000L, -5_000L, 1500L);
            Recording rec = RecordingReader.readStrict(file);
            assertThat(rec.events()).containsExactlyElementsOf(handedOut);
            assertThat(rec.totals().orElseThrow().eventsWritten()).isEqualTo(5);
        }
    }

    @Test
    void snapshotWrittenWithForEachReadsBackEqual() throws Exception {
        EventStore store = EventStore.unbounded();
        Thread[] threads = new Thread[4];
        for (int w = 0; w < threads.length; w++) {
            int worker = w;
            threads[w] = new Thread(() -> {
                for (long i = 0; i < 5_000; i++) {
                    recordExpected(store, worker, i);
                }
            }, Expected.threadName(w));
            threads[w].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        Snapshot snapshot = store.snapshot();
        Path file = dir.resolve("snapshot.msrec");
        try (RecordingWriter writer = writerFor(store, file, 64 * 1024)) {
            snapshot.forEach(writer);
        }
        Recording rec = RecordingReader.readStrict(file);
        assertThat(rec.eventCount()).isEqualTo(snapshot.size()).isEqualTo(20_000);
        assertThat(rec.events()).containsExactlyElementsOf(snapshot.asList());
        assertThat(store.size()).as("a snapshot removes nothing").isEqualTo(20_000);
    }
}
