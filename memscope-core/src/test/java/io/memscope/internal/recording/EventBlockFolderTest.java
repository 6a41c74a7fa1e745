package io.memscope.internal.recording;

import io.memscope.MemoryEventType;
import io.memscope.recording.Damage;
import io.memscope.recording.EventView;
import io.memscope.recording.RecordingReader;
import io.memscope.recording.RecordingReader.EventFold;
import io.memscope.recording.RecordingVisitor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EventBlockFolder} with no worker (the reading thread scans every block), one and three: the parts merged
 * hold exactly the events a read in file order delivers (order-independent sums of every event's type, timestamp and
 * site), the damage is the same, and {@link EventFold#firstEvents} comes once, before any part.
 */
class EventBlockFolderTest {
    @Test
    void everyWorkerCountFoldsTheEventsOfAReadInOrder(@TempDir Path dir) throws Exception {
        Path sound = dir.resolve("sound.msrec");
        write(sound);
        byte[] bytes = Files.readAllBytes(sound);
        List<int[]> events = eventBlocks(bytes);
        assertThat(events.size()).isGreaterThan(100);
        Path bad = dir.resolve("malformed.msrec");
        Files.write(bad, malformed(malformed(bytes, events.get(events.size() * 2 / 3)), events.get(events.size() / 3)));
        Path corrupt = dir.resolve("corrupt.msrec");
        byte[] c = bytes.clone();
        c[events.get(events.size() / 2)[0] + 20] ^= 0x21;
        Files.write(corrupt, c);
        for (Path file : List.of(sound, bad, corrupt)) {
            Sums inOrder = new Sums();
            Optional<Damage> expected = RecordingReader.stream(file, new RecordingVisitor() {
                @Override
                public void accept(EventView e) {
                    inOrder.add(e.type(), e.timestampNanos(), e.siteId());
                }
            });
            for (int workers : new int[] {0, 1, 3}) {
                Fold fold = new Fold();
                Optional<Damage> damage;
                try (EventBlockFolder<Sums> folder = new EventBlockFolder<>(fold, workers)) {
                    damage = new RecordingParser(file, new RecordingVisitor() {
                        @Override
                        public void accept(EventView e) {
                            throw new AssertionError("an event delivered to the visitor");
                        }
                    }).foldEvents(folder).run();
                }
                assertThat(damage).as(file.getFileName() + ", " + workers + " workers").isEqualTo(expected);
                assertThat(fold.total).as(file.getFileName() + ", " + workers + " workers").isEqualTo(inOrder);
                assertThat(fold.firstEvents).isEqualTo(1);
            }
        }
    }

    /** Order-independent sums of the events. */
    static final class Sums implements EventFold.Part {
        long count;
        long typeSum;
        long timeSum;
        long siteSum;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;

        @Override
        public void add(MemoryEventType type, long t, int siteId) {
            count++;
            typeSum += type.code() * 31L + 1;
            timeSum += t;
            siteSum += siteId * 7L;
            min = Math.min(min, t);
            max = Math.max(max, t);
        }

        void add(Sums o) {
            count += o.count;
            typeSum += o.typeSum;
            timeSum += o.timeSum;
            siteSum += o.siteSum;
            min = Math.min(min, o.min);
            max = Math.max(max, o.max);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Sums s && s.count == count && s.typeSum == typeSum && s.timeSum == timeSum
                    && s.siteSum == siteSum && s.min == min && s.max == max;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(count ^ timeSum);
        }

        @Override
        public String toString() {
            return count + " events, types " + typeSum + ", times " + timeSum + ", sites " + siteSum + ", " + min
                    + ".." + max;
        }
    }

    private static final class Fold implements EventFold<Sums> {
        final Sums total = new Sums();
        int firstEvents;

        @Override
        public void firstEvents() {
            firstEvents++;
        }

        @Override
        public Sums part() {
            assertThat(firstEvents).as("parts are made after the first events are reached").isEqualTo(1);
            return new Sums();
        }

        @Override
        public void merge(Sums part) {
            total.add(part);
        }
    }

    private static void write(Path file) {
        SplittableRandom r = new SplittableRandom(3);
        try (RecordingWriter w = RecordingWriter.builder(file).clock(1L << 60, 1_000_000_000L).process(1, 0)
                .maxEventsPerBlock(300).open()) {
            int thread = w.strings().intern("t");
            int type = w.strings().intern("byte[]");
            for (int s = 1; s <= 50; s++) {
                w.site(s, "C" + s, "m", "C.java", s, "byte[]");
                w.stack(s, List.of("C" + s + ".m(C.java:1)"));
            }
            long t = 1_000_000_000L;
            for (int i = 0; i < 60_000; i++) {
                t += r.nextLong(100_000) - 10_000;
                int s = 1 + r.nextInt(50);
                w.accept(t, MemoryEventType.ofCode(r.nextInt(3)), r.nextLong(), 16 + r.nextInt(64), 0,
                        1 + r.nextInt(4), thread, 0, r.nextBoolean() ? type : 0, s, s);
                if (i % 20_000 == 19_999) {
                    w.flush();
                    w.gc(t, 1000, "Young", "Allocation Failure", 2, 1, 4);
                }
            }
        }
    }

    /** @return {offset, payload length} of each top-level EVENTS block */
    private static List<int[]> eventBlocks(byte[] b) {
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        List<int[]> out = new ArrayList<>();
        for (int at = RecordingFormat.HEADER_BYTES; at + 12 <= b.length; at += 12 + bb.getInt(at + 4)) {
            if (b[at] == BlockType.EVENTS.code) {
                out.add(new int[] {at, bb.getInt(at + 4)});
            }
        }
        return out;
    }

    /** @return {@code bytes} with the block's last payload byte a continuation byte, its CRC made to match */
    private static byte[] malformed(byte[] bytes, int[] block) {
        byte[] b = bytes.clone();
        int payload = block[0] + 12;
        b[payload + block[1] - 1] |= (byte) 0x80;
        CRC32C crc = new CRC32C();
        crc.update(b, block[0], 8);
        crc.update(b, payload, block[1]);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(block[0] + 8, (int) crc.getValue());
        return b;
    }
}
