package io.memscope.cli;

import io.memscope.error.MemscopeException;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

/**
 * Finds the jars the CLI starts other JVMs with: the agent ({@code memscope-agent.jar}), the demo workloads
 * ({@code memscope-demo.jar}) and the light runtime-events agent (memscope-core's jar, whose manifest starts
 * core's {@code EventsAgent}). Looked up, in order: the system property {@code memscope.<name>.jar},
 * the environment variable {@code MEMSCOPE_<NAME>_JAR}, next to the CLI jar (the {@code lib/} directory of an
 * unpacked distribution, which needs nothing else), {@code $MEMSCOPE_HOME/memscope-<name>/target/}, and the
 * module's target directory beside the CLI's own (a checkout; {@code <name>} is {@code agent}, {@code demo} or
 * {@code core}). The events agent falls back to the CLI's own jar, which shades core with the same manifest entries.
 */
final class Jars {
    private Jars() {
    }

    static Path agent() {
        return agentJar(find("agent", false));
    }

    static Path demo() {
        return find("demo", false);
    }

    /** The jar whose {@code -javaagent} starts runtime events and the JFR bridge alone. */
    static Path eventsAgent() {
        return agentJar(find("core", true));
    }

    private static Path find(String name, boolean selfAsLastResort) {
        String file = "memscope-" + name + ".jar";
        List<Path> candidates = new ArrayList<>();
        String prop = System.getProperty("memscope." + name + ".jar");
        if (prop != null && !prop.isEmpty()) {
            candidates.add(Path.of(prop));
        }
        String env = System.getenv("MEMSCOPE_" + name.toUpperCase() + "_JAR");
        if (env != null && !env.isEmpty()) {
            candidates.add(Path.of(env));
        }
        List<Path> targets = new ArrayList<>();
        Path self = selfDir();
        if (self != null) {
            targets.add(self); // an unpacked distribution: lib/ holds the CLI and the jars it starts
        }
        String home = System.getenv("MEMSCOPE_HOME");
        if (home != null) {
            targets.add(Path.of(home, "memscope-" + name, "target"));
        }
        if (self != null) {
            targets.add(self.resolve("../../memscope-" + name + "/target").normalize());
        }
        for (Path dir : targets) {
            candidates.add(dir.resolve(file));
            candidates.add(versioned(dir, name)); // a module without a fixed final name: memscope-core-<version>.jar
        }
        if (selfAsLastResort && selfJar() != null) {
            candidates.add(selfJar());
        }
        for (Path p : candidates) {
            if (p != null && Files.isRegularFile(p)) {
                return p.toAbsolutePath();
            }
        }
        candidates.removeIf(p -> p == null);
        throw MemscopeException.configuration("cannot find " + file + " (looked in " + candidates
                + "); an unpacked distribution has it in lib/ beside memscope.jar; in a checkout, build it with "
                + "./mvnw package -DskipTests, or set MEMSCOPE_HOME to the checkout");
    }

    /** @return {@code dir/memscope-<name>-<version>.jar} (not sources, javadoc or tests), or null */
    private static Path versioned(Path dir, String name) {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "memscope-" + name + "-*.jar")) {
            for (Path j : ds) {
                String n = j.getFileName().toString();
                if (!n.endsWith("-sources.jar") && !n.endsWith("-javadoc.jar") && !n.endsWith("-tests.jar")) {
                    return j;
                }
            }
        } catch (IOException unreadable) {
            // not a candidate
        }
        return null;
    }

    /**
     * @return {@code jar}, checked to be usable with {@code -javaagent} in {@code JAVA_TOOL_OPTIONS}: no space in its
     * path (the option cannot carry one) and a {@code Premain-Class}
     */
    private static Path agentJar(Path jar) {
        if (jar.toString().contains(" ")) {
            throw MemscopeException.configuration("the agent jar path contains a space, which JAVA_TOOL_OPTIONS "
                    + "cannot carry: " + jar);
        }
        try (JarFile jf = new JarFile(jar.toFile())) {
            if (jf.getManifest() == null || jf.getManifest().getMainAttributes().getValue("Premain-Class") == null) {
                throw MemscopeException.configuration(jar + " has no Premain-Class: not an agent jar");
            }
        } catch (IOException e) {
            throw MemscopeException.configuration("cannot read agent jar " + jar + ": " + e.getMessage());
        }
        return jar;
    }

    private static Path selfDir() {
        Path p = selfLocation();
        return p == null ? null : Files.isDirectory(p) ? p : p.getParent();
    }

    private static Path selfJar() {
        Path p = selfLocation();
        return p != null && Files.isRegularFile(p) ? p : null;
    }

    private static Path selfLocation() {
        try {
            return Path.of(Jars.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
