package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The CLI's jar (memscope.jar, after the shade) carries none of the agent: no capture, instrumentation or JMX class
 * of {@code io.memscope.agent}, no relocated copy of core or ASM ({@code io/memscope/agent/shaded}), no JVMTI
 * library. What the CLI shares with the agent comes from memscope-launch; the agent itself runs from
 * lib/memscope-agent.jar. Runs after the package phase (failsafe), when the shaded jar exists.
 */
class CliJarContentsIT {
    private static final Path JAR = Path.of(System.getProperty("user.dir"), "target", "memscope.jar");

    @Test
    void theCliJarHoldsNoAgentClass() throws Exception {
        assertThat(JAR).exists();
        List<String> names = new ArrayList<>();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                names.add(e.nextElement().getName());
            }
        }
        assertThat(names).as("what the CLI needs is there").contains("io/memscope/cli/Main.class",
                "io/memscope/launch/AgentOptions.class", "io/memscope/launch/OutputFolders.class",
                "io/memscope/launch/FunctionPatterns.class");
        assertThat(names).as("no agent class, no shaded copy").noneMatch(n -> n.startsWith("io/memscope/agent/"));
        assertThat(names).as("no ASM, no JVMTI library").noneMatch(n -> n.startsWith("org/objectweb/asm/")
                || n.startsWith("native/"));
        // pprof is written by memscope-launch's own encoder: protobuf-java is only the tests' independent decoder
        assertThat(names).as("no protobuf runtime").contains("io/memscope/launch/pprof/PprofWriter.class")
                .noneMatch(n -> n.startsWith("com/google/protobuf/"));
    }

    @Test
    void theAgentJarTheCliStartsIsBesideIt() {
        // the checkout's layout, which Jars finds (the distribution's lib/ is checked by DistributionIT)
        Path agent = Path.of(System.getProperty("user.dir"), "..", "memscope-agent", "target", "memscope-agent.jar");
        assertThat(Files.isRegularFile(agent)).as(agent.toString()).isTrue();
    }
}
