package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution's launcher ({@code src/dist/bin/memscope}) chooses the JIT compilers by the command: C1 only for
 * short runs, both compilers for a report, diff or export of recordings past {@code MEMSCOPE_C2_BYTES}. Run with
 * {@code sh} and a stand-in {@code java} (a script that answers the launcher's version check and prints the command
 * line it was given), so that the command line is what is checked, not a JVM's speed. POSIX sh: not on Windows.
 */
@DisabledOnOs(OS.WINDOWS)
class LauncherCompilersTest {
    private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

    @TempDir
    Path dir;
    private Path java;
    private Path jar;
    private Path recording;

    @BeforeEach
    void standIns() throws IOException {
        java = dir.resolve("java");
        Files.writeString(java, """
                #!/bin/sh
                case "$*" in
                  *-XshowSettings*)
                    echo "    java.specification.version = 25" >&2
                    echo "    java.vm.name = OpenJDK 64-Bit Server VM" >&2
                    exit 0 ;;
                esac
                echo "ARGS: $*"
                """);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        jar = Files.write(dir.resolve("memscope.jar"), new byte[16]);
        recording = Files.write(dir.resolve("run.msrec"), new byte[64 * 1024]);
    }

    @Test
    void shortCommandsRunWithC1Only() throws Exception {
        assertThat(launch(null, "--help")).startsWith("ARGS: " + C1_ONLY + " -jar ");
        assertThat(launch(null, "run", "--", "java", "-version")).contains(C1_ONLY);
    }

    @Test
    void aSmallRecordingsReportRunsWithC1Only() throws Exception {
        assertThat(launch(null, "report", recording.toString())).contains(C1_ONLY);
    }

    @Test
    void aLargeRecordingsReportDiffOrExportRunsWithBothCompilers() throws Exception {
        String limit = String.valueOf(32 * 1024);
        assertThat(launch(limit, "report", recording.toString(), "--json", dir.resolve("r.json").toString()))
                .startsWith("ARGS: -jar ").doesNotContain(C1_ONLY);
        assertThat(launch(limit, "export", recording.toString())).doesNotContain(C1_ONLY);
        Path folder = Files.createDirectory(dir.resolve("chunks"));
        Files.write(folder.resolve("1.msrec"), new byte[24 * 1024]);
        Files.write(folder.resolve("2.msrec"), new byte[24 * 1024]);
        assertThat(launch(limit, "report", folder.toString())).doesNotContain(C1_ONLY);
        Path small = Files.write(dir.resolve("small.msrec"), new byte[20 * 1024]);
        assertThat(launch(limit, "diff", small.toString(), small.toString())).doesNotContain(C1_ONLY);
        assertThat(launch(limit, "report", small.toString())).contains(C1_ONLY);
        assertThat(launch(limit, "run", recording.toString())).contains(C1_ONLY);
    }

    @Test
    void aLimitThatIsNoNumberIsTheDefault() throws Exception {
        assertThat(launch("lots", "report", recording.toString())).contains(C1_ONLY);
    }

    private String launch(String c2Bytes, String... args) throws Exception {
        Path script = Paths.get("src/dist/bin/memscope").toAbsolutePath();
        List<String> command = new ArrayList<>(List.of("sh", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("MEMSCOPE_JAVA", java.toString());
        pb.environment().put("MEMSCOPE_CLI_JAR", jar.toString());
        pb.environment().put("XDG_CACHE_HOME", dir.resolve("cache").toString());
        pb.environment().put("MEMSCOPE_CDS", "off");
        if (c2Bytes == null) {
            pb.environment().remove("MEMSCOPE_C2_BYTES");
        } else {
            pb.environment().put("MEMSCOPE_C2_BYTES", c2Bytes);
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().filter(l -> l.startsWith("ARGS: ")).findFirst().orElse(out);
    }
}
