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
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * A user's Maven project (src/test/resources/sample-project) with the JUnit extension and the Micrometer meters,
 * made of docs/api.md's snippets, built by Maven 3.8 and 3.9 (their distributions from Maven Central) against the
 * artifacts this build produced: they are put into a private local repository under target/ (as {@code mvn install}
 * would lay them out); third-party artifacts come from the shared local repository, read only, as a mirror. Nothing
 * is installed into the shared repository.
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

    /** Unpacks a Maven distribution from target/maven-distributions (copied there from Maven Central by the build). */
    private static Path maven(String version) throws Exception {
        Path home = ROOT.resolve("memscope-junit/target/it-maven/apache-maven-" + version);
        if (!Files.isExecutable(home.resolve("bin/mvn"))) {
            Files.createDirectories(home.getParent());
            Path dist = Path.of(System.getProperty("memscope.maven.distributions"),
                    "apache-maven-" + version + "-bin.tar.gz");
            Process tar = new ProcessBuilder("tar", "xzf", dist.toString(), "-C", home.getParent().toString())
                    .redirectErrorStream(true).start();
            String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(tar.waitFor()).as(out).isZero();
        }
        return home.resolve("bin/mvn");
    }

    /**
     * The artifacts this build made, laid out in a private local repository as {@code mvn install} would. Everything
     * else comes from the shared local repository, read as a remote repository (a {@code file:} URL: the same on
     * Maven 3.8 and 3.9, which has no {@code maven.repo.local.tail}), and what that lacks from Maven Central (Maven
     * 3.8 adds plexus-utils 1.1 to its plugins, which no Maven 3.9 build fetches). Nothing is installed into the
     * shared repository.
     */
    private static Path privateRepository() throws IOException {
        Path target = ROOT.resolve("memscope-junit/target");
        Path repo = target.resolve("it-repository");
        install(repo, "memscope-parent", ROOT.resolve("pom.xml"), null);
        install(repo, "memscope-core", ROOT.resolve("memscope-core/pom.xml"),
                ROOT.resolve("memscope-core/target/memscope-core-" + VERSION + ".jar"));
        install(repo, "memscope-junit", ROOT.resolve("memscope-junit/pom.xml"),
                Path.of(System.getProperty("memscope.junit.jar")));
        install(repo, "memscope-micrometer", ROOT.resolve("memscope-micrometer/pom.xml"),
                ROOT.resolve("memscope-micrometer/target/memscope-micrometer-" + VERSION + ".jar"));
        install(repo, "memscope-agent", ROOT.resolve("memscope-agent/target/dependency-reduced-pom.xml"),
                ROOT.resolve("memscope-agent/target/memscope-agent.jar"));
        return repo;
    }

    private static Path settings(Path dir) throws IOException {
        String shared = Path.of(System.getProperty("memscope.repo.tail")).toAbsolutePath().toUri().toString();
        // ahead of Maven Central, which every build has (its super POM)
        String repos = "<repository><id>shared-local</id><url>" + shared + "</url></repository>";
        Path settings = dir.resolve("settings.xml");
        Files.writeString(settings, "<settings><profiles><profile><id>repositories</id><repositories>" + repos
                + "</repositories><pluginRepositories>" + repos.replace("repository>", "pluginRepository>")
                + "</pluginRepositories></profile></profiles><activeProfiles><activeProfile>repositories"
                + "</activeProfile></activeProfiles></settings>\n");
        return settings;
    }

    /** The sample project built by each Maven version the build names (3.8 and 3.9), as a user would. */
    @TestFactory
    Stream<DynamicTest> theBuildFailsOnTheLeaksAndTheAllocationsAndPassesTheRest() {
        return Stream.of(System.getProperty("memscope.maven.versions").split(","))
                .map(v -> DynamicTest.dynamicTest("Maven " + v, () -> build(v.trim())));
    }

    private static void build(String mavenVersion) throws Exception {
        Path target = ROOT.resolve("memscope-junit/target");
        Path repo = privateRepository();
        Path project = target.resolve("it-sample-project-" + mavenVersion);
        deleteTree(project);
        copyTree(ROOT.resolve("memscope-junit/src/test/resources/sample-project"), project);
        List<String> cmd = new ArrayList<>(List.of(maven(mavenVersion).toString(), "-B", "-V", "-ntp", "test",
                "-s", settings(target).toString(), "-Dmaven.repo.local=" + repo,
                "-Dmemscope.version=" + VERSION, "-Djunit.version=" + System.getProperty("junit.version"),
                "-Dmicrometer.version=" + System.getProperty("micrometer.version")));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(project.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", oldestJdk().toString());
        pb.environment().remove("MAVEN_OPTS");
        pb.environment().remove("MAVEN_ARGS");
        Path log = target.resolve("it-sample-project-" + mavenVersion + ".log");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(400, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("Maven " + mavenVersion + " did not finish in 400 s: " + log);
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);

        assertThat(out).as(out).contains("Apache Maven " + mavenVersion);
        assertThat(p.exitValue()).as(out).isEqualTo(1);
        assertThat(out).as(out).contains("Tests run: 15, Failures: 4, Errors: 0, Skipped: 0")
                .contains("BUILD FAILURE").doesNotContain("Could not resolve", "offline mode");
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
                + lineOf(project, "src/main/java/com/example/catalog/Catalog.java", "// the leak") + ")");
        String alloc = failures(report).get("renderingIsCheap");
        assertThat(alloc).matches("(?s)@MaxAllocation: the test allocated \\d+\\.?\\d* MiB, .* over the limit of 2\\.00 MiB.*")
                .contains("com.example.catalog.Catalog.render(Catalog.java:" + lineOf(project, "src/main/java/com/example/catalog/Catalog.java",
                        "// the needless") + ")");

        // JUnit in real use: repetitions at the same time, the JDK's soft-reference caches, a site's whole estimate
        String realUse = Files.readString(project.resolve(
                "target/surefire-reports/TEST-com.example.catalog.RealUseTest.xml"), StandardCharsets.UTF_8);
        assertThat(testcases(realUse)).hasSize(8);
        // the JDK's locale data and the application's soft-reference cache pass; counted on request, the cache fails
        assertThat(failures(realUse)).containsOnlyKeys("historiesCountedWhenAsked", "exportIsCheap");
        assertThat(failures(realUse).get("historiesCountedWhenAsked")).startsWith("@NoLeaks: ")
                .contains("com.example.catalog.PriceCache.history(PriceCache.java:"
                        + lineOf(project, "src/main/java/com/example/catalog/PriceCache.java", "// the history") + ")");
        String export = failures(realUse).get("exportIsCheap");
        Matcher total = Pattern.compile("the test allocated ([\\d.]+) MiB").matcher(export);
        Matcher site = Pattern.compile("\\n +([\\d.]+) MiB +byte\\[\\] +com\\.example\\.catalog\\.RealUseTest\\."
                + "exportIsCheap\\(RealUseTest\\.java:" + lineOf(project, "src/test/java/com/example/catalog/RealUseTest.java",
                        "// the export buffer") + "\\)").matcher(export);
        assertThat(total.find() && site.find()).as(export).isTrue();
        assertThat(Double.parseDouble(site.group(1))).as(export)
                .isBetween(Double.parseDouble(total.group(1)) * 0.85, Double.parseDouble(total.group(1)) * 1.15);

        // Micrometer in real use: few series over many scrapes, never NaN, method-level sites
        String metrics = Files.readString(project.resolve(
                "target/surefire-reports/TEST-com.example.catalog.MetricsTest.xml"), StandardCharsets.UTF_8);
        assertThat(failures(metrics)).isEmpty();
        assertThat(testcases(metrics)).containsExactlyInAnyOrder("fewUserSeriesOverManyScrapesAndNeverNaN",
                "siteLabelsByMethodSurviveDeploys");
    }

    /** Each Maven snippet of docs/api.md's JUnit and Micrometer sections is in the sample project, line by line. */
    @Test
    void theDocsSnippetsAreTheSampleProjects() throws IOException {
        String api = Files.readString(ROOT.resolve("docs/api.md"));
        String sections = api.substring(api.indexOf("## JUnit 5"), api.indexOf("\n## ", api.indexOf("## Micrometer") + 3));
        List<String> pom = Files.readAllLines(ROOT.resolve("memscope-junit/src/test/resources/sample-project/pom.xml"))
                .stream().map(String::strip).toList();
        String pomText = String.join("", pom).replaceAll("\\s+", "");
        Matcher xml = Pattern.compile("(?s)```xml\n(.*?)```").matcher(sections);
        int snippets = 0;
        while (xml.find()) {
            snippets++;
            // every line of the snippet, in order (the sample adds configuration of its own in between)
            int from = 0;
            for (String line : xml.group(1).split("\n")) {
                String l = line.replaceAll("\\s+", "");
                if (l.isEmpty()) {
                    continue;
                }
                int at = pomText.indexOf(l, from);
                assertThat(at).as("snippet line %s, in order, in the sample project's pom.xml", line.strip())
                        .isNotNegative();
                from = at + l.length();
            }
        }
        assertThat(snippets).isGreaterThanOrEqualTo(4);
        // plugin versions pinned: Maven 3.8's default Surefire runs no JUnit 5 test and passes the build
        assertThat(sections).contains("<artifactId>maven-surefire-plugin</artifactId>\n  <version>3.5.3</version>");
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

    private static int lineOf(Path project, String file, String marker) throws IOException {
        List<String> lines = Files.readAllLines(project.resolve(file));
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
