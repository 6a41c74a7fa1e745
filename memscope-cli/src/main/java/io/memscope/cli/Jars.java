package io.memscope.cli;

import io.memscope.error.MemscopeException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the jars the CLI starts other JVMs with: the agent ({@code memscope-agent.jar}) and the demo workloads
 * ({@code memscope-demo.jar}). Looked up, in order: the system property {@code memscope.<name>.jar}, the environment
 * variable {@code MEMSCOPE_<NAME>_JAR}, {@code $MEMSCOPE_HOME/memscope-<name>/target/}, next to the CLI jar, and the
 * module's target directory beside the CLI's own.
 */
final class Jars {
    private Jars() {
    }

    static Path agent() {
        return find("agent");
    }

    static Path demo() {
        return find("demo");
    }

    private static Path find(String name) {
        String file = "memscope-" + name + ".jar";
        List<Path> candidates = new ArrayList<>();
        String prop = System.getProperty("memscope." + name + ".jar");
        if (prop != null) {
            candidates.add(Path.of(prop));
        }
        String env = System.getenv("MEMSCOPE_" + name.toUpperCase() + "_JAR");
        if (env != null) {
            candidates.add(Path.of(env));
        }
        String home = System.getenv("MEMSCOPE_HOME");
        if (home != null) {
            candidates.add(Path.of(home, "memscope-" + name, "target", file));
        }
        Path self = selfDir();
        if (self != null) {
            candidates.add(self.resolve(file));
            candidates.add(self.resolve("../../memscope-" + name + "/target/" + file).normalize());
        }
        for (Path p : candidates) {
            if (Files.isRegularFile(p)) {
                return p.toAbsolutePath();
            }
        }
        throw MemscopeException.configuration("cannot find " + file + " (looked in " + candidates
                + "); build it with ./mvnw package -DskipTests, or set MEMSCOPE_HOME to the memscope checkout");
    }

    private static Path selfDir() {
        try {
            Path p = Path.of(Jars.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isDirectory(p) ? p : p.getParent();
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
