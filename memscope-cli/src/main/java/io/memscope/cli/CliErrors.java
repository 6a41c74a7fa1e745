package io.memscope.cli;

import io.memscope.analysis.text.TerminalText;
import io.memscope.error.MemscopeException;
import io.memscope.launch.FileErrors;
import picocli.CommandLine;

/**
 * Turns failures of a subcommand into a one-line message on stderr and an exit code, instead of a stack
 * trace. {@code MEMSCOPE_DEBUG=1} prints the stack trace as well.
 */
final class CliErrors implements CommandLine.IExecutionExceptionHandler {
    /** Exit code for a failure memscope understood (bad file, bad option, I/O). */
    static final int EXIT_FAILURE = 1;
    /** Exit code for a bug. */
    static final int EXIT_INTERNAL = 70;

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parseResult) {
        if (System.getenv("MEMSCOPE_DEBUG") != null) {
            ex.printStackTrace(cmd.getErr());
        }
        if (ex instanceof MemscopeException) {
            cmd.getErr().println("memscope " + cmd.getCommandName() + ": " + TerminalText.safe(ex.getMessage()));
            return EXIT_FAILURE;
        }
        if (ex instanceof java.io.IOException || ex instanceof java.io.UncheckedIOException) {
            cmd.getErr().println("memscope " + cmd.getCommandName() + ": " + TerminalText.safe(FileErrors.reason(ex)));
            return EXIT_FAILURE;
        }
        cmd.getErr().println("memscope " + cmd.getCommandName() + ": internal error: " + TerminalText.safe(ex)
                + " (set MEMSCOPE_DEBUG=1 for the stack trace)");
        return EXIT_INTERNAL;
    }
}
