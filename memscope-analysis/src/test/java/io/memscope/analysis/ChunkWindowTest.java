package io.memscope.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.memscope.MemoryEventType;
import io.memscope.internal.recording.ChunkPolicy;
import io.memscope.recording.RecordingReader.ChunkSet;
import io.memscope.internal.recording.RecordingWriter;
import io.memscope.recording.GcRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A report's window over a chunked recording reads only the chunks it needs ({@link ChunkWindow}): the chunks wholly
 * before it are not read (the first chunk read carries their state), those wholly after it neither, and every figure
 * is the one a read of every chunk gives.
 */
class ChunkWindowTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long START = 1_000 * SECOND;
    private static final int SITES = 40;

    @Test
    void aWindowReadsTheChunksItNeedsAndGivesTheFiguresOfAWholeRead(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("run");
        java.nio.file.Files.createDirectories(folder);
        write(folder.resolve("recording.msrec"), 120);
        ChunkSet all = ChunkSet.of(folder);
        assertThat(all.count()).as("a chunk every 5 s of the 120 s run").isGreaterThanOrEqualTo(20);

        TimeWindow middle = new TimeWindow(40.0, 70.0);
        Report some = ReportBuilder.build(folder, middle);
        Report whole = ReportBuilder.build(RecordedRun.open(folder, middle, false), middle);
        Report.Chunks read = some.recording().chunks();
        assertThat(read.skippedBefore()).as("chunks wholly before 40 s").isGreaterThanOrEqualTo(6);
        assertThat(read.skippedAfter()).as("chunks wholly after 70 s + 10 s").isGreaterThanOrEqualTo(6);
        assertThat(read.count() + read.skippedBefore() + read.skippedAfter()).isEqualTo(all.count());
        assertThat(whole.recording().chunks().skippedBefore()).isZero();
        assertThat(figures(some)).isEqualTo(figures(whole));
        assertThat(some.totals().allocatedBytes()).as("the window allocated").isPositive();

        TimeWindow last = new TimeWindow(null, null, 20.0);
        Report lastSome = ReportBuilder.build(folder, last);
        Report lastWhole = ReportBuilder.build(RecordedRun.open(folder, last, false), last);
        assertThat(lastSome.recording().chunks().skippedBefore()).as("--last 20s: the first 95 s not read")
                .isGreaterThanOrEqualTo(15);
        assertThat(lastSome.recording().chunks().skippedAfter()).isZero();
        assertThat(figures(lastSome)).isEqualTo(figures(lastWhole));
    }

    /**
     * The report's JSON without its record of what was read: the events and chunks read, the metadata (the last
     * chunk read's: its index and start; the run's end is written in the last chunk), and the example stack of each
     * site (the first one met in what was read). Every figure stays.
     */
    private static JsonNode figures(Report r) throws Exception {
        ObjectNode json = (ObjectNode) new ObjectMapper().readTree(ReportJson.toJson(r));
        json.remove("recording");
        json.remove("metadata");
        withoutStacks(json);
        return json;
    }

    private static void withoutStacks(JsonNode n) {
        if (n instanceof ObjectNode o) {
            if (o.has("site") && o.has("stack")) {
                o.remove("stack");
            }
            o.elements().forEachRemaining(ChunkWindowTest::withoutStacks);
        } else if (n.isArray()) {
            n.elements().forEachRemaining(ChunkWindowTest::withoutStacks);
        }
    }

    /**
     * {@code seconds} of a sampled heap: a sample every 2 ms from {@value #SITES} sites (three stacks each, one site
     * leaking), a young collection every second that frees 95% of what was allocated since the previous one, a
     * whole-heap collection every 10 s that frees half of the rest; a new chunk every 5 s.
     */
    private static void write(Path file, int seconds) {
        SplittableRandom r = new SplittableRandom(7);
        ChunkPolicy policy = ChunkPolicy.of(0, 0, ChunkPolicy.MIN_CHUNK_BYTES, Long.MAX_VALUE);
        try (RecordingWriter w = RecordingWriter.builder(file).clock(1_767_225_600_000_000_000L, START)
                .process(77, 0).chunks(policy).open()) {
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
            for (int s = 1; s <= SITES; s++) {
                define(w, s);
                for (int k = 0; k < 3; k++) {
                    w.stack(s * 10L + k, frames(s * 10L + k));
                }
            }
            List<long[]> young = new ArrayList<>();
            List<long[]> old = new ArrayList<>();
            long t = START;
            long end = START + seconds * SECOND;
            long nextGc = START + SECOND;
            long nextChunk = START + 5 * SECOND;
            long id = 1;
            while (t < end) {
                t += 1 + r.nextLong(4_000_000);
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
                    t = Math.max(t, at + 1);
                }
                if (t >= nextChunk) {
                    w.flush();
                    w.rotate(defs);
                    nextChunk += 5 * SECOND;
                }
                int site = 1 + (int) Math.min(SITES - 1, Math.floor(Math.pow(r.nextDouble(), 2) * SITES));
                if (r.nextInt(50) == 0) {
                    site = SITES;
                }
                long size = 16 + r.nextInt(1 << (4 + r.nextInt(12)));
                long[] s = {id++, site, site * 10L + r.nextInt(3), size, t};
                w.accept(t, MemoryEventType.ALLOCATE, s[0], size, 0, 1, thread, 0, 0, s[2], site);
                young.add(s);
            }
            w.metadata("endNanos", Long.toString(t));
        }
    }

    private static void define(RecordingWriter w, int s) {
        w.site(s, "com.example.Service" + s, "call", "Service" + s + ".java", 10 + s, "byte[]");
    }

    private static List<String> frames(long stack) {
        return List.of("com.example.Service" + stack / 10 + ".call(Service" + stack / 10 + ".java:1)",
                "com.example.Handler" + stack % 10 + ".handle(Handler.java:" + stack + ")");
    }

    private static void free(RecordingWriter w, long[] s, long at, int thread) {
        w.accept(at, MemoryEventType.DEALLOCATE, s[0], s[3], at - s[4], 1, thread, 0, 0, 0, (int) s[1]);
    }
}
