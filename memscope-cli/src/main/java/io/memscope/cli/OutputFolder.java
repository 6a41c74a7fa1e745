package io.memscope.cli;

import io.memscope.internal.files.FileErrors;
import io.memscope.error.MemscopeException;
import io.memscope.internal.files.PrivateFiles;
import java.io.IOException;
import java.nio.file.Path;

/** The output folder of {@code run} and {@code attach}: created private, refused when another user could change it. */
final class OutputFolder {
    private OutputFolder() {
    }

    /**
     * Creates {@code dir} (and missing parents, mode 0700) or checks the existing one ({@link PrivateFiles#outputFolder}).
     *
     * @return {@code dir}, absolute
     * @throws MemscopeException naming the folder and what is wrong with it
     */
    static Path prepare(Path dir) {
        try {
            return PrivateFiles.outputFolder(dir);
        } catch (IOException e) {
            throw MemscopeException.configuration("cannot use the output folder " + dir + ": " + FileErrors.reason(e));
        }
    }
}
