package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.memscope.MemoryEvent;
import io.memscope.recording.RecordingReader.ChunkSet;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.StackCycleFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chunked recording under a small stack table: the JVM sampler's stacks come back after the agent dropped their
 * text (written into an earlier chunk), and every chunk read alone still has the frames of every stack its events
 * use (the sampler sends a stack's frames again in each chunk; the writer keeps those of the chunk before and of the
 * allocations it carries). The agent of format 1.6 left 12,697 of 17,616 such events in a chunk without their
 * stack's frames (bounds.stacksLost 881) in this run.
 * The JVM sampler is Linux x86_64.
 */
class ChunkStacksTest {
    private static final int MAX_STACKS = 128;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyChunkReadAloneHasEveryStackItsEventsUse(@TempDir Path out) throws Exception {
        assumeTrue("amd64".equals(System.getProperty("os.arch")) && "Linux".equals(System.getProperty("os.name")),
                "the JVM sampler is Linux x86_64");
        Path done = out.resolve("done.txt");
        int code = Jvms.memscopeRun(out.resolve("run"), List.of("--interval", "16k",
                        "--agent-option", "maxStacks=" + MAX_STACKS, "--agent-option", "chunkSize=64k"),
                List.of(Jvms.current(), "-Xmx128m", "-cp", Jvms.classPath(StackCycleFixture.class),
                        StackCycleFixture.class.getName(), "30", done.toString()));
        assertThat(code).isZero();
        assertThat(Files.readString(done)).isEqualTo("done rounds=30");
        List<Path> dirs = Reports.recordingDirs(out.resolve("run"));
        ChunkSet set = ChunkSet.of(dirs.get(0));
        assertThat(set.count()).as("chunks").isGreaterThanOrEqualTo(4);
        long used = 0;
        for (Path chunk : set.files()) {
            Recording alone = RecordingReader.read(chunk);
            for (MemoryEvent e : alone.events()) {
                if (e.callStackHash() != 0) {
                    used++;
                    assertThat(alone.stacks().get(e.callStackHash())).as(chunk.getFileName() + ": the frames of "
                            + "stack " + Long.toHexString(e.callStackHash()) + " of " + e).isNotNull().isNotEmpty();
                }
            }
        }
        assertThat(used).as("events with a stack").isGreaterThan(5_000);
        Recording whole = RecordingReader.read(dirs.get(0));
        // 20 lines at 0 to 29 calls deep; stacks keep their innermost frames, so the deepest calls share a stack
        assertThat(whole.stacks().size()).as("the cycle's stacks, and a few of the program's").isGreaterThan(200);
        java.util.Map<String, String> meta = whole.metadata();
        assertThat(Long.parseLong(meta.get("bounds.stacksEvicted"))).as("texts dropped").isPositive();
        assertThat(Long.parseLong(meta.get("bounds.stacksLost"))).as("no stack without its frames").isZero();
    }
}
