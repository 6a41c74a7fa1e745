package io.memscope.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A user's Maven project (src/test/resources/sample-project) with the extension, built by Maven, offline, against
 * the artifacts this build produced: they are put into a private local repository under target/ (as
 * {@code mvn install} would lay them out), third-party artifacts come from the shared local repository, read only
 * ({@code maven.repo.local.tail}). Nothing is installed into the shared repository.
 */
class SampleProjectIT {
    private static final String VERSION = System.getProperty("memscope.version");
    private static final Path ROOT = Path.of(System.getProperty("memscope.root")).toAbsolutePath().normalize();

    /**
     * @return a JDK 17 when installed (the oldest the extension supports: the sample's tests then run on it, while
     *         this module's own tests run on the build's JDK), else the JDK running this test
     */
    private static Path oldestJdk() {
        Path jdk17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        return Files.isExecutable(jdk17.resolve("bin/java")) ? jdk17 : Path.of(System.getProperty("java.home"));
    }

    /** Lays out one artifact as {@code mvn install} would (no _remote.repositories: locally installed). */
    private static void install(Path repo, String artifactId, Path pom, Path jar) throws IOException {
        Path dir = repo.resolve("io/memscope/" + artifactId + "/" + VERSION);
        Files.createDirectories(dir);
        Files.copy(pom, dir.resolve(artifactId + "-" + VERSION + ".pom"), StandardCopyOption.REPLACE_EXISTING);
        if (jar != null) {
            Files.copy(jar, dir.resolve(artifactId + "-" + VERSION + ".jar"), StandardCopyOption.REPLACE_EXISTING);
        }
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

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theBuildFailsOnTheLeakAndTheAllocationAndPassesTheRestWithParallelClasses() throws Exception {
        Path target = ROOT.resolve("memscope-junit/target");
        Path repo = target.resolve("it-repository");
        install(repo, "memscope-parent", ROOT.resolve("pom.xml"), null);
        install(repo, "memscope-core", ROOT.resolve("memscope-core/pom.xml"),
                ROOT.resolve("memscope-core/target/memscope-core-" + VERSION + ".jar"));
        install(repo, "memscope-junit", ROOT.resolve("memscope-junit/pom.xml"),
                Path.of(System.getProperty("memscope.junit.jar")));
        install(repo, "memscope-agent", ROOT.resolve("memscope-agent/target/dependency-reduced-pom.xml"),
                ROOT.resolve("memscope-agent/target/memscope-agent.jar"));

        Path project = target.resolve("it-sample-project");
        deleteTree(project);
        copyTree(ROOT.resolve("memscope-junit/src/test/resources/sample-project"), project);
        Path mvn = Path.of(System.getProperty("maven.home"), "bin", "mvn");
        List<String> cmd = new ArrayList<>(List.of(mvn.toString(), "-B", "-o", "-ntp", "test",
                "-Dmaven.repo.local=" + repo, "-Dmaven.repo.local.tail=" + System.getProperty("memscope.repo.tail"),
                "-Dmemscope.version=" + VERSION, "-Djunit.version=" + System.getProperty("junit.version")));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(project.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", oldestJdk().toString());
        pb.environment().remove("MAVEN_OPTS");
        Path log = target.resolve("it-sample-project.log");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(280, TimeUnit.SECONDS)).as("Maven finished").isTrue();
        String out = Files.readString(log, StandardCharsets.UTF_8);

        assertThat(p.exitValue()).as(out).isEqualTo(1);
        assertThat(out).as(out).contains("Tests run: 5, Failures: 2, Errors: 0, Skipped: 0").contains("BUILD FAILURE")
                .doesNotContain("Could not resolve", "offline mode");
        String report = Files.readString(project.resolve(
                "target/surefire-reports/TEST-com.example.catalog.CatalogTest.xml"), StandardCharsets.UTF_8);
        assertThat(failures(report)).containsOnlyKeys("listenersDoNotLeak", "renderingIsCheap");
        assertThat(testcases(report)).contains("addingProductsKeepsNothingBehind", "directBuffersAreReleased");
        // The test classes ran in parallel (Surefire, junit.jupiter.execution.parallel): NeighbourTest leaked 16 MiB
        // and allocated 32 MiB more on other threads while addingProductsKeepsNothingBehind ran, which still passed.
        String neighbour = Files.readString(project.resolve(
                "target/surefire-reports/TEST-com.example.catalog.NeighbourTest.xml"), StandardCharsets.UTF_8);
        assertThat(failures(neighbour)).isEmpty();
        assertThat(testcases(neighbour)).containsExactly("leaksAndAllocatesWhileCatalogRuns");

        String leak = failures(report).get("listenersDoNotLeak");
        assertThat(leak).matches("(?s)@NoLeaks: [6-9]\\.\\d+ MiB allocated by the test is still held after it .*over the "
                + "limit of 1\\.00 MiB\\. Held by:.*").contains("com.example.catalog.Catalog.onChange(Catalog.java:"
                + lineOf(project, "// the leak") + ")");
        String alloc = failures(report).get("renderingIsCheap");
        assertThat(alloc).matches("(?s)@MaxAllocation: the test allocated \\d+\\.?\\d* MiB, .* over the limit of 2\\.00 MiB.*")
                .contains("com.example.catalog.Catalog.render(Catalog.java:" + lineOf(project, "// the needless") + ")");
    }

    /** What {@code ./mvnw install} publishes carries sources, javadoc and the metadata a repository needs. */
    @Test
    void publishedModulesHaveSourcesJavadocAndPomMetadata() throws IOException {
        for (String module : List.of("memscope-core", "memscope-junit")) {
            assertThat(ROOT.resolve(module + "/target/" + module + "-" + VERSION + "-sources.jar")).isRegularFile();
            assertThat(ROOT.resolve(module + "/target/" + module + "-" + VERSION + "-javadoc.jar")).isRegularFile();
        }
        assertThat(ROOT.resolve("memscope-agent/target/memscope-agent-sources.jar")).isRegularFile();
        assertThat(ROOT.resolve("memscope-agent/target/memscope-agent-javadoc.jar")).isRegularFile();
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        assertThat(parent).contains("<url>https://", "<licenses>", "<name>Apache-2.0</name>", "<developers>", "<scm>",
                "<connection>scm:git:");
        // the agent's published POM: the -javaagent jar needs nothing else (test-scoped entries are not inherited)
        String agentPom = Files.readString(ROOT.resolve("memscope-agent/target/dependency-reduced-pom.xml"));
        Matcher dep = Pattern.compile("(?s)<dependency>(.*?)</dependency>").matcher(agentPom);
        while (dep.find()) {
            assertThat(dep.group(1)).contains("<scope>test</scope>");
        }
        for (String module : List.of("memscope-core", "memscope-junit", "memscope-micrometer", "memscope-agent")) {
            String pom = Files.readString(ROOT.resolve(module + "/pom.xml"));
            assertThat(pom).as(module).contains("<description>", "<name>" + module + "</name>")
                    .doesNotContain("<memscope.publish.skip>true");
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    private static int lineOf(Path project, String marker) throws IOException {
        List<String> lines = Files.readAllLines(project.resolve("src/main/java/com/example/catalog/Catalog.java"));
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(marker)) {
                return i + 1;
            }
        }
        throw new AssertionError(marker);
    }

    /** @return test name to failure message (XML-unescaped) from a Surefire report */
    private static java.util.Map<String, String> failures(String xml) {
        java.util.Map<String, String> m = new java.util.TreeMap<>();
        Matcher tc = Pattern.compile("(?s)<testcase name=\"([^\"]+)\"[^>]*?(/>|>(.*?)</testcase>)").matcher(xml);
        while (tc.find()) {
            String body = tc.group(3) == null ? "" : tc.group(3);
            Matcher f = Pattern.compile("(?s)<failure message=\"([^\"]*)\"").matcher(body);
            if (f.find()) {
                m.put(tc.group(1), unescape(f.group(1)));
            }
        }
        return m;
    }

    private static List<String> testcases(String xml) {
        List<String> l = new ArrayList<>();
        Matcher tc = Pattern.compile("<testcase name=\"([^\"]+)\"").matcher(xml);
        while (tc.find()) {
            l.add(tc.group(1));
        }
        return l;
    }

    private static String unescape(String s) {
        return s.replace("&#10;", "\n").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"")
                .replace("&apos;", "'").replace("&amp;", "&");
    }
}
