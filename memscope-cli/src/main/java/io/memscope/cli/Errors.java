package io.memscope.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;

/**
 * The words for an I/O failure: the path and the reason. The JDK's file exceptions often carry only the path as
 * their message ({@code NoSuchFileException: x.json.tmp}); the reason is in their type.
 */
final class Errors {
    private Errors() {
    }

    /** @return "PATH: reason" (or the message when it names no path) */
    static String reason(Throwable t) {
        if (t instanceof UncheckedIOException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof FileSystemException) {
            FileSystemException f = (FileSystemException) t;
            String what = f.getFile() == null ? "" : f.getFile() + (f.getOtherFile() == null ? ""
                    : " -> " + f.getOtherFile()) + ": ";
            String why = f.getReason() != null ? f.getReason() : kind(f);
            return what + why;
        }
        if (t instanceof IOException && t.getMessage() != null) {
            return t.getMessage();
        }
        return String.valueOf(t);
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
