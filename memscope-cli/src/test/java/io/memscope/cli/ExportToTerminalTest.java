package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code memscope export --format pprof} without {@code -o} on a terminal printed kilobytes of gzip to it; it now says
 * where to write it instead. The text formats, a file and a pipe are written as before.
 */
class ExportToTerminalTest {
    @Test
    void pprofIsNotWrittenToATerminal() {
        assertThat(ExportCommand.binaryToTerminal("pprof", null, true)).startsWith("pprof is a binary")
                .contains("-o profile.pb.gz");
    }

    @Test
    void aFileAPipeAndTheTextFormatsAreWritten() {
        assertThat(ExportCommand.binaryToTerminal("pprof", Path.of("p.pb.gz"), true)).isNull();
        assertThat(ExportCommand.binaryToTerminal("pprof", null, false)).isNull();
        assertThat(ExportCommand.binaryToTerminal("collapsed", null, true)).isNull();
        assertThat(ExportCommand.binaryToTerminal("chrome-trace", null, true)).isNull();
    }
}
