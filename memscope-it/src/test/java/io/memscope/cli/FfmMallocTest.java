package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.memscope.MemoryEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
import java.util.Map;
import java.util.TreeMap;

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
        Map<String, String> meta = r.recording.metadata();
        Map<String, String> causes = new TreeMap<>();
        meta.forEach((k, v) -> {
            if (k.startsWith("malloc.noJavaStack.") || k.equals("malloc.javaStackNotWalkable")) {
                causes.put(k, v);
            }
        });
        List<MemoryEvent> kept = r.outstandingAt("FfmMalloc", line);
        List<MemoryEvent> blocks = r.outstanding.values().stream().filter(e -> e.size() == 20000).toList();
        // 400 blocks of 20000 bytes, each sampled with p = 1 - exp(-20000/16384) = 0.70: 200 or fewer sampled has
        // probability below 1e-18
        assertThat(blocks).hasSizeGreaterThan(200);
        // AsyncGetCallTrace promises no walk: it may answer a sample with an error code instead of frames (a
        // collection running, a frame it cannot decode). The product keeps such a sample (its bytes are real), counts
        // it by cause and names it so, never as a made-up frame: every block that is not at the line says why.
        List<MemoryEvent> unwalked = blocks.stream().filter(e -> !kept.contains(e)).toList();
        assertThat(unwalked).as("%s", causes).allSatisfy(e -> assertThat(r.site(e).className())
                .startsWith("(Java stack not walkable: "));
        assertThat(Long.parseLong(meta.get("malloc.javaStackNotWalkable"))).as("%s", causes)
                .isGreaterThanOrEqualTo(unwalked.size());
        // The downcall stub sets the thread's last Java frame before it calls malloc, and AsyncGetCallTrace walks from
        // there: its error codes are transient states of the thread, so most samples have their Java stack (a run
        // where they did not names the causes above).
        assertThat(kept).as("%s", causes).hasSizeGreaterThan(blocks.size() / 2);
        assertThat(kept).allMatch(e -> e.size() == 20000);
        assertThat(r.stack(kept.get(0))).contains("FfmMalloc.main(FfmMalloc.java:" + line + ")");
    }
}
