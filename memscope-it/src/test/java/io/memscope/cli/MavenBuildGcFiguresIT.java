package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Maven build under {@code memscope run}, as a user would start it: the distribution this build made,
 * unpacked; Maven 3.9 from Maven Central; a project of three modules whose test classes run in Surefire forks on
 * G1, Parallel and Serial (src/test/resources/forking-build). Repeated ten times, every collection of every JVM
 * (Maven's and each fork's) has the JVM's heap figures: matching the JVM's GC notifications with memscope's pauses
 * lost them for most collections of some JVMs in some runs, intermittently. The rules of {@link GcHeapFiguresTest}
 * apply to each report. Runs after {@code package} (failsafe); offline after the first build: plugins and JUnit come
 * from the shared local repository, read as a remote one, into a private local repository. Platform: Linux x86_64.
 */
class MavenBuildGcFiguresIT {
    @TempDir
    static Path tools;
    private static Path memscope;
    private static Path mvn;
    private static Path settings;

    @BeforeAll
    static void unpack() throws Exception {
        exec(tools, List.of("tar", "xzf", System.getProperty("memscope.distribution")));
        exec(tools, List.of("tar", "xzf", System.getProperty("memscope.maven.distribution")));
        try (Stream<Path> s = Files.list(tools)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String name = p.getFileName().toString();
                if (name.startsWith("memscope-")) {
                    memscope = p.resolve("bin/memscope");
                } else if (name.startsWith("apache-maven-")) {
                    mvn = p.resolve("bin/mvn");
                }
            }
        }
        assertThat(memscope).isExecutable();
        assertThat(mvn).isExecutable();
        String shared = Path.of(System.getProperty("memscope.repo.tail")).toAbsolutePath().toUri().toString();
        String repos = "<repository><id>shared-local</id><url>" + shared + "</url></repository>";
        settings = Files.writeString(tools.resolve("settings.xml"), "<settings><profiles><profile><id>shared</id>"
                + "<repositories>" + repos + "</repositories><pluginRepositories>"
                + repos.replace("repository>", "pluginRepository>") + "</pluginRepositories></profile></profiles>"
                + "<activeProfiles><activeProfile>shared</activeProfile></activeProfiles></settings>\n");
    }

    @RepeatedTest(10)
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everyCollectionOfMavenAndItsForksHasItsHeapFigures(RepetitionInfo run, @TempDir Path work) throws Exception {
        Path project = work.resolve("project");
        copyTree(Path.of(MavenBuildGcFiguresIT.class.getResource("/forking-build/pom.xml").toURI()).getParent(),
                project);
        Path out = work.resolve("memscope-out");
        List<String> cmd = new ArrayList<>(List.of(memscope.toString(), "run", "--out", out.toString(), "--", mvn.toString(),
                "-B", "-ntp", "test", "-s", settings.toString(),
                "-Dmaven.repo.local=" + tools.resolve("repository")));
        if (run.getCurrentRepetition() > 1) {
            cmd.add("-o"); // everything is in the private repository after the first build
        }
        String output = exec(project, cmd);
        assertThat(output).contains("BUILD SUCCESS", "Tests run: 1, Failures: 0");

        List<Path> jvms;
        try (Stream<Path> s = Files.list(out)) {
            jvms = s.filter(d -> Files.isRegularFile(d.resolve("report.json"))).sorted().toList();
        }
        // Maven's JVM, one fork per test class, and short JVMs Maven starts on the way (no command line of their
        // own); every one of them is checked, the four named ones must have collected a few times
        int named = 0;
        List<String> names = new ArrayList<>();
        for (Path jvm : jvms) {
            boolean mavenOrFork = jvmCommand(jvm).matches(".*(plexus\\.classworlds\\.launcher\\.Launcher|surefirebooter).*");
            named += mavenOrFork ? 1 : 0;
            names.addAll(GcHeapFiguresTest.checkHeapFigures(jvm, mavenOrFork ? 3 : 0));
        }
        assertThat(named).as("Maven's JVM and one fork per test class among %s: %s", jvms, output).isEqualTo(4);
        assertThat(names).contains("PS Scavenge", "Copy", "G1 Young Generation");
    }

    /** @return the command line a JVM's report names (its main class or jar and arguments), or "" */
    private static String jvmCommand(Path jvm) throws IOException {
        Map<String, Object> meta = Json.obj(Json.parse(Files.readString(jvm.resolve("report.json"))),
                "metadata");
        Object command = meta.get("command");
        return command == null ? "" : command.toString();
    }

    /** Runs a command to its end in dir with JDK 17 (the oldest memscope supports) and a small heap for Maven. */
    private static String exec(Path dir, List<String> command) throws IOException, InterruptedException {
        Path jdk = Files.isExecutable(Jvms.JDK17) ? Jvms.JDK17.getParent().getParent()
                : Path.of(System.getProperty("java.home"));
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("JAVA_HOME", jdk.toString());
        env.put("MAVEN_OPTS", "-Xmx96m"); // Maven's own JVM collects too
        env.remove("MAVEN_ARGS");
        env.remove("JAVA_TOOL_OPTIONS");
        DistributionIT.Proc p = DistributionIT.Proc.run(dir, env, command, 280);
        assertThat(p.code).as("%s\n%s", command, p.output).isZero();
        return p.output;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
