package io.memscope.launch;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;

/**
 * The words for an I/O failure, in every message of memscope's (the agent's on stderr, the CLI's): the path and the
 * reason. The JDK's file exceptions often carry only the path as
 * their message ({@code NoSuchFileException: x.json.tmp}); the reason is in their type.
 */
public final class FileErrors {
    private FileErrors() {
    }

    /**
     * @return "PATH: reason" ("No space left on device", "permission denied", "not a folder"...), or the message when
     *         it names no path; the I/O failure a wrapper carries is looked for among its causes
     */
    public static String reason(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c && !(c instanceof IOException)) {
            c = c.getCause();
        }
        if (c instanceof IOException) {
            t = c;
        }
        if (t instanceof FileSystemException) {
            FileSystemException f = (FileSystemException) t;
            String what = f.getFile() == null ? "" : f.getFile() + (f.getOtherFile() == null ? ""
                    : " -> " + f.getOtherFile()) + ": ";
            String why = f.getReason() != null ? f.getReason() : kind(f);
            return what + why;
        }
        if (t.getMessage() != null) {
            return t.getMessage();
        }
        return t.getClass().getSimpleName();
    }

    private static String kind(FileSystemException f) {
        if (f instanceof NoSuchFileException) {
            return "no such file or folder";
        }
        if (f instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (f instanceof FileAlreadyExistsException) {
            return "it exists already";
        }
        if (f instanceof NotDirectoryException) {
            return "not a folder";
        }
        if (f instanceof DirectoryNotEmptyException) {
            return "the folder is not empty";
        }
        if (f instanceof NotLinkException) {
            return "not a symbolic link";
        }
        if (f instanceof FileSystemLoopException) {
            return "a loop of symbolic links";
        }
        return f.getClass().getSimpleName();
    }
}
