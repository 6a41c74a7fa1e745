package io.memscope.internal.files;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * How memscope creates the folders and files it writes, so that nobody else gets in (the output folders, the
 * trusted-folder check and the replacement of files are {@code io.memscope.launch.OutputFolders}, in
 * memscope-launch, built on these):
 *
 * <ul>
 * <li><b>Private</b>: folders it creates have mode 0700 and files 0600, whatever the umask (set again after
 *     creation: a umask can only take bits away, and an odd one, 0277, would take the owner's own).</li>
 * <li><b>Fresh</b>: a JVM's folder ({@code <out>/<pid>}) is created exclusively ({@code OutputFolders.newFolder}): one that
 *     exists already, whoever made it, is never reused ({@code <pid>-2} is taken instead).</li>
 * <li><b>Trusted</b>: a folder memscope writes into by name ({@code OutputFolders.checkTrusted}) must be a real folder (not a
 *     link), owned by the running user or root, and writable by nobody else unless it is sticky (as {@code /tmp}:
 *     others cannot rename or delete what memscope created there).</li>
 * <li><b>Never through a link</b>: files are created with {@code O_EXCL} (a link planted at the name makes the
 *     creation fail, nothing is written through it), and replaced by writing a new temporary file beside them and
 *     renaming it over the name ({@code OutputFolders.writeAtomically}, {@code replace}): a link at the name is replaced, its
 *     target untouched. The one exception is a device or a pipe named by the user ({@code --json /dev/stdout}),
 *     written in place.</li>
 * </ul>
 *
 * On a file system without POSIX permissions (not Linux or macOS) the modes and owners are not checked.
 */
public final class PrivateFiles {
    /** rwx------ */
    public static final Set<PosixFilePermission> FOLDER_MODE = PosixFilePermissions.fromString("rwx------");
    /** rw------- */
    public static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

    private static volatile Integer selfUid;

    private PrivateFiles() {
    }

    /** Creates the folder {@code dir} (mode 0700); fails if anything exists at that name. */
    public static void createFolder(Path dir) throws IOException {
        if (posix(dir)) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(FOLDER_MODE));
            Files.setPosixFilePermissions(dir, FOLDER_MODE); // whatever the umask
        } else {
            Files.createDirectory(dir);
        }
    }

    /**
     * Checks a folder memscope made for itself (a JVM's folder, the event rings' folder): as {@link #checkTrusted},
     * and writable by nobody else at all, sticky or not.
     */
    public static void checkPrivate(Path dir) throws IOException {
        checkFolder(dir, false);
    }

    /**
     * Checks a folder memscope writes into: a folder, not a link to one; owned by the running user or root; not
     * writable by other users, unless {@code stickyAllowed} and it is sticky ({@code /tmp}).
     *
     * @throws IOException naming the folder and what is wrong with it
     */
    public static void checkFolder(Path dir, boolean stickyAllowed) throws IOException {
        if (!posix(dir)) {
            if (!Files.isDirectory(dir)) {
                throw new IOException(dir + " is not a folder");
            }
            return;
        }
        PosixFileAttributes a;
        try {
            a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(dir.toString(), null, "no such folder");
        }
        if (a.isSymbolicLink()) {
            throw new IOException(dir + " is a symbolic link; memscope writes only into a real folder (give the "
                    + "folder it points to: " + realPathOrUnknown(dir) + ")");
        }
        if (!a.isDirectory()) {
            throw new IOException(dir + " is not a folder");
        }
        int owner = uid(dir);
        int self = selfUid();
        if (owner >= 0 && self >= 0 && owner != self && owner != 0) {
            throw new IOException(dir + " belongs to another user (" + a.owner().getName() + "); memscope writes "
                    + "only into folders of its own user or root: give a folder of yours");
        }
        Set<PosixFilePermission> p = a.permissions();
        boolean othersWrite = p.contains(PosixFilePermission.GROUP_WRITE) || p.contains(PosixFilePermission.OTHERS_WRITE);
        if (othersWrite && !(stickyAllowed && sticky(dir))) {
            throw new IOException(dir + " can be written by other users (" + PosixFilePermissions.toString(p)
                    + "); memscope writes only into folders others cannot change: give a private one (chmod 700)");
        }
    }

    private static String realPathOrUnknown(Path p) {
        try {
            return p.toRealPath().toString();
        } catch (IOException e) {
            return "it does not exist";
        }
    }

    /** @return whether the folder has the sticky bit (others may write in it, not rename or delete others' names) */
    private static boolean sticky(Path dir) {
        try {
            Object mode = Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return mode instanceof Integer && (((Integer) mode) & 01000) != 0;
        } catch (Exception e) {
            return false;
        }
    }

    /** @return the file's owner's uid, or -1 when the file system does not say */
    public static int uid(Path p) {
        try {
            Object uid = Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return uid instanceof Integer ? (Integer) uid : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    /** @return the running process's effective uid (owner of {@code /proc/self}), or -1 when unknown */
    public static int selfUid() {
        Integer u = selfUid;
        if (u == null) {
            int found = -1;
            try {
                Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
                if (uid instanceof Integer) {
                    found = (Integer) uid;
                }
            } catch (Exception | LinkageError e) {
                found = -1;
            }
            if (found < 0) {
                found = uidOfNewFile();
            }
            u = found;
            selfUid = u;
        }
        return u;
    }

    /** Where {@code /proc} is missing: the owner of a file just created in the temporary folder. */
    private static int uidOfNewFile() {
        try {
            Path p = Files.createTempFile("memscope-uid", ".tmp");
            try {
                return uid(p);
            } finally {
                Files.deleteIfExists(p);
            }
        } catch (Exception e) {
            return -1;
        }
    }

    /**
     * Creates a new, empty file readable and writable by its owner only; fails if anything exists at that name (a
     * file, a link, even a dangling one). Without {@code FileChannel} (the agent opens its recording with it, and
     * the JDK's channel classes are not loaded for it).
     */
    public static void createFile(Path file) throws IOException {
        File f = file.toFile();
        if (!f.createNewFile()) { // O_CREAT | O_EXCL
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new FileAlreadyExistsException(file.toString(), null, Files.isSymbolicLink(file)
                        ? "a symbolic link is there; memscope never writes through one" : "it exists already");
            }
            throw new IOException("cannot create " + file);
        }
        if (posix(file)) {
            Files.setPosixFilePermissions(file, FILE_MODE);
        }
    }

    /** @return whether the file system of {@code p} has POSIX permissions (modes and owners are checked) */
    public static boolean posix(Path p) {
        return p.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
