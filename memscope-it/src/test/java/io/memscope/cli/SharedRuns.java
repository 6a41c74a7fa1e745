package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import memscope.fixtures.GrowthFixture;
import memscope.fixtures.NoiseFixture;

/**
 * Runs of fixtures under {@code memscope run} that several tests only read ({@code diff}, {@code export},
 * {@code report} windows, the diff page): each is made once per test JVM, by its first user, instead of once per
 * test. The tests write nothing into a run's folder; what they make goes into their own temporary folders.
 */
final class SharedRuns {
    private static final Map<String, Path> RUNS = new HashMap<>();
    private static Path root;

    private SharedRuns() {
    }

    /**
     * {@link GrowthFixture} holding {@code growMiB} MiB at its GROWING site ({@code --interval 64k --gc-at-end}:
     * what each run still holds at its end is measured at a final collection).
     *
     * @return the run's JVM folder (recording.msrec, report.json); its parent is the run's output folder
     */
    static synchronized Path growth(int growMiB) throws IOException {
        return run("growth-" + growMiB, List.of(Jvms.current(), "-cp", Jvms.classPath(GrowthFixture.class),
                GrowthFixture.class.getName(), Integer.toString(growMiB)));
    }

    /**
     * One of two runs ({@code which} "a" or "b") of {@link NoiseFixture}, the same program twice: its sites differ by
     * sampling noise alone ({@code --interval 64k --gc-at-end}).
     *
     * @return the run's JVM folder
     */
    static synchronized Path noise(String which) throws IOException {
        return run("noise-" + which, List.of(Jvms.current(), "-cp", Jvms.classPath(NoiseFixture.class),
                NoiseFixture.class.getName()));
    }

    private static Path run(String name, List<String> command) throws IOException {
        Path known = RUNS.get(name);
        if (known != null) {
            return known;
        }
        if (root == null) {
            Path target = Files.createDirectories(Path.of("target", "shared-runs").toAbsolutePath());
            root = Files.createTempDirectory(target, "runs");
        }
        Path out = root.resolve(name);
        int code = Jvms.memscopeRun(out, List.of("--interval", "64k", "--gc-at-end"), command);
        assertThat(code).as("memscope run of " + command).isZero();
        Path dir;
        try (var s = Files.list(out)) {
            dir = s.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        RUNS.put(name, dir);
        return dir;
    }
}
