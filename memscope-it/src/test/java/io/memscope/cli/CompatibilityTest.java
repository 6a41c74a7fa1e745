package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.fixtures.LibraryWorkload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Instrumented classes must verify and behave exactly as before: real libraries from Maven Central (Guava, Jackson,
 * H2, Kotlin stdlib, commons-lang 2.6 with class file version 47) give identical results with and without the agent,
 * on JDK 17 and JDK 25; with --include-jdk, the instrumented JDK classes are verified too
 * (-XX:+BytecodeVerificationLocal).
 */
class CompatibilityTest {

    static Stream<Arguments> cases() {
        List<Arguments> l = new ArrayList<>();
        for (String java : Jvms.javas()) {
            l.add(Arguments.of(java, false));
            l.add(Arguments.of(java, true));
        }
        return l.stream();
    }

    /** Each JDK's results without the agent: the same for every case on that JDK, so run once per JDK. */
    private static final Map<String, Path> PLAIN = new HashMap<>();

    @TempDir
    static Path plainDir;

    /** @return the file with the workload's results on {@code java} without the agent (run on first use) */
    private static synchronized Path plainResult(String java) throws Exception {
        Path known = PLAIN.get(java);
        if (known != null) {
            return known;
        }
        Path plain = plainDir.resolve("plain-" + PLAIN.size() + ".txt");
        Process p = new ProcessBuilder(java, "-cp", libraryClassPath(), LibraryWorkload.class.getName(),
                plain.toString()).inheritIO().start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        PLAIN.put(java, plain);
        return plain;
    }

    private static String libraryClassPath() {
        return Jvms.classPath(LibraryWorkload.class, com.google.common.collect.ImmutableList.class,
                com.google.common.util.concurrent.internal.InternalFutureFailureAccess.class,
                com.fasterxml.jackson.databind.ObjectMapper.class, com.fasterxml.jackson.core.JsonParser.class,
                com.fasterxml.jackson.annotation.JsonProperty.class, org.h2.Driver.class,
                kotlin.collections.CollectionsKt.class, org.apache.commons.lang.StringUtils.class);
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void librariesGiveIdenticalResultsWithTheAgent(String java, boolean includeJdk, @TempDir Path dir)
            throws Exception {
        String cp = libraryClassPath();
        Path plain = plainResult(java);

        Path traced = dir.resolve("traced.txt");
        // The bytecode sampler: what this test checks is that instrumented library classes verify and run the same
        // (sample mode's default JVMTI sampler instruments nothing but Unsafe).
        List<String> options = includeJdk ? List.of("--include-jdk", "--mode", "exact")
                : List.of("--sampler", "bytecode");
        List<String> cmd = new ArrayList<>(List.of(java));
        if (includeJdk) {
            cmd.add("-XX:+UnlockDiagnosticVMOptions");
            cmd.add("-XX:+BytecodeVerificationLocal");
        }
        cmd.addAll(List.of("-cp", cp, LibraryWorkload.class.getName(), traced.toString()));
        Path out = dir.resolve("reports");
        assertThat(Jvms.memscopeRun(out, options, cmd)).isZero();

        assertThat(Files.readString(traced)).isEqualTo(Files.readString(plain));
        Object report = Jvms.report(out);
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(Json.num(Json.obj(report, "failures"), "count")).as("the agent's failures: %s, metadata %s",
                Json.obj(report, "failures"), meta).isZero();
        assertThat(meta.get("classesSkippedOnError")).isEqualTo("0");
        assertThat(Long.parseLong((String) meta.get("instrumentedClasses"))).isGreaterThan(includeJdk ? 500 : 200);
        assertThat(Json.num(Json.obj(report, "totals"), "allocatedBytes")).isPositive();
    }

    /**
     * The function profile's entry, exit and call-site hooks on every method of the same libraries: they verify
     * (-XX:+BytecodeVerificationRemote, the default for application classes, and -Xverify:all for good measure)
     * and the programs give identical results, exceptions and all.
     */
    @ParameterizedTest
    @MethodSource("io.memscope.cli.Jvms#javas")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void librariesGiveIdenticalResultsWithEveryMethodProfiled(String java, @TempDir Path dir) throws Exception {
        String cp = libraryClassPath();
        Path plain = plainResult(java);

        Path traced = dir.resolve("traced.txt");
        Path out = dir.resolve("reports");
        List<String> options = List.of("--functions", "com.google.common.**;com.fasterxml.jackson.**;org.h2.**;"
                + "kotlin.**;org.apache.commons.lang.**;memscope.fixtures.**");
        assertThat(Jvms.memscopeRun(out, options, List.of(java, "-Xverify:all", "-cp", cp,
                LibraryWorkload.class.getName(), traced.toString()))).isZero();
        assertThat(Files.readString(traced)).isEqualTo(Files.readString(plain));
        Object report = Jvms.report(out);
        Map<String, Object> meta = Json.obj(report, "metadata");
        assertThat(Json.num(Json.obj(report, "failures"), "count")).isZero();
        assertThat(meta.get("classesSkippedOnError")).isEqualTo("0");
        assertThat(Long.parseLong((String) meta.get("functions.methods"))).isGreaterThan(1000);
    }

    /** A method near the 64 KiB limit: instrumenting it would overflow, so it is left alone; the rest is not. */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void hugeMethodIsLeftUninstrumentedAndStillRuns(@TempDir Path dir) throws Exception {
        Path classes = dir.resolve("classes");
        Path file = classes.resolve("memscope/generated/Huge.class");
        Files.createDirectories(file.getParent());
        Files.write(file, hugeClass());
        Path out = dir.resolve("reports");
        int code = Jvms.memscopeRun(out, List.of("--mode", "exact"),
                List.of(Jvms.current(), "-cp", classes.toString(), "memscope.generated.Huge"));
        assertThat(code).isZero();
        Object report = Jvms.report(out);
        assertThat(Json.obj(report, "metadata").get("methodsTooLarge")).isEqualTo("1");
        List<Map<String, Object>> top = Json.list(report, "topAllocationSites");
        assertThat(top).anySatisfy(e -> {
            assertThat((String) e.get("site")).startsWith("memscope.generated.Huge.small(");
            assertThat(Json.num(e, "count")).isEqualTo(100);
        });
        assertThat(Jvms.sites(report, "topAllocationSites")).noneMatch(s -> s.contains("Huge.huge("));
    }

    /** main calls huge() (8,000 {@code new Object()}, about 64,000 bytes of code) and small() (100 arrays). */
    private static byte[] hugeClass() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, "memscope/generated/Huge", null,
                "java/lang/Object", null);
        cw.visitSource("Huge.java", null);
        MethodVisitor huge = cw.visitMethod(Opcodes.ACC_STATIC, "huge", "()V", null, null);
        huge.visitCode();
        for (int i = 0; i < 7_900; i++) {
            huge.visitTypeInsn(Opcodes.NEW, "java/lang/Object");
            huge.visitInsn(Opcodes.DUP);
            huge.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
            huge.visitInsn(Opcodes.POP);
        }
        huge.visitInsn(Opcodes.RETURN);
        huge.visitMaxs(0, 0);
        huge.visitEnd();
        MethodVisitor small = cw.visitMethod(Opcodes.ACC_STATIC, "small", "()V", null, null);
        small.visitCode();
        org.objectweb.asm.Label loop = new org.objectweb.asm.Label();
        org.objectweb.asm.Label done = new org.objectweb.asm.Label();
        small.visitInsn(Opcodes.ICONST_0);
        small.visitVarInsn(Opcodes.ISTORE, 0);
        small.visitLabel(loop);
        small.visitVarInsn(Opcodes.ILOAD, 0);
        small.visitIntInsn(Opcodes.BIPUSH, 100);
        small.visitJumpInsn(Opcodes.IF_ICMPGE, done);
        small.visitIntInsn(Opcodes.BIPUSH, 16);
        small.visitIntInsn(Opcodes.NEWARRAY, Opcodes.T_INT);
        small.visitInsn(Opcodes.POP);
        small.visitIincInsn(0, 1);
        small.visitJumpInsn(Opcodes.GOTO, loop);
        small.visitLabel(done);
        small.visitInsn(Opcodes.RETURN);
        small.visitMaxs(0, 0);
        small.visitEnd();
        MethodVisitor main = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "main",
                "([Ljava/lang/String;)V", null, null);
        main.visitCode();
        main.visitMethodInsn(Opcodes.INVOKESTATIC, "memscope/generated/Huge", "huge", "()V", false);
        main.visitMethodInsn(Opcodes.INVOKESTATIC, "memscope/generated/Huge", "small", "()V", false);
        main.visitInsn(Opcodes.RETURN);
        main.visitMaxs(0, 0);
        main.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }
}
