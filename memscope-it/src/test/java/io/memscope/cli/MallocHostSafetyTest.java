package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.MallocThreadsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The malloc hooks never hurt the host: hundreds of threads start, malloc through zlib and exit while the process
 * signals itself and forks, with every allocation sampled (interval 1 byte, the hooks' slowest path). The JVM exits
 * normally, writes no crash file, handles its signals, and the recording is whole. Linux x86_64; JDK 25 and 17.
 */
class MallocHostSafetyTest {
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void threadsComingAndGoingWhileSignalledExitNormally(@TempDir Path out) throws Exception {
        assumeThat(System.getProperty("os.arch")).as("the malloc sampler is Linux x86_64").isIn("amd64", "x86_64");
        assumeThat(Jvms.sighupIgnored()).as("SIGHUP ignored by this process (nohup): the fixture could not handle it")
                .isFalse();
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            Files.createDirectories(dir);
            Path crash = dir.resolve("hs_err.log");
            List<String> args = List.of(java, "-XX:ErrorFile=" + crash, "-cp",
                    Jvms.classPath(MallocThreadsFixture.class), MallocThreadsFixture.class.getName(), "10", "40");
            // exits 3 when no signal was handled
            int code = Jvms.memscopeRun(dir.resolve("run"), List.of("--malloc", "--malloc-interval", "1"), args);
            assertThat(code).as(java).isZero();
            assertThat(crash).as(java).doesNotExist();
            MallocRecording r = MallocRecording.read(dir.resolve("run"));
            assertThat(r.recording.damage()).as(java).isEmpty();
            assertThat(r.metadataText("malloc.selfTest")).as(java).isEqualTo("passed");
            assertThat(r.metadata("malloc.samples")).as(java).isGreaterThan(10_000);
        }
    }
}
