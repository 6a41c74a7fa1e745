package io.memscope.recording;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEvent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real JVM records into an {@code EventStore} and drains it into a recording in a loop until it is killed with
 * {@code destroyForcibly}: the recording still gives back every event of every complete block, and those are
 * exactly the first events of each recording thread.
 */
class KilledStoreDrainerTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    void killedWhileDrainingKeepsEveryEventBeforeTheLastCompleteBlock() throws Exception {
        Path file = dir.resolve("killed-store.msrec");
        long[] flushed = {0};
        KilledChild.runUntilKilled("256m", KilledStoreDrainerMain.class, file, line -> {
            if (line.startsWith("DRAINED ")) {
                String[] parts = line.split(" ");
                flushed[0] = Long.parseLong(parts[1]);
                assertThat(Long.parseLong(parts[3])).as("dropped").isZero();
            }
            return flushed[0] >= 60_000;        // mid-way: recording threads and the drain loop are running
        });
        assertThat(flushed[0]).as("the child announced its progress").isGreaterThanOrEqualTo(60_000);

        Recording rec = RecordingReader.read(file);
        assertThat(rec.damage()).as("a killed writer leaves no END block").isPresent();
        assertThat(rec.totals()).isEmpty();
        assertThat(rec.metadata()).containsEntry("purpose", "killed store drainer test");
        assertThat(rec.sites()).hasSize(StoreToRecordingTest.SITES);
        assertThat((long) rec.eventCount()).as("every event flushed before the kill").isGreaterThanOrEqualTo(flushed[0]);

        // Each thread's events in the file are its first n events, complete and in order: nothing lost before
        // the damage, nothing half-written.
        Map<String, Integer> workerOf = new HashMap<>();
        for (int w = 0; w < 3; w++) {
            workerOf.put(StoreToRecordingTest.Expected.threadName(w), w);
        }
        long[] next = new long[3];
        long[] lastTimestamp = {Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE};
        for (int i = 0; i < rec.eventCount(); i++) {
            MemoryEvent e = rec.event(i);
            Integer w = workerOf.get(e.threadName());
            assertThat(w).as("thread name %s", e.threadName()).isNotNull();
            MemoryEvent expected = StoreToRecordingTest.expectedEvent(w, next[w]++, e.timestampNanos(),
                    e.threadId());
            if (!e.equals(expected)) {
                assertThat(e).as("event %d", i).isEqualTo(expected);
            }
            assertThat(e.timestampNanos()).isGreaterThanOrEqualTo(lastTimestamp[w]);
            lastTimestamp[w] = e.timestampNanos();
        }
        assertThat(next[0] + next[1] + next[2]).isEqualTo(rec.eventCount());
        long size = Files.size(file);
        assertThat(rec.damage().get().offset()).as("the damage is where the complete blocks end")
                .isBetween(size - 4096 - 1024, size);
        System.out.println("killed store drainer: " + rec.eventCount() + " events read (" + flushed[0]
                + " announced), per thread " + next[0] + "/" + next[1] + "/" + next[2] + ", " + size
                + " bytes, damage: " + rec.damage().get().message());
    }
}
