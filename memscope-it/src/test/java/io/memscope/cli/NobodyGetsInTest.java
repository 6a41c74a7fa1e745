package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.memscope.internal.files.PrivateFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.fixtures.AttachFixture;
import memscope.fixtures.HelloFixture;
import memscope.fixtures.HostileNamesFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nobody else gets in: what memscope writes is private whatever the umask, never written through a link or into a
 * folder someone else prepared, secrets on the command line are masked, and no application string can act on the
 * terminal that prints a report. Linux (POSIX modes, {@code sh}).
 */
@EnabledOnOs(OS.LINUX)
class NobodyGetsInTest {
    private static final String SECRET = "hunter2-s3cr3t";

    static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    /** `memscope run` as a process of its own, under umask 000, in {@code cwd}. */
    static Process cli(Path cwd, List<String> jvmOptions, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", "umask 000; exec \"$@\"", "sh", Jvms.current()));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().put("MEMSCOPE_AGENT_JAR", System.getProperty("memscope.agent.jar"));
        return pb.start();
    }

    static String finish(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyFileIsPrivateWhateverTheUmaskAndSecretsOnTheCommandLineAreMasked(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("new/out");
        String output = finish(cli(tmp, List.of(), "run", "--out", out.toString(), "--", Jvms.current(), "-cp",
                Jvms.classPath(HelloFixture.class), HelloFixture.class.getName(), "--db-password=" + SECRET,
                "--token", SECRET));
        assertThat(output).doesNotContain(SECRET);
        assertThat(mode(tmp.resolve("new"))).isEqualTo("rwx------");
        assertThat(mode(out)).isEqualTo("rwx------");
        List<Path> files;
        try (Stream<Path> s = Files.walk(out)) {
            files = s.toList();
        }
        int checked = 0;
        for (Path f : files) {
            if (Files.isDirectory(f)) {
                assertThat(mode(f)).as(f.toString()).isEqualTo("rwx------");
            } else {
                checked++;
                assertThat(mode(f)).as(f.toString()).isEqualTo("rw-------");
                assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).as(f.toString())
                        .doesNotContain(SECRET);
            }
        }
        assertThat(checked).as("recording, report.json, summary.txt, report.html").isEqualTo(4);
        Map<String, Object> meta = Json.obj(Jvms.report(out), "metadata");
        assertThat(meta.get("command").toString()).endsWith("--db-password=*** --token ***");
    }

    /** In a folder others can write (here the shared /tmp-like folder), the default output goes to ~/memscope-out. */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void theDefaultOutputIsNeverInAFolderSharedBetweenUsers(@TempDir Path tmp) throws Exception {
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path home = Files.createDirectory(tmp.resolve("home"));
        finish(cli(shared, List.of("-Duser.home=" + home), "run", "--", Jvms.current(), "-cp",
                Jvms.classPath(HelloFixture.class), HelloFixture.class.getName()));
        assertThat(shared).isEmptyDirectory();
        try (Stream<Path> s = Files.list(home.resolve("memscope-out"))) {
            Path run = s.findFirst().orElseThrow();
            assertThat(Jvms.reports(run)).hasSize(1);
        }
    }

    /**
     * A per-JVM folder made in advance (by another user, when this test runs as root) holding links to a victim file:
     * the agent takes a fresh folder, nothing is written through the links, the victim is untouched.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aFolderPreparedInAdvanceIsNeverUsedAndNothingIsWrittenThroughALink(@TempDir Path tmp) throws Exception {
        Path victim = Files.writeString(tmp.resolve("victim"), "precious");
        Path out = Files.createDirectory(tmp.resolve("out"));
        Process target = new ProcessBuilder(Jvms.current(), "-cp", Jvms.classPath(AttachFixture.class),
                AttachFixture.class.getName(), tmp.resolve("stop").toString()).redirectErrorStream(true).start();
        try {
            java.io.BufferedReader lines = new java.io.BufferedReader(new java.io.InputStreamReader(
                    target.getInputStream(), StandardCharsets.UTF_8));
            assertThat(lines.readLine()).isEqualTo("attach fixture ready");
            long pid = target.pid();
            Path trap = Files.createDirectory(out.resolve(Long.toString(pid)));
            for (String name : List.of("recording.msrec", "report.json", "summary.txt", "report.html")) {
                Files.createSymbolicLink(trap.resolve(name), victim);
            }
            Files.setPosixFilePermissions(trap, PosixFilePermissions.fromString("rwxrwxrwx"));
            if (PrivateFiles.selfUid() == 0) {
                UserPrincipal nobody = trap.getFileSystem().getUserPrincipalLookupService()
                        .lookupPrincipalByName("nobody");
                Files.setOwner(trap, nobody);
            }
            CliRun r = CliRun.run("attach", Long.toString(pid), "--duration", "2", "--out", out.toString());
            assertThat(r.exit).as(r.err).isZero();
            assertThat(Files.readString(victim)).isEqualTo("precious");
            assertThat(Files.isRegularFile(out.resolve(pid + "-2").resolve("report.json"), LinkOption.NOFOLLOW_LINKS))
                    .isTrue();
            assertThat(mode(out.resolve(pid + "-2"))).isEqualTo("rwx------");
            try (Stream<Path> s = Files.list(trap)) {
                assertThat(s.allMatch(Files::isSymbolicLink)).as("the prepared folder left alone").isTrue();
            }
        } finally {
            Files.writeString(tmp.resolve("stop"), "");
            target.destroyForcibly();
        }
    }

    /** Another user's output folder is refused before anything runs. Root only (only root can give a folder away). */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anotherUsersOutputFolderIsRefused(@TempDir Path tmp) throws Exception {
        assumeTrue(PrivateFiles.selfUid() == 0, "only root can make a folder belong to another user");
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Files.setOwner(theirs, theirs.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        CliRun r = CliRun.run("run", "--out", theirs.toString(), "--", Jvms.current(), "-cp",
                Jvms.classPath(HelloFixture.class), HelloFixture.class.getName());
        assertThat(r.exit).isEqualTo(1);
        assertThat(r.err).contains(theirs.toString()).contains("belongs to another user");
        assertThat(theirs).isEmptyDirectory();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void noApplicationStringActsOnTheTerminal(@TempDir Path out) throws Exception {
        String hostile = HostileNamesFixture.HOSTILE;
        CliRun run = CliRun.run("run", "--out", out.toString(), "--", Jvms.current(), "-cp",
                Jvms.classPath(HostileNamesFixture.class, io.memscope.Memscope.class), HostileNamesFixture.class.getName(),
                hostile);
        assertThat(run.exit).as(run.err).isZero();
        Path dir;
        try (Stream<Path> s = Files.list(out)) {
            dir = s.findFirst().orElseThrow();
        }
        CliRun report = CliRun.run("report", dir.toString());
        CliRun dump = CliRun.run("dump", dir.resolve("recording.msrec").toString());
        assertThat(dump.exit).as(dump.err).isZero();
        String summary = Files.readString(dir.resolve("summary.txt"));
        for (String text : List.of(run.out, run.err, summary, report.out, report.err, dump.out, dump.err)) {
            assertThat(text).doesNotContain("\u001b").doesNotContain("\r").doesNotContain("\u0007")
                    .doesNotContain("\u009b").doesNotContain("\nFORGED");
        }
        assertThat(summary).contains("\\e[31mred\\e]0;pwned\\x07\\e[2J\\x9b1m\\r\\nFORGED: leak of 999 GiB");
        assertThat(dump.out).contains("\\e[31mred");
        // the data itself is kept as it was: report.json has the exact string
        Map<String, Object> meta = Json.obj(Jvms.report(out), "metadata");
        assertThat(meta.get("command").toString()).endsWith(hostile);
    }
}
