package io.memscope.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Report files are replaced atomically, but a device or pipe given as the output is written, never replaced. */
class ReportFilesTest {
    @Test
    void aRegularFileIsReplacedWhole(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("report.json");
        Files.writeString(f, "old content, longer than the new one");
        ReportFiles.writeAtomically(f, "new");
        assertThat(Files.readString(f)).isEqualTo("new");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("report.json");
        }
    }

    /** A link planted at the name is replaced: nothing is ever written through it (docs/agent.md, "Files"). */
    @Test
    void aSymbolicLinkIsReplacedAndItsTargetLeftAlone(@TempDir Path dir) throws Exception {
        Path target = dir.resolve("real.json");
        Files.writeString(target, "old");
        Path link = Files.createSymbolicLink(dir.resolve("link.json"), target);
        ReportFiles.writeAtomically(link, "new");
        assertThat(Files.isSymbolicLink(link)).isFalse();
        assertThat(Files.readString(link)).isEqualTo("new");
        assertThat(Files.readString(target)).isEqualTo("old");
    }

    @Test
    void aLinkToAFileNotWrittenYetCreatesNothingThere(@TempDir Path dir) throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("link.json"), Path.of("sub", "real.json"));
        Files.createDirectories(dir.resolve("sub"));
        ReportFiles.writeAtomically(link, "new");
        assertThat(dir.resolve("sub").resolve("real.json")).doesNotExist();
        assertThat(Files.readString(link)).isEqualTo("new");
    }

    /** As with {@code --json /dev/null}: renaming over the path would have replaced the device for everyone. */
    @Test
    @EnabledOnOs(OS.LINUX) // mkfifo
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aNamedPipeIsWrittenNotReplaced(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("out.json");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).isZero();
        CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        ReportFiles.writeAtomically(fifo, "{\"report\": 1}");
        assertThat(read.get(20, TimeUnit.SECONDS)).isEqualTo("{\"report\": 1}");
        assertThat(Files.isRegularFile(fifo, LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(fifo, LinkOption.NOFOLLOW_LINKS)).isTrue();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("out.json");
        }
    }
}
