package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.memscope.internal.files.PrivateFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.SmallHeapFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk that fills up while the program runs: a 2 MiB file system (tmpfs) mounted in a mount namespace of the
 * test's own ({@code unshare -m}: nothing of the machine's mounts changes, the mount goes with the namespace). Needs
 * root, as mounting does; skipped otherwise. memscope says at once that the disk is full, keeps what was written (the
 * recording ends cleanly at its last whole block, saying why and when), names the cause in the report, and leaves no
 * temporary file behind.
 */
@EnabledOnOs(OS.LINUX)
class DiskFullTest {

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aDiskThatFillsUpMidRunIsSaidAtOnceAndWhatWasWrittenIsReported(@TempDir Path tmp) throws Exception {
        assumeTrue(PrivateFiles.selfUid() == 0, "mounting a small file system needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/unshare")), "unshare(1) is needed");
        Path mnt = Files.createDirectory(tmp.resolve("small"));
        Path out = mnt.resolve("out");
        Path script = Files.writeString(tmp.resolve("full.sh"), String.join("\n",
                "set -u",
                "mount -t tmpfs -o size=2m memscope-test \"$1\" || exit 99",
                "shift",
                "\"$@\"",
                "rc=$?",
                "echo \"--- files\"",
                "find \"$MNT\" -type f -printf '%s %p\\n'",
                "exit $rc",
                ""));
        List<String> cmd = new ArrayList<>(List.of("unshare", "-m", "--propagation", "private", "sh",
                script.toString(), mnt.toString(), Jvms.current(), "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "run", "--out", out.toString(), "--interval", "1k", "--", Jvms.current(),
                "-cp", Jvms.classPath(SmallHeapFixture.class), SmallHeapFixture.class.getName(), "6000", "1000"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("MEMSCOPE_AGENT_JAR", System.getProperty("memscope.agent.jar"));
        pb.environment().put("MNT", mnt.toString());
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(200, TimeUnit.SECONDS)).isTrue();
        assumeTrue(p.exitValue() != 99, "mounting failed: " + output);
        assertThat(p.exitValue()).as(output).isZero(); // the program's own exit code: it was not hurt
        assertThat(output).contains("done");
        // said at once, with what is kept, and at the end with what was dropped
        assertThat(output).containsPattern("memscope agent: cannot write \\S+recording.msrec: No space left on device; "
                + "the recording keeps the \\d+ events written");
        assertThat(output).containsPattern("ended at its last whole block \\(\\d+ events kept, [1-9]\\d* dropped: "
                + "No space left on device\\)");
        // the report of what was written, the cause named, not blamed on a crash
        assertThat(output).contains("memscope report for pid");
        assertThat(output).containsPattern("the recording stopped at [0-9.]+ s of the capture: No space left on device");
        assertThat(output).doesNotContain("killed, crashed");
        String files = output.substring(output.indexOf("--- files"));
        assertThat(files).contains("recording.msrec").doesNotContain(".tmp").doesNotContain(".recording.reserve");
    }
}
