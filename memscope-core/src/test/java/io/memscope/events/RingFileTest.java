package io.memscope.events;

import io.memscope.error.CorruptFileException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingFileTest {
    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        RuntimeEvents.stop();
    }

    private EventsSettings settings(int ring) {
        return EventsSettings.fromMap(java.util.Map.of()).withDirectory(tmp.resolve("ev")).withRingSize(ring)
                .withSlots(4).withPreserve(true);
    }

    @Test
    void roundTripOfEveryKindWithNamesFromTheFile() throws Exception {
        assertThat(RuntimeEvents.start(settings(4096))).isTrue();
        Path file = RuntimeEvents.file();
        assertThat(file.getFileName().toString()).isEqualTo(ProcessHandle.current().pid() + ".events");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
                .isEqualTo("rwx------");

        Span span = RuntimeEvents.span("test.span");
        Counter counter = RuntimeEvents.counter("test.counter");
        Lifecycle life = RuntimeEvents.lifecycle("test.life");
        EventType<String> text = EventType.register("test.text", new EventType.Codec<String>() {
            @Override
            public int encode(String value, byte[] buffer) {
                byte[] b = value.getBytes(StandardCharsets.UTF_8);
                System.arraycopy(b, 0, buffer, 0, b.length);
                return b.length;
            }

            @Override
            public String decode(byte[] buffer, int length) {
                return new String(buffer, 0, length, StandardCharsets.UTF_8);
            }
        });
        UserEvent<String> note = RuntimeEvents.register("test.note", text);
        UserEvent<Integer> ints = RuntimeEvents.register("test.int", EventType.INT);
        UserEvent<Long> longs = RuntimeEvents.register("test.long", EventType.LONG);
        UserEvent<Void> unit = RuntimeEvents.register("test.unit", EventType.UNIT);
        UserEvent<Span.Edge> uspan = RuntimeEvents.register("test.uspan", EventType.SPAN);

        span.begin();
        counter.set(42);
        life.emit(7);
        note.write("hello");
        ints.writeInt(-5);
        longs.writeLong(1L << 40);
        unit.write();
        uspan.begin();
        uspan.end();
        span.end();

        List<String> decoded = new ArrayList<>();
        try (EventCursor c = EventCursor.open(file)) {
            c.onCustom(text, (tid, ts, name, v) -> decoded.add(name + "=" + v))
                    .onCustom(EventType.INT, (tid, ts, name, v) -> decoded.add(name + "=" + v))
                    .onCustom(EventType.LONG, (tid, ts, name, v) -> decoded.add(name + "=" + v))
                    .onCustom(EventType.SPAN, (tid, ts, name, v) -> decoded.add(name + "=" + v));
            Recorded r = new Recorded();
            assertThat(c.poll(r)).isEqualTo(10);
            assertThat(r.lines).containsExactly(
                    "begin test.span", "counter test.counter 42", "lifecycle test.life 7",
                    "custom test.note:test.text [68656c6c6f]", "custom test.int:int [fbffffff]",
                    "custom test.long:long [0000000000010000]", "custom test.unit:unit []",
                    "custom test.uspan:span [00]", "custom test.uspan:span [01]", "end test.span");
            assertThat(decoded).containsExactly("test.note=hello", "test.int=-5", "test.long=1099511627776",
                    "test.uspan=BEGIN", "test.uspan=END");
            assertThat(r.timestamps).isSorted();
            assertThat(c.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(c.threadName(Thread.currentThread().getId())).isEqualTo(Thread.currentThread().getName());
            assertThat(c.poll(r)).isZero();
            assertThat(c.toEpochNanos(r.timestamps.get(0)) / 1_000_000)
                    .isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(60_000L));
        }
    }

    @Test
    void wrapAroundWritesPaddingAndEveryEventSurvivesWhenReadInTime() {
        RuntimeEvents.start(settings(4096));
        Counter c = RuntimeEvents.counter("wrap");
        UserEvent<String> big = RuntimeEvents.register("wrap.big", EventType.register("wrap.bytes",
                new EventType.Codec<String>() {
                    @Override
                    public int encode(String value, byte[] buffer) {
                        return Integer.parseInt(value);
                    }

                    @Override
                    public String decode(byte[] buffer, int length) {
                        return Integer.toString(length);
                    }
                }));
        try (EventCursor cursor = EventCursor.openCurrent()) {
            Recorded r = new Recorded();
            long written = 0;
            for (int round = 0; round < 50; round++) {
                for (int i = 0; i < 30; i++) {
                    c.set(written++);
                }
                big.write("300"); // odd sizes force padding records at the wrap
                written++;
                cursor.poll(r);
            }
            assertThat(r.lost).isZero();
            assertThat(r.lines).hasSize((int) written);
            long expected = 0;
            for (int i = 0; i < r.lines.size(); i++) {
                if (r.lines.get(i).startsWith("counter")) {
                    assertThat(r.values.get(i)).isEqualTo(expected);
                }
                expected++;
            }
        }
    }

    @Test
    void lappedReaderGetsExactLossAndResynchronizes() {
        RuntimeEvents.start(settings(4096));
        Counter c = RuntimeEvents.counter("lap");
        try (EventCursor cursor = EventCursor.openCurrent()) {
            Recorded r = new Recorded();
            for (int i = 0; i < 10; i++) {
                c.set(i);
            }
            assertThat(cursor.poll(r)).isEqualTo(10);
            for (int i = 10; i < 10_000; i++) {
                c.set(i);
            }
            int n = cursor.poll(r);
            assertThat(r.lost).isPositive();
            assertThat(10 + r.lost + n).isEqualTo(10_000);
            assertThat(cursor.lostEvents()).isEqualTo(r.lost);
            assertThat(r.values.get(r.values.size() - 1)).isEqualTo(9_999);
            for (int i = 10; i < r.values.size(); i++) {
                assertThat(r.values.get(i)).isEqualTo(10 + r.lost + (i - 10));
            }
            c.set(10_000);
            assertThat(cursor.poll(r)).isEqualTo(1);
        }
    }

    /**
     * A full ring frees a batch (1/16 of the ring) at a time: a reader still gets at least the ring minus one batch
     * of the newest events, and delivered + lost still equals written.
     */
    @Test
    void fullRingKeepsAllButOneBatchOfHistory() {
        int ring = 4096;
        RuntimeEvents.start(settings(ring));
        Counter c = RuntimeEvents.counter("history");
        for (int i = 0; i < 5_000; i++) {
            c.set(i);
        }
        try (EventCursor cursor = EventCursor.openCurrent()) {
            Recorded r = new Recorded();
            int n = cursor.poll(r);
            int batch = ring >>> RingWriter.HEAD_BATCH_SHIFT;
            assertThat(n).isGreaterThanOrEqualTo((ring - batch) / 24 - 1).isLessThanOrEqualTo(ring / 24);
            assertThat(r.lost + n).isEqualTo(5_000);
            assertThat(r.values.get(r.values.size() - 1)).isEqualTo(4_999);
        }
    }

    @Test
    void endedThreadsSlotIsReusedOnlyAfterTheGracePeriod() throws Exception {
        RuntimeEvents.start(settings(4096).withGraceMillis(0));
        Counter c = RuntimeEvents.counter("reuse");
        EventCursor cursor = EventCursor.openCurrent();
        Recorded r = new Recorded();
        List<Long> tids = new ArrayList<>();
        EventCursor.Callbacks byThread = new EventCursor.Callbacks() {
            @Override
            public void counter(long tid, long ts, String name, long value) {
                tids.add(tid);
            }
        };
        Thread a = new Thread(() -> c.set(1), "writer-a");
        a.start();
        a.join();
        assertThat(cursor.poll(byThread)).isEqualTo(1);
        RuntimeEvents.reapOnce(); // retires a's slot and, with no grace, frees it
        Thread b = new Thread(() -> c.set(2), "writer-b");
        b.start();
        b.join();
        Thread d = new Thread(() -> c.set(3), "writer-d");
        d.start();
        d.join();
        assertThat(cursor.poll(byThread)).isEqualTo(2);
        assertThat(tids).containsExactly(a.getId(), b.getId(), d.getId());
        assertThat(cursor.threadName(b.getId())).isEqualTo("writer-b");
        RuntimeEvents.stop();
        // With a long grace period a dead thread's slot is not handed out again.
        RuntimeEvents.start(settings(4096).withGraceMillis(60_000).withSlots(1));
        Thread e = new Thread(() -> c.set(4), "writer-e");
        e.start();
        e.join();
        RuntimeEvents.reapOnce();
        Thread f = new Thread(() -> c.set(5), "writer-f");
        f.start();
        f.join();
        Recorded r2 = new Recorded();
        try (EventCursor c2 = EventCursor.openCurrent()) {
            c2.poll(r2);
            assertThat(r2.values).containsExactly(4L);
            assertThat(c2.producerDropped()).isEqualTo(1);
        }
        assertThat(r.lines).isEmpty();
    }

    @Test
    void fileIsRemovedAtStopUnlessPreserved() {
        RuntimeEvents.start(settings(4096).withPreserve(false));
        Path f = RuntimeEvents.file();
        assertThat(f).exists();
        RuntimeEvents.stop();
        assertThat(f).doesNotExist();
        RuntimeEvents.start(settings(4096));
        Path g = RuntimeEvents.file();
        RuntimeEvents.stop();
        assertThat(g).exists();
        try (EventCursor c = EventCursor.open(g)) {
            assertThat(c.producerClosed()).isTrue();
        }
    }

    /**
     * A reader that opens a ring file while its producer writes the header sees "not ready" (or "truncated", before
     * the mapping grew the file), retries, and opens it: never "not a memscope events file". Regression: the reader
     * read the magic before the ready word, so a header completed between the two reads looked foreign and the CLI
     * dropped the file for good (an empty trace).
     */
    @Test
    void aReaderRacingTheHeaderWriteNeverSeesAForeignFile() throws Exception {
        EventsSettings s = settings(4096);
        for (int round = 0; round < 200; round++) {
            long pid = 1_000_000 + round;
            Path file = s.directory().resolve(pid + ".events");
            Thread producer = new Thread(() -> EventsFile.create(s, pid, java.util.List.of()));
            producer.start();
            boolean opened = false;
            while (!opened) {
                try (EventCursor c = EventCursor.open(file)) {
                    assertThat(c.pid()).isEqualTo(pid);
                    opened = true;
                } catch (io.memscope.error.MemscopeException notYet) { // no such file yet, or not ready
                    if (notYet instanceof CorruptFileException) {
                        assertThat(notYet.getMessage()).containsAnyOf("not ready", "truncated");
                    }
                    Thread.onSpinWait();
                }
            }
            producer.join();
            Files.delete(file);
        }
    }

    @Test
    void badFilesGiveClearErrors() throws Exception {
        Path foreign = tmp.resolve("foreign.events");
        Files.write(foreign, "GIF89a not a ring file ".repeat(400).getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> EventCursor.open(foreign)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("not a memscope events file");
        Path zeros = tmp.resolve("zeros.events");
        Files.write(zeros, new byte[8192]);
        assertThatThrownBy(() -> EventCursor.open(zeros)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("not ready");
        Path small = tmp.resolve("small.events");
        Files.write(small, new byte[100]);
        assertThatThrownBy(() -> EventCursor.open(small)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("truncated");
        RuntimeEvents.start(settings(4096));
        RuntimeEvents.counter("x").set(1);
        byte[] image = Files.readAllBytes(RuntimeEvents.file());
        byte[] v2 = image.clone();
        v2[RingLayout.H_VERSION] = 2;
        assertThatThrownBy(() -> EventCursor.of(tmp, ByteBuffer.wrap(v2))).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("unsupported events format version 2");
        byte[] cut = java.util.Arrays.copyOf(image, image.length - 100);
        assertThatThrownBy(() -> EventCursor.of(tmp, ByteBuffer.wrap(cut))).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> EventCursor.open(tmp.resolve("none.events")))
                .hasMessageContaining("no events file");
    }

    @Test
    void disabledWritesAllocateNothing() {
        RuntimeEvents.stop();
        Span s = RuntimeEvents.span("off.span");
        Counter c = RuntimeEvents.counter("off.counter");
        UserEvent<Integer> u = RuntimeEvents.register("off.int", EventType.INT);
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        for (int warm = 0; warm < 3; warm++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 1_000_000; i++) {
                s.begin();
                c.set(i);
                u.writeInt(i);
                s.end();
            }
            long after = mx.getThreadAllocatedBytes(tid);
            if (warm == 2) {
                // getThreadAllocatedBytes itself may allocate a little; 4 million writes must not add to it
                assertThat(after - before).isLessThan(1024);
            }
        }
    }

    @Test
    void enabledWritesOfBuiltinKindsAllocateNothing() {
        RuntimeEvents.start(settings(65536));
        Span s = RuntimeEvents.span("on.span");
        Counter c = RuntimeEvents.counter("on.counter");
        UserEvent<Integer> u = RuntimeEvents.register("on.int", EventType.INT);
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long delta = 0;
        for (int warm = 0; warm < 3; warm++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 200_000; i++) {
                s.begin();
                c.set(i);
                u.writeInt(i);
                s.end();
            }
            delta = mx.getThreadAllocatedBytes(tid) - before;
        }
        assertThat(delta).isLessThan(1024);
    }
}
