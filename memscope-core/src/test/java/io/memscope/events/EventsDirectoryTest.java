package io.memscope.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.memscope.internal.files.PrivateFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The ring files' folder: created private, and never one that is a link, another user's, or writable by others. */
@EnabledOnOs(OS.LINUX)
class EventsDirectoryTest {
    @Test
    void aNewFolderIsPrivateWhateverItsParent(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("memscope-me");
        EventsFile.createPrivateDirectory(dir);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
    }

    @Test
    void aLinkOrAFolderOthersCanWriteIsRefused(@TempDir Path tmp) throws Exception {
        Path real = Files.createDirectory(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("memscope-me"), real);
        assertThatThrownBy(() -> EventsFile.createPrivateDirectory(link)).hasMessageContaining("symbolic link");
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> EventsFile.createPrivateDirectory(open)).hasMessageContaining("other users");
    }

    @Test
    void anotherUsersFolderIsRefused(@TempDir Path tmp) throws Exception {
        assumeTrue(PrivateFiles.selfUid() == 0, "only root can make a folder belong to another user");
        Path theirs = Files.createDirectory(tmp.resolve("memscope-root"));
        Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwx------"));
        Files.setOwner(theirs, theirs.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        assertThatThrownBy(() -> EventsFile.createPrivateDirectory(theirs)).hasMessageContaining("another user")
                .hasMessageContaining("MEMSCOPE_EVENTS_DIR");
    }
}
