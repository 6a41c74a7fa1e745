package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.memscope.MemoryEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.JniMallocFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JNI library's own mallocs, under {@code memscope run --malloc}: the library is built here with gcc and loaded by
 * the application after the agent started (so its imports are patched when it is loaded). Contexts opened and never
 * closed are outstanding at the Java line that opened them, under the library's function, and estimated within the
 * sampling precision of the exact truth (count x (context + buffer)); closed ones leave nothing. Linux x86_64 with
 * gcc; JDK 25 and 17.
 */
class JniMallocTest {
    private static final String SRC = "memscope/fixtures/JniMallocFixture.java";
    private static final String FIXTURE = JniMallocFixture.class.getName();
    private static final int COUNT = 500;
    private static final int SIZE = 10_000;
    /** sizeof(context) in the C source below. */
    private static final int CONTEXT = 72;
    private static final String C = """
            #include <jni.h>
            #include <stdlib.h>
            #include <string.h>
            typedef struct { char name[64]; char *buffer; } context;
            JNIEXPORT jlong JNICALL Java_memscope_fixtures_JniMallocFixture_open(JNIEnv *env, jclass c, jint size) {
                context *ctx = malloc(sizeof(context));
                strcpy(ctx->name, "context");
                ctx->buffer = malloc((size_t) size);
                memset(ctx->buffer, 1, (size_t) size);
                return (jlong) (size_t) ctx;
            }
            JNIEXPORT void JNICALL Java_memscope_fixtures_JniMallocFixture_close(JNIEnv *env, jclass c, jlong p) {
                context *ctx = (context *) (size_t) p;
                free(ctx->buffer);
                free(ctx);
            }
            _Static_assert(sizeof(context) == 72, "context size");
            """;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aJniLibrarysLeakedContextsAreFoundWithTheirJavaCaller(@TempDir Path out) throws Exception {
        assumeThat(System.getProperty("os.arch")).as("the malloc sampler is Linux x86_64").isIn("amd64", "x86_64");
        Path lib = build(out);
        assumeThat(lib).as("gcc builds the test's JNI library").isNotNull();
        int leak = Jvms.lineOf(SRC, "// JNI-LEAK");
        int closed = Jvms.lineOf(SRC, "// JNI-CLOSED");
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            int code = Jvms.memscopeRun(dir, List.of("--malloc", "--malloc-interval", "16k"), List.of(java, "-cp",
                    Jvms.classPath(JniMallocFixture.class), FIXTURE, lib.toString(), Integer.toString(COUNT),
                    Integer.toString(SIZE)));
            assertThat(code).as(java).isZero();
            MallocRecording r = MallocRecording.read(dir);
            assertThat(r.metadataText("malloc.selfTest")).as(java).isEqualTo("passed");
            List<MemoryEvent> leaked = r.outstandingAt(FIXTURE, leak);
            assertThat(leaked).as(java).isNotEmpty();
            for (MemoryEvent e : leaked) {
                List<String> stack = r.stack(e);
                assertThat(stack.get(0)).as(java + ": " + stack)
                        .isEqualTo("libjnimalloc.so!Java_memscope_fixtures_JniMallocFixture_open");
                assertThat(stack).as(java).contains(FIXTURE + ".main(JniMallocFixture.java:" + leak + ")");
            }
            List<Long> sizes = new ArrayList<>();
            for (int i = 0; i < COUNT; i++) {
                sizes.add((long) CONTEXT);
                sizes.add((long) SIZE);
            }
            double truth = (double) COUNT * (CONTEXT + SIZE);
            double sd = MallocRecording.standardDeviation(sizes, r.interval);
            double estimate = r.estimate(leaked);
            assertThat(Math.abs(estimate - truth)).as(java + ": estimate " + estimate + " vs truth " + truth + " (sd "
                    + sd + ")").isLessThan(4 * sd);
            assertThat(r.allocationsAt(FIXTURE, closed)).as(java + ": closed contexts were sampled").isNotEmpty();
            assertThat(r.outstandingAt(FIXTURE, closed)).as(java + ": closed contexts keep nothing").isEmpty();
        }
    }

    /** @return the JNI library built with gcc, or null when gcc is not there */
    private static Path build(Path out) throws Exception {
        Path src = out.resolve("jnimalloc.c");
        Files.writeString(src, C);
        Path lib = out.resolve("libjnimalloc.so");
        String home = System.getProperty("java.home");
        Process p;
        try {
            p = new ProcessBuilder("gcc", "-O2", "-fPIC", "-shared", "-I" + home + "/include",
                    "-I" + home + "/include/linux", "-o", lib.toString(), src.toString()).inheritIO().start();
        } catch (java.io.IOException e) {
            return null;
        }
        return p.waitFor() == 0 ? lib : null;
    }
}
