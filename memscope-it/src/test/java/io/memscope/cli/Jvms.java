package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

/** Helpers for tests that start JVMs: the JDKs to test on, class paths, and reading reports. */
final class Jvms {
    static final Path JDK17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64/bin/java");

    private Jvms() {
    }

    /** The test JVM's own java (JDK 25 in the build). */
    static String current() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The JDKs available for tests: this one, and JDK 17 when installed. */
    static List<String> javas() {
        List<String> l = new ArrayList<>();
        l.add(current());
        if (Files.isExecutable(JDK17)) {
            l.add(JDK17.toString());
        }
        return l;
    }

    /**
     * @return whether this process ignores SIGHUP (run under {@code nohup}): the JVMs it starts inherit that, and a
     *         JVM that starts with SIGHUP ignored never handles it (Linux: {@code SigIgn} of /proc/self/status)
     */
    static boolean sighupIgnored() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("SigIgn:")) {
                    return (Long.parseLong(line.substring("SigIgn:".length()).trim(), 16) & 1) != 0;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return false;
        }
        return false;
    }

    /** A class path with the test classes and the jars (or directories) holding the given classes. */
    static String classPath(Class<?>... classes) {
        List<String> parts = new ArrayList<>();
        for (Class<?> c : classes) {
            try {
                String p = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
                if (!parts.contains(p)) {
                    parts.add(p);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return String.join(File.pathSeparator, parts);
    }

    /**
     * Waits until the output file of a launched program holds {@code text} (a JVM starts in seconds under load);
     * fails after 60 s, naming the text and the file.
     */
    static void awaitOutput(Path file, String text) {
        await("\"" + text + "\" in " + file).atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50)).until(() -> Files.exists(file) && Files.readString(file).contains(text));
    }

    /** Runs `memscope run` through Main.execute and returns its exit code. */
    static int memscopeRun(Path out, List<String> options, List<String> command) {
        List<String> args = new ArrayList<>();
        args.add("run");
        args.add("--out");
        args.add(out.toString());
        args.addAll(options);
        args.add("--");
        args.addAll(command);
        return Main.execute(args.toArray(new String[0]));
    }

    /** @return the parsed report.json files under out (one per JVM) */
    static List<Object> reports(Path out) throws IOException {
        List<Object> l = new ArrayList<>();
        try (Stream<Path> s = Files.list(out)) {
            for (Path d : (Iterable<Path>) s.sorted()::iterator) {
                Path r = d.resolve("report.json");
                if (Files.isRegularFile(r)) {
                    l.add(Json.parse(Files.readString(r, StandardCharsets.UTF_8)));
                }
            }
        }
        return l;
    }

    /**
     * Builds, with {@code memscope report DIR --json DIR/report.json}, the report of every JVM under {@code out} that
     * has a recording and no report yet: what a user of {@code -javaagent} without {@code memscope run} does.
     *
     * @return the only report under out
     */
    static Object reportFromRecording(Path out) throws IOException {
        try (Stream<Path> s = Files.list(out)) {
            for (Path d : (Iterable<Path>) s.sorted()::iterator) {
                if (Files.isRegularFile(d.resolve("recording.msrec")) && !Files.exists(d.resolve("report.json"))) {
                    int code = Main.execute("report", d.toString(), "--json", d.resolve("report.json").toString());
                    if (code != 0) {
                        throw new AssertionError("memscope report " + d + " exited with " + code);
                    }
                }
            }
        }
        return report(out);
    }

    /** @return the only report under out */
    static Object report(Path out) throws IOException {
        List<Object> l = reports(out);
        if (l.size() != 1) {
            throw new AssertionError("expected one report under " + out + ", found " + l.size());
        }
        return l.get(0);
    }

    /** @return the only summary.txt under out (one JVM) */
    static Path summaryFile(Path out) throws IOException {
        try (Stream<Path> s = Files.walk(out)) {
            List<Path> l = s.filter(p -> p.getFileName().toString().equals("summary.txt")).toList();
            if (l.size() != 1) {
                throw new AssertionError("expected one summary.txt under " + out + ", found " + l);
            }
            return l.get(0);
        }
    }

    /** @return site strings of a report list, e.g. leakSuspects */
    static List<String> sites(Object report, String... path) {
        List<String> l = new ArrayList<>();
        for (Map<String, Object> e : Json.list(report, path)) {
            l.add((String) e.get("site"));
        }
        return l;
    }

    /** @return a report's metadata value that is a count, which must be there */
    static long metadataCount(Map<String, Object> meta, String key) {
        assertThat(meta).containsKey(key);
        return Long.parseLong(meta.get(key).toString());
    }

    /** @return the {@code key=number} lines a fixture wrote (its {@code System.nanoTime()} marks, its counters) */
    static Map<String, Long> fixtureNumbers(Path file) throws IOException {
        Map<String, Long> m = new java.util.HashMap<>();
        for (String line : Files.readAllLines(file)) {
            int eq = line.indexOf('=');
            m.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
        }
        return m;
    }

    /** @return the 1-based line of the first line of a test source containing the marker */
    static int lineOf(String sourceFile, String marker) throws IOException {
        Path p = Path.of("src/test/java").resolve(sourceFile);
        if (!Files.exists(p)) {
            p = Path.of("../memscope-demo/src/main/java").resolve(sourceFile);
        }
        List<String> lines = Files.readAllLines(p);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(marker)) {
                return i + 1;
            }
        }
        throw new AssertionError(marker + " not in " + p);
    }
}
