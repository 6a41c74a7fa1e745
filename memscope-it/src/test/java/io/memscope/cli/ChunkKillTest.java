package io.memscope.cli;

import io.memscope.recording.RecordingReader.ChunkSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.RecordingReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.ChunkedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chunked recording whose JVM is killed with {@code kill -9} while a chunk is written: the chunks before it are
 * closed, the one being written is read to its last complete block, and the folder's report says so.
 */
class ChunkKillTest {
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void theChunksBeforeTheKillAreClosedAndTheLastIsReadToItsLastBlock(@TempDir Path out) throws Exception {
        CliRun r = CliRun.run("run", "--out", out.toString(), "--interval", "16k", "--agent-option",
                "chunkSize=256k", "--agent-option", "flush=100", "--", Jvms.current(), "-Xmx256m", "-cp",
                Jvms.classPath(ChunkedFixture.class), ChunkedFixture.class.getName(), "recording-000004.msrec", "0",
                "kill");
        assertThat(r.exit).as("killed by SIGKILL").isEqualTo(128 + 9);
        assertThat(r.out).contains("the recording was not closed");
        List<Path> dirs = Reports.recordingDirs(out);
        assertThat(dirs).hasSize(1);
        ChunkSet set = ChunkSet.of(dirs.get(0));
        assertThat(set.firstIndex()).isEqualTo(1);
        assertThat(set.count()).isGreaterThanOrEqualTo(4);
        List<Path> files = set.files();
        for (int i = 0; i < files.size() - 1; i++) {
            assertThat(RecordingReader.isClosed(files.get(i))).as(files.get(i) + " closed").isTrue();
        }
        Path last = files.get(files.size() - 1);
        assertThat(RecordingReader.isClosed(last)).as(last + " being written when killed").isFalse();
        assertThat(RecordingReader.read(last).damage()).isPresent();

        Object report = Jvms.report(out);
        Map<String, Object> recording = Json.obj(report, "recording");
        assertThat(recording.get("closed")).isEqualTo(false);
        assertThat((String) Json.obj(recording, "damage").get("what")).contains("without an END block");
        assertThat(Json.num(Json.obj(recording, "chunks"), "count")).isEqualTo(set.count());
        assertThat(Json.num(Json.obj(recording, "chunks"), "deleted")).isZero();
        String retained = "memscope.fixtures.ChunkedFixture.main(ChunkedFixture.java:"
                + Jvms.lineOf("memscope/fixtures/ChunkedFixture.java", "CHUNKED-RETAINED") + ")";
        assertThat(Jvms.sites(report, "topAllocationSites")).contains(retained);
        assertThat(Files.readString(Jvms.summaryFile(out))).contains("chunks 1-" + set.lastIndex());
    }
}
