package io.memscope.launch;

import io.memscope.internal.files.PrivateFiles;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The folders and files memscope writes its output into, by name, on the user's behalf (the agent's per-JVM folders,
 * the CLI's and the analysis's reports), built on core's private files ({@link PrivateFiles}: modes 0700/0600,
 * exclusive creation):
 *
 * <ul>
 * <li><b>Fresh</b>: a JVM's folder ({@code <out>/<pid>}) is created exclusively ({@link #newFolder}): one that
 *     exists already, whoever made it, is never reused ({@code <pid>-2} is taken instead).</li>
 * <li><b>Trusted</b>: a folder memscope writes into by name ({@link #checkTrusted}) must be a real folder (not a
 *     link), owned by the running user or root, and writable by nobody else unless it is sticky (as {@code /tmp}:
 *     others cannot rename or delete what memscope created there).</li>
 * <li><b>Never through a link</b>: files are replaced by writing a new temporary file beside them and renaming it
 *     over the name ({@link #writeAtomically}, {@link #replace}): a link at the name is replaced, its target
 *     untouched. The one exception is a device or a pipe named by the user ({@code --json /dev/stdout}), written
 *     in place.</li>
 * </ul>
 *
 * On a file system without POSIX permissions (not Linux or macOS) the modes and owners are not checked.
 */
public final class OutputFolders {
    private OutputFolders() {
    }

    /** Name of the default output folder. */
    public static final String DEFAULT_OUTPUT = "memscope-out";

    /**
     * The default output folder: {@code ./memscope-out} in the current folder, unless other users can write in the
     * current folder (a shared one such as {@code /tmp}: a {@code memscope-out} there would be shared between
     * users, whoever made it first owning it); then {@code ~/memscope-out}.
     */
    public static Path defaultOutputBase() {
        Path cwd = Path.of("").toAbsolutePath();
        if (sharedFolder(cwd)) {
            return Path.of(System.getProperty("user.home"), DEFAULT_OUTPUT).toAbsolutePath();
        }
        return cwd.resolve(DEFAULT_OUTPUT);
    }

    /** @return whether users other than the folder's owner may create names in it */
    public static boolean sharedFolder(Path dir) {
        try {
            if (!PrivateFiles.posix(dir)) {
                return false;
            }
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(dir);
            return p.contains(PosixFilePermission.GROUP_WRITE) || p.contains(PosixFilePermission.OTHERS_WRITE);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Makes {@code dir} ready to hold JVMs' folders: creates it and its missing parents (each created one 0700), then
     * checks it is trusted ({@link #checkTrusted}).
     *
     * @return {@code dir}
     */
    public static Path outputFolder(Path dir) throws IOException {
        Path abs = createFolders(dir);
        checkTrusted(abs);
        return abs;
    }

    /**
     * Creates {@code dir} and its missing parents, each created one private (0700); existing ones are not checked
     * (a folder the user named for one output file).
     *
     * @return {@code dir}, absolute
     */
    public static Path createFolders(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath();
        if (!Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
            Path parent = abs.getParent();
            if (parent != null && !Files.exists(parent)) {
                createFolders(parent);
            }
            try {
                PrivateFiles.createFolder(abs);
            } catch (FileAlreadyExistsException raced) {
                // made meanwhile (another JVM of the same run)
            }
        }
        return abs;
    }

    /**
     * Creates a new private folder named {@code name} in {@code base} (which must be trusted), or {@code name-2},
     * {@code name-3}... when that one exists: never a folder that existed before.
     *
     * @return the new folder
     */
    public static Path newFolder(Path base, String name) throws IOException {
        checkTrusted(base);
        for (int n = 1; n < 10_000; n++) {
            Path dir = base.resolve(n == 1 ? name : name + "-" + n);
            try {
                PrivateFiles.createFolder(dir);
                return dir;
            } catch (FileAlreadyExistsException taken) {
                // an earlier capture's, or anyone's: not reused
            }
        }
        throw new IOException("cannot create a new folder for " + name + " in " + base
                + ": 10 000 names are taken");
    }

    /**
     * Checks a folder memscope writes into: a folder, not a link to one; owned by the running user or root; not
     * writable by other users unless sticky.
     *
     * @throws IOException naming the folder and what is wrong with it
     */
    public static void checkTrusted(Path dir) throws IOException {
        PrivateFiles.checkFolder(dir, true);
    }

    /**
     * Writes {@code content} to {@code file} as a whole: into a new private temporary file beside it, renamed over
     * it, so that a reader never sees half a file and nothing is written through a link planted at the name (the
     * link is replaced). A device or a pipe at the name ({@code /dev/stdout}, {@code /dev/null}, a named pipe,
     * directly or through a link owned by the user or root) is written in place. On failure the temporary file is
     * deleted and the file is left as it was.
     */
    public static void writeAtomically(Path file, String content) throws IOException {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        try (Replacement r = replace(file)) {
            r.stream().write(bytes);
            r.commit();
        }
    }

    /**
     * Starts replacing {@code file} (see {@link #writeAtomically}): write into {@link Replacement#stream()}, then
     * {@link Replacement#commit()}; closing without committing deletes what was written.
     */
    public static Replacement replace(Path file) throws IOException {
        Path abs = file.toAbsolutePath();
        if (Files.isDirectory(abs, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(file + " is a folder");
        }
        if (writtenInPlace(abs)) {
            return new Replacement(abs, null, Files.newOutputStream(abs));
        }
        Path parent = abs.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw new NoSuchFileException(file.toString(), null, "its folder " + parent + " does not exist");
        }
        String base = abs.getFileName().toString();
        for (int attempt = 0; ; attempt++) {
            Path tmp = parent.resolve("." + base + "." + Long.toHexString(ProcessHandle.current().pid()) + "-"
                    + Long.toHexString(System.nanoTime() + attempt) + ".tmp");
            try {
                Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                FileAttribute<?>[] attrs = PrivateFiles.posix(parent)
                        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_MODE)}
                        : new FileAttribute<?>[0];
                OutputStream out = Channels.newOutputStream(Files.newByteChannel(tmp, options, attrs));
                if (PrivateFiles.posix(parent)) {
                    Files.setPosixFilePermissions(tmp, PrivateFiles.FILE_MODE);
                }
                return new Replacement(abs, tmp, out);
            } catch (FileAlreadyExistsException e) {
                if (attempt > 100) {
                    throw e;
                }
            }
        }
    }

    /**
     * @return whether {@code file} is a device or a pipe (not a regular file, a folder, or nothing), directly or
     *         through links owned by the running user or root
     */
    private static boolean writtenInPlace(Path file) throws IOException {
        Path p = file;
        for (int hops = 0; hops < 40; hops++) {
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            if (!Files.isSymbolicLink(p)) {
                return !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(p,
                        LinkOption.NOFOLLOW_LINKS);
            }
            int owner = PrivateFiles.uid(p);
            if (owner >= 0 && owner != 0 && owner != PrivateFiles.selfUid()) {
                return false; // another user's link: replaced, never followed
            }
            p = p.resolveSibling(Files.readSymbolicLink(p));
        }
        return false;
    }

    /** A file being replaced: written to a temporary file, renamed over the name at {@link #commit}. */
    public static final class Replacement implements AutoCloseable {
        private final Path file;
        private final Path tmp;
        private final OutputStream out;
        private boolean closed;
        private boolean committed;

        Replacement(Path file, Path tmp, OutputStream out) {
            this.file = file;
            this.tmp = tmp;
            this.out = new FilterOutputStream(out) {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                }
            };
        }

        /** @return where to write the new content */
        public OutputStream stream() {
            return out;
        }

        /** Closes the stream and puts the new content in place. */
        public void commit() throws IOException {
            closeStream();
            if (tmp != null) {
                try {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            committed = true;
        }

        private void closeStream() throws IOException {
            if (!closed) {
                closed = true;
                out.close();
            }
        }

        /** Without {@link #commit}: deletes what was written, the file stays as it was. */
        @Override
        public void close() throws IOException {
            if (committed) {
                return;
            }
            try {
                closeStream();
            } catch (IOException e) {
                // the temporary file goes anyway
            } finally {
                if (tmp != null) {
                    Files.deleteIfExists(tmp);
                }
            }
        }
    }
}
