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
 * Windows of a chunked recording: {@code report --last}, {@code --from/--to} across chunks cover the span asked
 * for; {@code export} and {@code diff} take {@code --last} too; every chunk after the first carries the
 * must-understand CONTINUED flag, which readers before format 1.6 reject.
 */
class LastWindowTest {
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void lastAndFromToSelectTheirSpanAcrossChunks(@TempDir Path out) throws Exception {
        CliRun r = CliRun.run("run", "--out", out.toString(), "--interval", "16k", "--agent-option",
                "chunkSize=256k", "--", Jvms.current(), "-Xmx256m", "-cp", Jvms.classPath(ChunkedFixture.class),
                ChunkedFixture.class.getName(), "recording-000006.msrec", "0");
        assertThat(r.exit).as(r.err).isZero();
        List<Path> dirs = Reports.recordingDirs(out);
        Path dir = dirs.get(0);
        ChunkSet set = ChunkSet.of(dir);
        assertThat(set.count()).isGreaterThanOrEqualTo(6);
        assertThat(set.deleted()).isZero();
        Object whole = Jvms.report(out);
        double end = ((Number) Json.obj(whole, "window").get("toMs")).doubleValue();
        assertThat(end).isGreaterThan(1000);

        Path last = out.resolve("last.json");
        assertThat(Main.execute("report", dir.toString(), "--last", "500ms", "--json", last.toString())).isZero();
        Map<String, Object> w = Json.obj(Json.parse(Files.readString(last)), "window");
        assertThat(((Number) w.get("toMs")).doubleValue()).isEqualTo(end);
        assertThat(((Number) w.get("fromMs")).doubleValue()).isCloseTo(end - 500, org.assertj.core.data.Offset
                .offset(0.002));
        assertThat(w.get("restricted")).isEqualTo(true);

        Path fromTo = out.resolve("fromto.json");
        double to = Math.floor(end / 1000 * 0.8 * 1000) / 1000;
        assertThat(Main.execute("report", dir.toString(), "--from", "0.5", "--to", Double.toString(to), "--json",
                fromTo.toString())).isZero();
        Object ft = Json.parse(Files.readString(fromTo));
        assertThat(((Number) Json.obj(ft, "window").get("fromMs")).doubleValue()).isEqualTo(500.0);
        assertThat(((Number) Json.obj(ft, "window").get("toMs")).doubleValue()).isCloseTo(to * 1000,
                org.assertj.core.data.Offset.offset(0.002));
        long wholeAllocated = Json.num(Json.obj(whole, "totals"), "allocatedBytes");
        long lastAllocated = Json.num(Json.obj(Json.parse(Files.readString(last)), "totals"), "allocatedBytes");
        long fromToAllocated = Json.num(Json.obj(ft, "totals"), "allocatedBytes");
        // (the last 500 ms may be the capture's end alone: its end check, its heap walk)
        assertThat(lastAllocated).as("the last 500 ms allocated less than the whole run").isLessThan(wholeAllocated);
        assertThat(fromToAllocated).as("0.5 s to 80% of the run: the churn").isPositive().isLessThan(wholeAllocated);

        Path pprof = out.resolve("last.pb.gz");
        assertThat(Main.execute("export", dir.toString(), "--format", "pprof", "--last", "500ms", "--output",
                pprof.toString())).isZero();
        assertThat(Files.size(pprof)).isPositive();

        // every chunk after the first: flag bit 0 (CONTINUED), a must-understand bit of the header's flags
        for (int i = 1; i < set.count(); i++) {
            byte[] head = Files.readAllBytes(set.files().get(i));
            assertThat(head[12] & 1).as(set.files().get(i) + " CONTINUED").isEqualTo(1);
            assertThat(RecordingReader.readHeader(set.files().get(i)).minorVersion()).isEqualTo(7);
        }
        assertThat(Files.readAllBytes(set.files().get(0))[12] & 1).as("chunk 1 stands as a 1.x file").isZero();
    }
}
