package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.ScopeCoverageFixture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/scopes.md's "What exact covers", measured: a scope is exact to the object once the code's classes are loaded,
 * also on a thread's first scope (memscope's state for the thread, and exact mode's counters, are left out); a class
 * loaded inside the scope brings the JVM's loading work, and in exact mode the linkage of the class's hooks.
 */
class ScopeCoverageTest {
    private static Map<String, Long> run(Path dir, String mode) throws Exception {
        Path out = dir.resolve("bytes.txt");
        int code = Jvms.memscopeRun(dir.resolve("out"), List.of("--mode", mode), List.of(Jvms.current(), "-cp",
                Jvms.classPath(ScopeCoverageFixture.class, io.memscope.Memscope.class), ScopeCoverageFixture.class.getName(), out.toString()));
        assertThat(code).isZero();
        Map<String, Long> m = new HashMap<>();
        for (String line : Files.readAllLines(out)) {
            int eq = line.indexOf('=');
            m.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
        }
        return m;
    }

    @ParameterizedTest
    @ValueSource(strings = {"sample", "exact"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aScopesExactBytesIncludeTheClassLoadHookAndExactModesFirstUseOnAThread(String mode, @TempDir Path dir)
            throws Exception {
        Map<String, Long> b = run(dir, mode);
        long object = 24; // a Probe: a 12-byte header and a long
        assertThat(b.get("loaded")).as("one object, its class loaded before the scope").isEqualTo(object);
        assertThat(b.get("firstOnThread")).as("a new thread's first scope: memscope's state for the thread is its own")
                .isEqualTo(object);
        assertThat(b.get("secondOnThread")).as("a thread's second scope").isEqualTo(object);
        if (mode.equals("exact")) {
            assertThat(b.get("loads")).as("exact mode: a class loaded in the scope brings its hooks' linkage")
                    .isGreaterThan(10_000);
        } else {
            assertThat(b.get("loads")).as("sample mode: the JVM's loading of the class, a few KB")
                    .isLessThan(10_000);
        }
    }
}
