package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.analysis.ReportFiles;
import io.memscope.internal.recording.RecordingWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

/** {@code memscope run}'s reports built while the command runs: which ones, and when one must be built again. */
class ReportsDuringRunTest {
    private static final long EPOCH = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z

    /** A recording of {@code events} allocations in {@code dir}, closed unless {@code close} is false. */
    private static RecordingWriter record(Path dir, int events, boolean close) throws Exception {
        Files.createDirectories(dir);
        RecordingWriter w = RecordingWriter.builder(dir.resolve(ReportFiles.RECORDING)).clock(EPOCH, 1_000)
                .process(4242, 0).open();
        w.metadata("mode", "exact");
        w.site(3, "com.example.Cache", "put", "Cache.java", 42, "byte[]");
        int main = w.strings().intern("main");
        int type = w.strings().intern("byte[]");
        for (int i = 0; i < events; i++) {
            w.accept(1_000 + i * 1_000L, MemoryEventType.ALLOCATE, 0x1000 + i, 64, 0, 1, main, 0, type, 0, 3);
        }
        if (close) {
            w.close();
        } else {
            w.flush();
        }
        return w;
    }

    private static void awaitFile(Path f) {
        await("the report built during the run: " + f).atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20)).until(() -> Files.exists(f));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aClosedRecordingIsBuiltEarlyAnOpenOneAndOneFromBeforeTheRunAreNot(@TempDir Path out) throws Exception {
        Path old = out.resolve("100");
        record(old, 10, true);
        Path closed = out.resolve("200");
        Path open = out.resolve("300");
        RecordingWriter stillWriting = null;
        ReportsDuringRun early = new ReportsDuringRun(out, List.of(old));
        try {
            record(closed, 10, true);
            stillWriting = record(open, 10, false);
            awaitFile(closed.resolve(ReportFiles.REPORT_JSON));
        } finally {
            early.close();
        }
        try {
            Reports.Built built = early.take(closed);
            assertThat(built).isNotNull();
            assertThat(built.summary()).contains("10");
            assertThat(built.error()).isNull();
            assertThat(early.take(closed)).as("handed over once").isNull();
            assertThat(early.take(open)).as("not closed: built at the end").isNull();
            assertThat(early.take(old)).as("from before the run").isNull();
            assertThat(old.resolve(ReportFiles.REPORT_JSON)).doesNotExist();
            assertThat(open.resolve(ReportFiles.REPORT_JSON)).doesNotExist();
        } finally {
            stillWriting.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRecordingWrittenAgainAfterItsEarlyReportIsBuiltAgainAtTheEnd(@TempDir Path out) throws Exception {
        Path d = out.resolve("200");
        ReportsDuringRun early = new ReportsDuringRun(out, List.of());
        try {
            record(d, 10, true);
            awaitFile(d.resolve(ReportFiles.REPORT_JSON));
        } finally {
            early.close();
        }
        record(d, 500, true); // another capture of the same JVM wrote the file again
        assertThat(early.take(d)).as("stale: the caller builds it").isNull();
    }
}
