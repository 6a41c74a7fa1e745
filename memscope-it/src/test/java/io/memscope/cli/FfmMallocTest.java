package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.memscope.MemoryEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * malloc called through an FFM downcall (JDK 22+): the handle calls malloc by the address the linker's default lookup
 * found, so no import table is involved; the lookup went through libjvm's dlsym, which answers with the hook. The
 * blocks the program keeps are outstanding at its line. Run as a single-file source program on the build's JDK (25).
 */
class FfmMallocTest {
    private static final String PROGRAM = """
            import java.lang.foreign.*;
            import java.lang.invoke.MethodHandle;
            import java.util.ArrayList;
            import java.util.List;

            public class FfmMalloc {
                static final List<MemorySegment> KEPT = new ArrayList<>();

                public static void main(String[] args) throws Throwable {
                    Linker linker = Linker.nativeLinker();
                    MethodHandle malloc = linker.downcallHandle(linker.defaultLookup().find("malloc").orElseThrow(),
                            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
                    for (int i = 0; i < 400; i++) {
                        KEPT.add((MemorySegment) malloc.invokeExact(20000L)); // FFM-LEAK
                    }
                    System.out.println("kept " + KEPT.size());
                }
            }
            """;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void mallocThroughADowncallIsSampledAtItsJavaLine(@TempDir Path out) throws Exception {
        assumeThat(System.getProperty("os.arch")).as("the malloc sampler is Linux x86_64").isIn("amd64", "x86_64");
        assumeThat(Runtime.version().feature()).as("FFM is final in JDK 22").isGreaterThanOrEqualTo(22);
        Path src = out.resolve("FfmMalloc.java");
        Files.writeString(src, PROGRAM);
        int line = 1 + (int) PROGRAM.substring(0, PROGRAM.indexOf("// FFM-LEAK")).chars().filter(c -> c == '\n').count();
        Path dir = out.resolve("run");
        int code = Jvms.memscopeRun(dir, List.of("--malloc", "--malloc-interval", "16k"), List.of(Jvms.current(),
                "--enable-native-access=ALL-UNNAMED", src.toString()));
        assertThat(code).isZero();
        MallocRecording r = MallocRecording.read(dir);
        List<MemoryEvent> kept = r.outstandingAt("FfmMalloc", line);
        // 400 blocks of 20000 bytes, each sampled with p = 1 - exp(-20000/16384) = 0.70: none sampled has
        // probability 0.3^400
        assertThat(kept).hasSizeGreaterThan(200);
        assertThat(kept).allMatch(e -> e.size() == 20000);
        assertThat(r.stack(kept.get(0))).contains("FfmMalloc.main(FfmMalloc.java:" + line + ")");
    }
}
