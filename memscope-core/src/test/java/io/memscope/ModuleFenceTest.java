package io.memscope;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * memscope-core as a named module ({@code io.memscope.core}) on the module path, the way a JPMS application uses
 * it: the API packages are exported, {@code io.memscope.internal.*} is not (neither to compile against nor to
 * call reflectively). The module is this build's classes directory (an exploded module: it holds
 * {@code module-info.class}); the application is a tiny module compiled here and run in a JVM of its own.
 */
class ModuleFenceTest {
    private static final Set<String> API = Set.of("io.memscope", "io.memscope.accounting", "io.memscope.error",
            "io.memscope.events", "io.memscope.events.jvm", "io.memscope.jmx", "io.memscope.pool",
            "io.memscope.recording", "io.memscope.scope", "io.memscope.track");

    @Test
    void theDescriptorExportsTheApiPackagesOnly() {
        ModuleReference core = coreModule();
        ModuleDescriptor d = core.descriptor();
        assertThat(d.name()).isEqualTo("io.memscope.core");
        Set<String> exported = d.exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(exported).isEqualTo(new TreeSet<>(API));
        assertThat(d.exports()).allMatch(e -> !e.isQualified());
        // every package that is not API is internal: nothing else hides outside io.memscope.internal
        assertThat(d.packages()).filteredOn(p -> !API.contains(p)).isNotEmpty()
                .allMatch(p -> p.startsWith("io.memscope.internal."));
        // only the agent's link is open (to reflection), nothing else
        assertThat(d.opens()).extracting(ModuleDescriptor.Opens::source).containsExactly("io.memscope.internal.link");
    }

    @Test
    void anApplicationModuleCompilesAgainstTheApiButNotAgainstInternals(@TempDir Path dir) throws Exception {
        Path src = writeApp(dir, "app.Main", MAIN);
        Result ok = compile(dir.resolve("ok"), src);
        assertThat(ok.exit).as(ok.output).isZero();

        Path bad = writeApp(dir.resolve("bad"), "app.Strict",
                "package app;\npublic class Strict {\n    public static void main(String[] a) {\n"
                        + "        io.memscope.internal.error.Failures.setStrict(true);\n    }\n}\n");
        Result refused = compile(dir.resolve("bad-out"), bad);
        assertThat(refused.exit).isNotZero();
        assertThat(refused.output).contains("package io.memscope.internal.error is not visible")
                .contains("does not export it");
    }

    @Test
    void anApplicationModuleRunsWithTheApiAndCannotReachInternals(@TempDir Path dir) throws Exception {
        Path src = writeApp(dir, "app.Main", MAIN);
        Path out = dir.resolve("classes");
        Result c = compile(out, src);
        assertThat(c.exit).as(c.output).isZero();

        Result r = run(List.of(tool("java"), "--module-path", coreLocation() + File.pathSeparator + out,
                "-m", "app/app.Main"));
        assertThat(r.exit).as(r.output).isZero();
        assertThat(r.output).contains("scope job: 1 call")
                .contains("accounting memory/app/buffers current=4096")
                .contains("internal: IllegalAccessException")
                .contains("core is named: io.memscope.core");
    }

    /** The application: the API works from a named module; an internal class is loaded but not accessible. */
    private static final String MAIN = """
            package app;

            import io.memscope.Memscope;
            import io.memscope.accounting.Instrument;
            import io.memscope.accounting.MemoryAccounting;
            import io.memscope.accounting.SummaryTable;
            import io.memscope.scope.MemoryScope;

            public class Main {
                public static void main(String[] args) throws Exception {
                    try (MemoryScope s = Memscope.scope("job")) {
                        StringBuilder sb = new StringBuilder("x".repeat(100));
                    }
                    System.out.println("scope job: " + Memscope.scopes().paths().stream().filter(p -> p.name().equals("job")).findFirst().orElseThrow().entries() + " call");
                    MemoryAccounting acct = new MemoryAccounting();
                    Instrument buffers = acct.instrument("memory/app/buffers");
                    acct.alloc(buffers, 4096);
                    long current = acct.summary(SummaryTable.GLOBAL).get(0).currentBytes();
                    System.out.println("accounting memory/app/buffers current=" + current);
                    System.out.println("core is named: " + Memscope.class.getModule().getName());
                    Class<?> failures = Class.forName("io.memscope.internal.error.Failures");
                    try {
                        failures.getMethod("isStrict").invoke(null);
                        System.out.println("internal: reachable");
                    } catch (IllegalAccessException e) {
                        System.out.println("internal: IllegalAccessException");
                    }
                }
            }
            """;

    private static Path writeApp(Path dir, String className, String code) throws IOException {
        Path root = dir.resolve("src");
        Path file = root.resolve(className.replace('.', '/') + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, code);
        Files.writeString(root.resolve("module-info.java"), "module app {\n    requires io.memscope.core;\n}\n");
        return root;
    }

    private record Result(int exit, String output) {
    }

    /** Compiles with the javac of the JDK running the tests (the build's JDK), for Java 17. */
    private static Result compile(Path out, Path srcRoot) throws IOException, InterruptedException {
        List<String> args = new java.util.ArrayList<>(List.of(tool("javac"), "--release", "17", "-d",
                out.toString(), "--module-path", coreLocation().toString()));
        try (var files = Files.walk(srcRoot)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> args.add(f.toString()));
        }
        return run(args);
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command.get(0)).isTrue();
        return new Result(p.exitValue(), output);
    }

    private static String tool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    /** @return this build's memscope-core classes (a directory with module-info.class, or the jar) */
    private static Path coreLocation() {
        try {
            return Path.of(Memscope.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ModuleReference coreModule() {
        return ModuleFinder.of(coreLocation()).find("io.memscope.core")
                .orElseThrow(() -> new AssertionError("no module io.memscope.core at " + coreLocation()));
    }
}
