package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

/**
 * The distribution built by {@code ./mvnw package} ({@code memscope-cli/target/memscope-<version>.tar.gz} and
 * {@code .zip}), unpacked into a temporary folder far from the checkout and run the way a user would: no Maven, no
 * {@code MEMSCOPE_HOME}, no checkout on any path the CLI looks at, only a JDK. Runs after {@code package}
 * (failsafe).
 */
class DistributionIT {
    private static final String VERSION = io.memscope.Memscope.version();
    private static final String ROOT = "memscope-" + VERSION + "/";
    private static final List<String> CONTENT = List.of(ROOT + "LICENSE", ROOT + "README.md", ROOT + "bin/memscope",
            ROOT + "lib/memscope-agent.jar", ROOT + "lib/memscope-demo.jar", ROOT + "lib/memscope.classlist",
            ROOT + "lib/memscope.jar");

    private static Path tarball() {
        return Path.of(System.getProperty("memscope.distribution"));
    }

    private static Path zip() {
        return Path.of(System.getProperty("memscope.distribution.zip"));
    }

    /** A JDK 17 when installed (the oldest the distribution supports), else the JDK running this test. */
    private static Path javaHome() {
        Path jdk17 = Jvms.JDK17.getParent().getParent();
        return Files.isExecutable(Jvms.JDK17) ? jdk17 : Path.of(System.getProperty("java.home"));
    }

    private static Path unpack(Path into) throws Exception {
        Files.createDirectories(into);
        Proc tar = Proc.run(into, Map.of(), List.of("tar", "xzf", tarball().toString()));
        assertThat(tar.code).as(tar.output).isZero();
        return into.resolve(ROOT);
    }

    @Test
    void tarballAndZipHoldTheLauncherTheJarsAndTheLicence(@TempDir Path tmp) throws Exception {
        Path home = unpack(tmp);
        List<String> files;
        try (Stream<Path> s = Files.walk(home)) {
            files = s.filter(Files::isRegularFile).map(p -> ROOT + home.relativize(p).toString().replace('\\', '/'))
                    .sorted().collect(Collectors.toList());
        }
        assertThat(files.stream().filter(f -> !f.startsWith(ROOT + "docs/")).toList())
                .containsExactlyElementsOf(CONTENT);
        assertThat(files.stream().filter(f -> f.startsWith(ROOT + "docs/")).toList())
                .as("the documentation ships whole").containsExactlyElementsOf(repositoryDocs());
        assertThat(Files.getPosixFilePermissions(home.resolve("bin/memscope")))
                .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
        assertThat(Files.readString(home.resolve("LICENSE"))).contains("Apache License", "Version 2.0");
        try (java.util.jar.JarFile agent = new java.util.jar.JarFile(home.resolve("lib/memscope-agent.jar").toFile())) {
            assertThat(agent.getManifest().getMainAttributes().getValue("Premain-Class")).isNotBlank();
            if (System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64")) {
                assertThat(agent.getEntry("native/linux-x86_64/libmemscope-sampler.so")).isNotNull();
            }
        }

        TreeSet<String> zipped = new TreeSet<>();
        try (ZipFile z = new ZipFile(zip().toFile())) {
            z.stream().filter(e -> !e.isDirectory()).map(ZipEntry::getName).forEach(zipped::add);
        }
        zipped.removeIf(f -> f.startsWith(ROOT + "docs/"));
        assertThat(zipped).containsExactlyElementsOf(CONTENT);
    }

    /** The checkout's docs/ files, as the distribution names them. */
    private static List<String> repositoryDocs() throws IOException {
        Path docs = Path.of(System.getProperty("user.dir")).resolve("../docs").normalize();
        try (Stream<Path> s = Files.walk(docs)) {
            return s.filter(Files::isRegularFile).map(p -> ROOT + "docs/" + docs.relativize(p).toString()
                    .replace('\\', '/')).sorted().collect(Collectors.toList());
        }
    }

    @Test
    void everyRelativeLinkOfTheShippedMarkdownResolvesInsideTheUnpackedFolder(@TempDir Path tmp) throws Exception {
        Path home = unpack(tmp);
        java.util.regex.Pattern link = java.util.regex.Pattern.compile("\\]\\(([^)\\s]+)\\)");
        List<String> broken = new ArrayList<>();
        int checked = 0;
        List<Path> markdown;
        try (Stream<Path> s = Files.walk(home)) {
            markdown = s.filter(p -> p.toString().endsWith(".md")).toList();
        }
        for (Path md : markdown) {
            var m = link.matcher(Files.readString(md));
            while (m.find()) {
                String target = m.group(1);
                if (target.startsWith("http://") || target.startsWith("https://") || target.startsWith("#")
                        || target.startsWith("mailto:")) {
                    continue;
                }
                int hash = target.indexOf('#');
                Path file = md.resolveSibling(hash < 0 ? target : target.substring(0, hash)).normalize();
                checked++;
                if (!Files.exists(file) || !file.startsWith(home.normalize())) {
                    broken.add(home.relativize(md) + " -> " + target);
                }
            }
        }
        assertThat(checked).as("README.md links to the docs").isGreaterThan(10);
        assertThat(broken).as("links that lead nowhere in the unpacked distribution").isEmpty();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void unpackedAnywhereRunDemoWorksWithAJdkAlone(@TempDir Path tmp) throws Exception {
        Path home = unpack(tmp.resolve("opt"));
        Path cwd = Files.createDirectories(tmp.resolve("work"));
        Path out = cwd.resolve("out");
        // Only a JDK: no Maven on PATH, no MEMSCOPE_* variables, a working directory that is not a checkout.
        Map<String, String> env = Map.of("JAVA_HOME", javaHome().toString(), "PATH", "/usr/bin:/bin",
                "HOME", tmp.toString());
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/memscope").toString(), "run", "--demo",
                "--out", out.toString()));
        Proc run = Proc.run(cwd, env, Proc.withoutNetwork(command));
        assertThat(run.code).as(run.output).isZero();
        assertThat(run.output).contains("LeakyCacheWorkload").doesNotContain("cannot find");
        try (Stream<Path> s = Files.walk(out)) {
            assertThat(s.map(p -> p.getFileName().toString())).contains("report.json", "recording.msrec");
        }

        Proc version = Proc.run(cwd, env, List.of(home.resolve("bin/memscope").toString(), "--version"));
        assertThat(version.code).as(version.output).isZero();
        assertThat(version.output).contains("memscope " + VERSION);
        awaitArchiveDump(tmp.resolve(".cache/memscope")); // the first run's, before the folder is deleted
    }

    /**
     * The first run of a java makes the class-data-sharing archive of the CLI's classes in the background, in the
     * user's cache folder (mode 0700); later runs load the CLI's classes from it; {@code MEMSCOPE_CDS=off} runs
     * without it. Which classes came from where is the JVM's own class-loading log (through JAVA_TOOL_OPTIONS, which
     * the launcher's java reads). HotSpot (the JDKs the build runs on).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theFirstRunMakesTheClassArchiveThatLaterRunsLoadTheCliFrom(@TempDir Path tmp) throws Exception {
        Path home = unpack(tmp.resolve("opt"));
        String launcher = home.resolve("bin/memscope").toString();
        Path cache = tmp.resolve("cache");
        Map<String, String> env = Map.of("JAVA_HOME", javaHome().toString(), "PATH", "/usr/bin:/bin",
                "XDG_CACHE_HOME", cache.toString());
        Proc first = Proc.run(tmp, env, List.of(launcher, "--version"));
        assertThat(first.code).as(first.output).isZero();
        assertThat(first.output).contains("memscope " + VERSION);
        Path dir = cache.resolve("memscope");
        assertThat(Files.getPosixFilePermissions(dir)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
        awaitArchiveDump(dir);
        try (Stream<Path> s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString())).as("the cache").anyMatch(n -> n.endsWith(".jsa"));
        }

        assertThat(loadedFrom(tmp, env, "with")).as("a later run").contains("source: shared objects file");
        Map<String, String> off = new java.util.HashMap<>(env);
        off.put("MEMSCOPE_CDS", "off");
        assertThat(loadedFrom(tmp, off, "off")).as("MEMSCOPE_CDS=off").contains("source: file:");
    }

    /** @return where {@code memscope --version}'s JVM loaded {@code io.memscope.cli.Main} from (its log line) */
    private static String loadedFrom(Path tmp, Map<String, String> env, String name) throws Exception {
        Path log = tmp.resolve("classes-" + name + ".log");
        Map<String, String> e = new java.util.HashMap<>(env);
        e.put("JAVA_TOOL_OPTIONS", "-Xlog:class+load=info:file=" + log);
        Proc p = Proc.run(tmp, e, List.of(tmp.resolve("opt").resolve(ROOT).resolve("bin/memscope").toString(),
                "--version"));
        assertThat(p.code).as(p.output).isZero();
        assertThat(p.output).contains("memscope " + VERSION);
        try (Stream<String> lines = Files.lines(log)) {
            return lines.filter(l -> l.contains(" io.memscope.cli.Main ")).findFirst()
                    .orElseThrow(() -> new AssertionError("io.memscope.cli.Main not in " + log));
        }
    }

    /** Waits until no dump of a class-data-sharing archive is under way in the cache folder (its lock is gone). */
    private static void awaitArchiveDump(Path cacheDir) {
        await("the class-data-sharing archive's dump to end (no .lock in " + cacheDir + ")")
                .atMost(Duration.ofSeconds(240)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    try (Stream<Path> s = Files.exists(cacheDir) ? Files.list(cacheDir) : Stream.empty()) {
                        return s.noneMatch(p -> p.getFileName().toString().endsWith(".lock"));
                    }
                });
    }

    @Test
    void aLinkToTheLauncherWorksAndATooOldJavaIsNamed(@TempDir Path tmp) throws Exception {
        Path home = unpack(tmp.resolve("opt"));
        Path link = Files.createSymbolicLink(tmp.resolve("memscope"), home.resolve("bin/memscope"));
        Map<String, String> env = Map.of("JAVA_HOME", javaHome().toString(), "PATH", "/usr/bin:/bin");
        Proc help = Proc.run(tmp, env, List.of(link.toString(), "accounting", "--help"));
        assertThat(help.code).as(help.output).isZero();
        assertThat(help.output).contains("Usage: memscope accounting");

        Path fakeJava = tmp.resolve("old-java");
        Files.writeString(fakeJava, "#!/bin/sh\necho '    java.specification.version = 11' >&2\n");
        fakeJava.toFile().setExecutable(true);
        Proc old = Proc.run(tmp, Map.of("MEMSCOPE_JAVA", fakeJava.toString(), "PATH", "/usr/bin:/bin"),
                List.of(link.toString(), "--help"));
        assertThat(old.code).isEqualTo(1);
        assertThat(old.output).contains("needs Java 17 or newer");
    }

    /** A finished process: exit code and merged output. */
    static final class Proc {
        final int code;
        final String output;

        private Proc(int code, String output) {
            this.code = code;
            this.output = output;
        }

        static Proc run(Path dir, Map<String, String> env, List<String> command) throws IOException, InterruptedException {
            return run(dir, env, command, 170);
        }

        /** Runs command in dir with exactly env as its environment, for at most timeoutSeconds. */
        static Proc run(Path dir, Map<String, String> env, List<String> command, long timeoutSeconds)
                throws IOException, InterruptedException {
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
            pb.environment().clear();
            pb.environment().putAll(env);
            Path log = Files.createTempFile("memscope-dist", ".log");
            pb.redirectOutput(log.toFile());
            Process p = pb.start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + command + "\n" + Files.readString(log));
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            Files.delete(log);
            return new Proc(p.exitValue(), output);
        }

        /**
         * @return the command in a network namespace of its own (no network at all) where {@code unshare} allows it
         *         (root, or user namespaces); else the command as is
         */
        static List<String> withoutNetwork(List<String> command) throws IOException, InterruptedException {
            if (!Files.isExecutable(Path.of("/usr/bin/unshare"))) {
                return command;
            }
            for (List<String> prefix : List.of(List.of("/usr/bin/unshare", "--net"),
                    List.of("/usr/bin/unshare", "--net", "--map-root-user"))) {
                List<String> probe = new ArrayList<>(prefix);
                probe.add("/bin/true");
                if (run(Path.of("/"), Map.of("PATH", "/usr/bin:/bin"), probe).code == 0) {
                    List<String> c = new ArrayList<>(prefix);
                    c.addAll(command);
                    return c;
                }
            }
            return command;
        }
    }
}
