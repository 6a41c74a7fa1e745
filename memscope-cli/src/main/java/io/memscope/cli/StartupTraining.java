package io.memscope.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The build's training run for the CLI's class-data-sharing archive: runs the commands people start most, in one JVM
 * that the build starts with {@code -XX:DumpLoadedClassList}, so that the list names the classes they load. The
 * launcher ({@code bin/memscope}) turns that list into an archive for the user's own java at its first run (a
 * static archive is specific to one JVM build, so it cannot be made at build time for every java).
 *
 * <p>Commands: {@code --help}, {@code --version}, {@code help run}, {@code run -- java -version} (the agent in a
 * child JVM, then the report: summary, report.json, report.html), then on that recording {@code report},
 * {@code dump}, {@code diff} and {@code export} in each format. Their output is discarded; a command that fails
 * fails the build (the list would miss its classes).
 *
 * <p>Arguments: {@code workDir} (emptied and reused). Needs the agent jar where the CLI finds it
 * ({@code MEMSCOPE_HOME}, see {@link Jars}).
 */
public final class StartupTraining {

    private StartupTraining() {
    }

    public static void main(String[] args) throws IOException {
        Path work = Path.of(args[0]);
        deleteTree(work);
        Files.createDirectories(work);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path out = work.resolve("out");
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(discard);
        System.setErr(discard);
        try {
            expect(0, "--help");
            expect(0, "--version");
            expect(0, "help", "run");
            expect(0, "run", "--out", out.toString(), "--agent-option", "quiet=true", "--", java, "-version");
            Path dir = onlyChild(out);
            expect(0, "report", dir.toString());
            expect(0, "dump", dir.resolve("recording.msrec").toString());
            expect(0, "diff", dir.toString(), dir.toString());
            for (String format : List.of("collapsed", "pprof", "chrome-trace")) {
                expect(0, "export", dir.toString(), "--format", format, "-o",
                        work.resolve("export." + format).toString());
            }
        } catch (IllegalStateException e) {
            stderr.println("memscope startup training: " + e.getMessage());
            System.exit(1);
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        deleteTree(work);
    }

    private static void expect(int code, String... args) {
        int c = Main.execute(args);
        if (c != code) {
            throw new IllegalStateException("memscope " + String.join(" ", args) + " exited " + c);
        }
    }

    private static Path onlyChild(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> l = s.filter(Files::isDirectory).toList();
            if (l.size() != 1) {
                throw new IllegalStateException("expected one JVM's folder in " + dir + ": " + l);
            }
            return l.get(0);
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        List<Path> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(p)) {
            s.forEach(all::add);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            Files.delete(all.get(i));
        }
    }
}
