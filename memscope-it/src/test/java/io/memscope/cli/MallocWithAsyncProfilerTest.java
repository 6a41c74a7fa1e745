package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import memscope.fixtures.MallocChurnFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * memscope's malloc hooks beside async-profiler's CPU profiler in one JVM: both patch libraries' import tables
 * (async-profiler hooks {@code pthread_setspecific} in libjvm's and writes that slot back when it stops, at the JVM's
 * exit). memscope once made the page of a slot it patched read-only after the write, whatever its protection was;
 * async-profiler's write at exit then crashed the JVM in {@code Profiler::stop}. Now the JVM exits normally, both
 * tools write their output, and memscope's malloc samples are there. Linux x86_64 (async-profiler's linux-x64
 * library); JDK 25 and 17.
 */
class MallocWithAsyncProfilerTest {
    private static final String FIXTURE = MallocChurnFixture.class.getName();

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void bothToolsRunAndTheJvmExitsNormally(@TempDir Path tmp) throws Exception {
        assumeTrue(System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64"),
                "async-profiler's library here is linux-x64, memscope's malloc sampler Linux x86_64");
        Path lib = tmp.resolve("libasyncProfiler.so");
        try (ZipFile z = new ZipFile(Jvms.classPath(one.profiler.AsyncProfiler.class));
             InputStream in = z.getInputStream(z.getEntry("linux-x64/libasyncProfiler.so"))) {
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
        }
        for (String java : Jvms.javas()) {
            String name = Path.of(java).getParent().getParent().getFileName().toString();
            Path dir = tmp.resolve(name);
            Path flame = tmp.resolve(name + "-cpu.html");
            int code = Jvms.memscopeRun(dir, List.of("--malloc", "--malloc-interval", "32k"), List.of(java,
                    "-agentpath:" + lib + "=start,event=cpu,file=" + flame, "-cp",
                    Jvms.classPath(MallocChurnFixture.class), FIXTURE, "1500"));
            assertThat(code).as(java + ": the JVM's exit code (134: it crashed)").isZero();
            assertThat(flame).as(java + ": async-profiler's output").isNotEmptyFile();
            MallocRecording r = MallocRecording.read(dir);
            assertThat(r.metadataText("malloc.selfTest")).as(java).isEqualTo("passed");
            assertThat(r.allocationsAt(FIXTURE, Jvms.lineOf("memscope/fixtures/MallocChurnFixture.java",
                    "// CHURN-D"))).as(java + ": deflaters sampled").hasSizeGreaterThan(10);
        }
    }
}
