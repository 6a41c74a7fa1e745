package io.memscope.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.memscope.internal.files.PrivateFiles;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Folders and files memscope writes: private, fresh, in trusted folders, never through a link. Linux (POSIX). */
@EnabledOnOs(OS.LINUX)
class OutputFoldersTest {

    static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    /** Another user's principal, when this test runs as root (only root can give a folder away). */
    static UserPrincipal nobody() throws IOException {
        assumeTrue(PrivateFiles.selfUid() == 0, "only root can make a folder belong to another user");
        return Path.of("/").getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
    }

    @Test
    void aNewFolderIsFreshAndPrivateAndAnExistingOneIsNeverReused(@TempDir Path tmp) throws Exception {
        Path base = OutputFolders.outputFolder(tmp.resolve("a/b/out"));
        assertThat(mode(tmp.resolve("a"))).isEqualTo("rwx------");
        assertThat(mode(base)).isEqualTo("rwx------");
        Files.createDirectory(base.resolve("123")); // made in advance, by anyone
        Files.createSymbolicLink(base.resolve("123-2"), tmp); // a link, even to a folder
        Path dir = OutputFolders.newFolder(base, "123");
        assertThat(dir).isEqualTo(base.resolve("123-3"));
        assertThat(mode(dir)).isEqualTo("rwx------");
    }

    @Test
    void aFolderOthersCanWriteOrALinkIsRefusedButAStickyOneIsTrusted(@TempDir Path tmp) throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> OutputFolders.outputFolder(open)).hasMessageContaining("can be written by other users");
        Path link = Files.createSymbolicLink(tmp.resolve("link"), Files.createDirectory(tmp.resolve("real")));
        assertThatThrownBy(() -> OutputFolders.checkTrusted(link)).hasMessageContaining("is a symbolic link");
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertThatThrownBy(() -> OutputFolders.outputFolder(file)).hasMessageContaining("is not a folder");
        OutputFolders.checkTrusted(Path.of("/tmp")); // root's, sticky
        assertThatThrownBy(() -> PrivateFiles.checkPrivate(Path.of("/tmp"))).hasMessageContaining("other users");
    }

    @Test
    void anotherUsersFolderIsRefused(@TempDir Path tmp) throws Exception {
        UserPrincipal nobody = nobody();
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Files.setOwner(theirs, nobody);
        assertThatThrownBy(() -> OutputFolders.outputFolder(theirs)).hasMessageContaining("belongs to another user");
        assertThatThrownBy(() -> OutputFolders.newFolder(theirs, "1")).hasMessageContaining("another user");
        assertThat(theirs).isEmptyDirectory();
    }

    @Test
    void filesArePrivateWhateverTheUmaskAndNeverWrittenThroughALink(@TempDir Path tmp) throws Exception {
        Path victim = Files.writeString(tmp.resolve("victim"), "precious");
        Path link = Files.createSymbolicLink(tmp.resolve("recording.msrec"), victim);
        assertThatThrownBy(() -> PrivateFiles.createFile(link)).isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining("symbolic link");
        Path dangling = Files.createSymbolicLink(tmp.resolve("dangling"), tmp.resolve("nowhere"));
        assertThatThrownBy(() -> PrivateFiles.createFile(dangling)).isInstanceOf(FileAlreadyExistsException.class);
        assertThat(tmp.resolve("nowhere")).doesNotExist();

        PrivateFiles.createFile(tmp.resolve("new"));
        assertThat(mode(tmp.resolve("new"))).isEqualTo("rw-------");

        Path report = Files.createSymbolicLink(tmp.resolve("report.json"), victim);
        OutputFolders.writeAtomically(report, "{}");
        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(Files.isSymbolicLink(report)).isFalse();
        assertThat(Files.readString(report)).isEqualTo("{}");
        assertThat(mode(report)).isEqualTo("rw-------");
        Path danglingReport = Files.createSymbolicLink(tmp.resolve("summary.txt"), tmp.resolve("created-there"));
        OutputFolders.writeAtomically(danglingReport, "text");
        assertThat(tmp.resolve("created-there")).doesNotExist();
        assertThat(Files.readString(danglingReport)).isEqualTo("text");
        try (Stream<Path> s = Files.list(tmp)) {
            List<String> tmps = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")).toList();
            assertThat(tmps).isEmpty();
        }
    }

    /** An umask takes bits away when a file is created; memscope sets the modes again, so even 0277 gives 0600. */
    @Test
    void modesDoNotDependOnTheUmask(@TempDir Path tmp) throws Exception {
        Path script = Files.writeString(tmp.resolve("t.sh"), "umask 0000; exec \"$@\"\n");
        Process p = new ProcessBuilder("sh", script.toString(),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), UmaskProbe.class.getName(), tmp.resolve("p").toString())
                .inheritIO().start();
        assertThat(p.waitFor()).isZero();
        assertThat(mode(tmp.resolve("p"))).isEqualTo("rwx------");
        assertThat(mode(tmp.resolve("p/jvm"))).isEqualTo("rwx------");
        assertThat(mode(tmp.resolve("p/jvm/recording"))).isEqualTo("rw-------");
        assertThat(mode(tmp.resolve("p/jvm/report.json"))).isEqualTo("rw-------");
    }

    /** Writes as the agent and the CLI do, under the umask it was started with. */
    public static final class UmaskProbe {
        public static void main(String[] args) throws Exception {
            Path base = OutputFolders.outputFolder(Path.of(args[0]));
            Path dir = OutputFolders.newFolder(base, "jvm");
            PrivateFiles.createFile(dir.resolve("recording"));
            OutputFolders.writeAtomically(dir.resolve("report.json"), "{}");
        }
    }

    @Test
    void aDeviceNamedByTheUserIsWrittenInPlaceAndAFolderIsRefused(@TempDir Path tmp) throws Exception {
        OutputFolders.writeAtomically(Path.of("/dev/null"), "nothing");
        assertThat(Files.isRegularFile(Path.of("/dev/null"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThatThrownBy(() -> OutputFolders.writeAtomically(tmp, "x")).hasMessageContaining("is a folder");
        assertThatThrownBy(() -> OutputFolders.writeAtomically(tmp.resolve("missing/x.json"), "x"))
                .hasMessageContaining("missing/x.json").hasMessageContaining("does not exist");
    }

    @Test
    void theDefaultOutputIsNeverInAFolderSharedBetweenUsers(@TempDir Path tmp) throws Exception {
        assertThat(OutputFolders.sharedFolder(Path.of("/tmp"))).isTrue();
        Path mine = Files.createDirectory(tmp.resolve("mine"));
        Files.setPosixFilePermissions(mine, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(OutputFolders.sharedFolder(mine)).isFalse();
    }
}
