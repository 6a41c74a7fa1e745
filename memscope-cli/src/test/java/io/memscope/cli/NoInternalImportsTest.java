package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module boundary of core's {@code io.memscope.internal} packages (docs/architecture.md): only memscope-core
 * itself, memscope-agent (which shades its own copy of core) and memscope-launch (the agent's shared half, shaded
 * with it; its output folders are built on core's private files) name them in production code. memscope-bench is
 * the one stated exception: it measures the event store and ships nowhere. Every other module (analysis, cli, ffm,
 * junit, micrometer, demo, and any module added later) uses core's public API only.
 */
class NoInternalImportsTest {
    private static final Set<String> ALLOWED = Set.of("memscope-core", "memscope-agent", "memscope-launch",
            "memscope-bench");
    private static final Pattern INTERNAL = Pattern.compile("\\bio\\.memscope\\.internal\\.");

    @Test
    void noModuleButCoreAgentAndLaunchUsesCoresInternals() throws IOException {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        List<String> modules = new ArrayList<>();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path module : dirs.filter(d -> d.getFileName().toString().startsWith("memscope-")
                    && Files.isDirectory(d.resolve("src/main"))).toList()) {
                String name = module.getFileName().toString();
                modules.add(name);
                if (!ALLOWED.contains(name)) {
                    offenders.addAll(uses(module.resolve("src/main"), root));
                }
            }
        }
        assertThat(modules).as("the modules looked at").contains("memscope-analysis", "memscope-cli",
                "memscope-ffm", "memscope-junit", "memscope-micrometer");
        assertThat(offenders).as("production code naming io.memscope.internal outside core, agent and launch")
                .isEmpty();
    }

    private static List<String> uses(Path src, Path root) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(src)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> {
                try {
                    List<String> lines = Files.readAllLines(f);
                    for (int i = 0; i < lines.size(); i++) {
                        if (INTERNAL.matcher(lines.get(i)).find()) {
                            found.add(root.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).trim());
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        return found;
    }
}
