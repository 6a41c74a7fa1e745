package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An application on the module path, with memscope-core as the named module {@code io.memscope.core}: under
 * {@code memscope run} its scopes and named objects reach the agent (which lives in the unnamed module and reaches
 * the core's link by reflection, through the package the descriptor opens) and the report.
 */
class ModulePathTest {

    @ParameterizedTest
    @MethodSource("io.memscope.cli.Jvms#javas")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void scopesOfAModularApplicationReachTheReport(String java, @TempDir Path dir) throws Exception {
        String core = Jvms.classPath(io.memscope.Memscope.class);
        Path app = compile(dir.resolve("app"), core);
        Path out = dir.resolve("out");
        Path result = dir.resolve("result.txt");
        int code = Jvms.memscopeRun(out, List.of(), List.of(java, "--module-path", core + File.pathSeparator + app,
                "-m", "com.acme.app/com.acme.app.Main", result.toString()));
        assertThat(code).isZero();
        assertThat(Files.readString(result))
                .contains("memscope API in module io.memscope.core, application in module com.acme.app, kept 50");

        Object report = Jvms.report(out);
        Map<String, Map<String, Object>> scopes = Json.list(report, "scopes").stream()
                .collect(Collectors.toMap(m -> (String) m.get("path"), m -> m));
        assertThat(scopes).containsKey("batch");
        assertThat(Json.num(scopes.get("batch"), "entries")).isEqualTo(200);
        assertThat(Json.num(scopes.get("batch"), "allocatedBytes")).isGreaterThanOrEqualTo(200L * 64 * 1024);
        assertThat(Json.list(report, "trackedObjects")).singleElement()
                .satisfies(o -> assertThat(o.get("name")).isEqualTo("cache"));
    }

    /** Compiles the module {@code com.acme.app} (test resources) for Java 17 against memscope-core. */
    private static Path compile(Path classes, String core) throws Exception {
        Path src = Path.of(ModulePathTest.class.getResource("/modular-app/com.acme.app/module-info.java").toURI())
                .getParent();
        List<String> args = new ArrayList<>(List.of("--release", "17", "--module-path", core, "-d",
                classes.toString()));
        try (Stream<Path> s = Files.walk(src)) {
            s.filter(p -> p.toString().endsWith(".java")).forEach(p -> args.add(p.toString()));
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = javac.run(null, null, err, args.toArray(new String[0]));
        assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
        return classes;
    }
}
