package io.memscope.analysis;

import io.memscope.MemoryEventType;
import io.memscope.internal.recording.ChunkPolicy;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.recording.GcRecord;
import io.memscope.recording.RecordingReader.ChunkSet;
import io.memscope.recording.Site;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replay's held half on a thread of its own gives the report of the serial replay, byte for byte
 * ({@link ReportReplay}, {@link HeldReplay}): on a recording long enough for many batches, with heap sites (one
 * leaking), direct buffers (native events that cross collections' boundaries without a heap event), untracked samples
 * and site types learnt from the events; over the whole run, a window, the last seconds, and a chunked recording of
 * which a window reads only some chunks.
 */
class ReplayHalvesTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long START = 1_000 * SECOND;
    private static final int SITES = 60;
    /** The direct buffers' site. */
    private static final int NATIVE = SITES + 1;

    @Test
    void theParallelReplayGivesTheSerialReport(@TempDir Path dir) {
        Path file = dir.resolve("run.msrec");
        write(file, 90, false);
        for (TimeWindow w : List.of(TimeWindow.ALL, new TimeWindow(20.0, 55.5), new TimeWindow(null, null, 30.0),
                new TimeWindow(89.9, null))) {
            String serial = ReportJson.toJson(ReportBuilder.build(RecordedRun.open(file, w), w, false));
            String parallel = ReportJson.toJson(ReportBuilder.build(RecordedRun.open(file, w), w, true));
            assertThat(parallel).as("window %s", w).isEqualTo(serial);
        }
        Report r = ReportBuilder.build(file);
        assertThat(r.totals().allocatedBytes()).isPositive();
        assertThat(r.leakSuspects()).as("the leaking site is found by both").isNotEmpty();
        assertThat(r.nativeMemory().outstandingBytes()).as("direct buffers outstanding").isPositive();
    }

    @Test
    void theParallelReplayGivesTheSerialReportOfSomeChunks(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("run");
        Files.createDirectories(folder);
        write(folder.resolve("recording.msrec"), 90, true);
        assertThat(ChunkSet.of(folder).count()).isGreaterThanOrEqualTo(10);
        for (TimeWindow w : List.of(TimeWindow.ALL, new TimeWindow(30.0, 60.0), new TimeWindow(null, null, 20.0))) {
            String serial = ReportJson.toJson(ReportBuilder.build(RecordedRun.open(folder, w), w, false));
            String parallel = ReportJson.toJson(ReportBuilder.build(RecordedRun.open(folder, w), w, true));
            assertThat(parallel).as("window %s", w).isEqualTo(serial);
        }
    }

    @Test
    void theHeldHalfsThreadEndsWithTheReport(@TempDir Path dir) {
        Path file = dir.resolve("run.msrec");
        write(file, 5, false);
        ReportBuilder.build(RecordedRun.open(file, TimeWindow.ALL), TimeWindow.ALL, true);
        assertThat(Thread.getAllStackTraces().keySet()).as("no held half's thread left running")
                .noneMatch(t -> t.getName().equals("memscope-held") && t.isAlive());
    }

    /**
     * {@code seconds} of a sampled heap: a sample about every 0.5 ms from {@value #SITES} sites (three stacks each;
     * the last heap site leaking; every 97th sample untracked; some sites without a type, learnt from the events), a
     * young collection every second freeing 95% of what was allocated since the previous one, a whole-heap collection
     * every 10 s freeing half of the rest; direct buffers allocated and freed; chunks of 5 s when {@code chunked}.
     */
    private static void write(Path file, int seconds, boolean chunked) {
        SplittableRandom r = new SplittableRandom(11);
        io.memscope.internal.recording.RecordingWriterBuilder b = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, START)
                .process(77, 0);
        if (chunked) {
            b = b.chunks(ChunkPolicy.of(0, 0, ChunkPolicy.MIN_CHUNK_BYTES, Long.MAX_VALUE));
        }
        try (RecordingWriter w = b.open()) {
            RecordingWriter.ChunkDefinitions defs = (writer, siteIds, stackIds, stacksDefined) -> {
                for (int s : siteIds) {
                    define(writer, s);
                }
                for (long k : stackIds) {
                    writer.stack(k, frames(k));
                }
            };
            w.metadata("mode", "sample");
            w.metadata("intervalBytes", Long.toString(512 * 1024));
            w.metadata("startNanos", Long.toString(START));
            int thread = w.strings().intern("worker");
            int[] types = {w.strings().intern("byte[]"), w.strings().intern("java.lang.String")};
            for (int s = 1; s <= NATIVE; s++) {
                define(w, s);
                for (int k = 0; k < 3; k++) {
                    w.stack(s * 10L + k, frames(s * 10L + k));
                }
            }
            List<long[]> young = new ArrayList<>();
            List<long[]> old = new ArrayList<>();
            List<long[]> buffers = new ArrayList<>();
            long t = START;
            long end = START + seconds * SECOND;
            long nextGc = START + SECOND;
            long nextChunk = START + 5 * SECOND;
            long id = 1;
            long address = 0x7f00_0000_0000L;
            while (t < end) {
                t += 1 + r.nextLong(1_000_000);
                if (t >= nextGc) {
                    boolean whole = (nextGc - START) % (10 * SECOND) == 0;
                    long at = nextGc + 2_000_000;
                    for (long[] s : young) {
                        if (s[1] == SITES || r.nextInt(100) >= 95) {
                            old.add(s);
                        } else {
                            free(w, s, at, thread);
                        }
                    }
                    young.clear();
                    if (whole) {
                        List<long[]> kept = new ArrayList<>();
                        for (long[] s : old) {
                            if (s[1] == SITES || r.nextBoolean()) {
                                kept.add(s);
                            } else {
                                free(w, s, at, thread);
                            }
                        }
                        old = kept;
                    }
                    long heap = (old.size() + 64L) * 512 * 1024;
                    w.gc(nextGc, 2_000_000, whole ? "G1 Old Generation" : "G1 Young Generation", "Allocation Failure",
                            heap * 2, heap, 4L << 30, whole ? "end of major GC" : "end of minor GC",
                            whole ? GcRecord.Examined.WHOLE_HEAP : GcRecord.Examined.YOUNG, nextGc, nextGc);
                    nextGc += SECOND;
                    // a direct buffer right after the collection: a native event is the first to cross it
                    long size = 4096 + r.nextInt(65536);
                    long[] buf = {address += 1 << 20, size};
                    w.accept(at + 1, MemoryEventType.ALLOCATE, buf[0], size, 0, 1, thread, 0, 0, NATIVE * 10L, NATIVE);
                    buffers.add(buf);
                    if (buffers.size() > 3 && r.nextInt(3) > 0) {
                        long[] f = buffers.remove(r.nextInt(buffers.size()));
                        w.accept(at + 2, MemoryEventType.DEALLOCATE, f[0], f[1], 0, 1, thread, 0, 0, 0, NATIVE);
                    }
                    t = Math.max(t, at + 3);
                }
                if (chunked && t >= nextChunk) {
                    w.flush();
                    w.rotate(defs);
                    nextChunk += 5 * SECOND;
                }
                int site = 1 + (int) Math.min(SITES - 1, Math.floor(Math.pow(r.nextDouble(), 2) * SITES));
                if (r.nextInt(50) == 0) {
                    site = SITES;
                }
                long size = 16 + r.nextInt(1 << (4 + r.nextInt(12)));
                long sample = id++ % 97 == 0 ? ReportReplay.UNTRACKED : id;
                long[] s = {sample, site, site * 10L + r.nextInt(3), size, t};
                w.accept(t, MemoryEventType.ALLOCATE, s[0], size, 0, 1, thread, 0, types[site % 2], s[2], site);
                if (sample != ReportReplay.UNTRACKED) {
                    young.add(s);
                }
            }
            w.metadata("endNanos", Long.toString(t));
        }
    }

    private static void define(RecordingWriter w, int s) {
        String type = s == NATIVE ? Site.NATIVE_DIRECT : s % 5 == 0 ? null : "byte[]";
        w.site(s, "com.example.Service" + s, "call", "Service" + s + ".java", 10 + s, type);
    }

    private static List<String> frames(long stack) {
        return List.of("com.example.Service" + stack / 10 + ".call(Service" + stack / 10 + ".java:1)",
                "com.example.Handler" + stack % 10 + ".handle(Handler.java:" + stack + ")");
    }

    private static void free(RecordingWriter w, long[] s, long at, int thread) {
        w.accept(at, MemoryEventType.DEALLOCATE, s[0], s[3], at - s[4], 1, thread, 0, 0, 0, (int) s[1]);
    }
}
