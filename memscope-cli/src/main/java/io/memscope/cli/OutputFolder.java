package io.memscope.cli;

import io.memscope.error.MemscopeException;
import io.memscope.launch.FileErrors;
import io.memscope.launch.OutputFolders;
import java.io.IOException;
import java.nio.file.Path;

/** The output folder of {@code run} and {@code attach}: created private, refused when another user could change it. */
final class OutputFolder {
    private OutputFolder() {
    }

    /**
     * Creates {@code dir} (and missing parents, mode 0700) or checks the existing one ({@link OutputFolders#outputFolder}).
     *
     * @return {@code dir}, absolute
     * @throws MemscopeException naming the folder and what is wrong with it
     */
    static Path prepare(Path dir) {
        try {
            return OutputFolders.outputFolder(dir);
        } catch (IOException e) {
            throw MemscopeException.configuration("cannot use the output folder " + dir + ": " + FileErrors.reason(e));
        }
    }
}
