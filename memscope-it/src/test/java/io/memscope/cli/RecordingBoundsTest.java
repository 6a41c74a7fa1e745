package io.memscope.cli;

import io.memscope.recording.RecordingReader.ChunkSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.memscope.recording.RecordingReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import memscope.fixtures.ChunkedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded recording under {@code memscope run --max-size} / {@code --max-age}: written in chunks, the oldest
 * deleted, the folder never above the bound and one chunk (polled while the JVM runs); the report covers the chunks
 * left, says so, and still holds what was allocated before them and is still held (carried from chunk to chunk).
 */
class RecordingBoundsTest {
    private static final long MIB = 1 << 20;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void maxSizeHoldsTheFolderWithinTheBoundAndTheReportSaysTheSpan(@TempDir Path out) throws Exception {
        long max = 4 * MIB;
        AtomicLong largest = new AtomicLong();
        AtomicLong largestChunk = new AtomicLong();
        CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.run("run", "--out",
                out.toString(), "--interval", "16k", "--max-size", "4m", "--", Jvms.current(), "-Xmx256m", "-cp",
                Jvms.classPath(ChunkedFixture.class), ChunkedFixture.class.getName(), "recording-000012.msrec",
                "4"));
        await("the run to end").atMost(Duration.ofSeconds(200)).pollInterval(Duration.ofMillis(20)).until(() -> {
            largest.accumulateAndGet(folderBytes(out, largestChunk), Math::max);
            return run.isDone();
        });
        CliRun r = run.join();
        assertThat(r.exit).as(r.err).isZero();
        // the bound, plus the chunk being written (closed at the first drain past chunkSize: its head, the carried
        // state, and one flush period of events more)
        assertThat(largest.get()).as("largest folder seen while the JVM ran").isPositive()
                .isLessThanOrEqualTo(max + largestChunk.get());
        assertThat(largestChunk.get()).as("a chunk: maxSize/8 and what one rotation point adds").isLessThan(max);
        Path dir = jvmDir(out);
        assertThat(Files.exists(dir.resolve("recording.msrec"))).as("chunk 1 deleted").isFalse();
        ChunkSet set = ChunkSet.of(dir);
        assertThat(set.firstIndex()).isGreaterThan(1);
        assertThat(set.deleted()).isEqualTo(set.firstIndex() - 1);

        Object report = Jvms.report(out);
        Map<String, Object> chunks = Json.obj(report, "recording", "chunks");
        assertThat(Json.num(chunks, "firstIndex")).isEqualTo(set.firstIndex());
        assertThat(Json.num(chunks, "lastIndex")).isEqualTo(set.lastIndex());
        assertThat(Json.num(chunks, "deleted")).isEqualTo(set.deleted());
        assertThat(((Number) chunks.get("coveredFromMs")).doubleValue()).isPositive();
        Map<String, Object> window = Json.obj(report, "window");
        assertThat(((Number) window.get("fromMs")).doubleValue())
                .isEqualTo(((Number) chunks.get("coveredFromMs")).doubleValue());
        assertThat(Json.obj(report, "recording").get("closed")).isEqualTo(true);
        String summary = Files.readString(Jvms.summaryFile(out));
        assertThat(summary).containsPattern("covers [0-9.]+ s to [0-9.]+ s of the run \\(chunks " + set.firstIndex()
                + "-" + set.lastIndex() + "; " + set.deleted() + " older deleted by the recording's bounds\\)");
        // the 32 MiB kept from the first second on, allocated in a deleted chunk: carried, still held at the end
        Map<String, Object> totals = Json.obj(report, "totals");
        assertThat(Json.num(totals, "heldAtEndBytes")).as("held at the end, carried from deleted chunks")
                .isGreaterThan(24 * MIB);
        String retained = "memscope.fixtures.ChunkedFixture.main(ChunkedFixture.java:"
                + Jvms.lineOf("memscope/fixtures/ChunkedFixture.java", "CHUNKED-RETAINED") + ")";
        assertThat(Jvms.sites(report, "topLiveSites")).contains(retained);
        assertThat(Jvms.sites(report, "topAllocationSites")).as("allocated before the span: not in its figures")
                .doesNotContain(retained);
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void maxAgeDeletesTheChunksThatEndedBeforeIt(@TempDir Path out) throws Exception {
        CliRun r = CliRun.run("run", "--out", out.toString(), "--interval", "64k", "--max-age", "3s", "--",
                Jvms.current(), "-Xmx256m", "-cp", Jvms.classPath(ChunkedFixture.class),
                ChunkedFixture.class.getName(), "recording-000006.msrec", "6");
        assertThat(r.exit).as(r.err).isZero();
        Path dir = jvmDir(out);
        ChunkSet set = ChunkSet.of(dir);
        assertThat(set.deleted()).as("chunks older than 3 s deleted").isPositive();
        Object report = Jvms.report(out);
        Map<String, Object> chunks = Json.obj(report, "recording", "chunks");
        assertThat(Json.num(chunks, "deleted")).isEqualTo(set.deleted());
        assertThat(Files.readString(Jvms.summaryFile(out))).contains("older deleted by the recording's bounds");
        assertThat(Json.num(Json.obj(report, "totals"), "heldAtEndBytes")).isGreaterThan(24 * MIB);
    }

    private static Path jvmDir(Path out) throws Exception {
        List<Path> dirs = Reports.recordingDirs(out);
        assertThat(dirs).hasSize(1);
        return dirs.get(0);
    }

    /** @return bytes of the recording's chunks under {@code out} now (files may vanish while listed) */
    private static long folderBytes(Path out, AtomicLong largestChunk) {
        long total = 0;
        try (Stream<Path> s = Files.walk(out)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (p.getFileName().toString().endsWith(".msrec")) {
                    try {
                        long size = Files.size(p);
                        total += size;
                        largestChunk.accumulateAndGet(size, Math::max);
                    } catch (java.io.IOException gone) {
                        // deleted while listed
                    }
                }
            }
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return 0;
        }
        return total;
    }
}
