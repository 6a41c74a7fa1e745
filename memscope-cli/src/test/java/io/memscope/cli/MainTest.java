package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {

    static String[] run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            code = Main.execute(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return new String[] {String.valueOf(code), o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void versionNamesTheBuild() {
        String[] r = run("--version");
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[1]).startsWith("memscope 0.").doesNotContain("unknown");
    }

    @Test
    void helpListsCommands() {
        String[] r = run("--help");
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[1]).contains("Usage: memscope").contains("Commands:");
    }

    @Test
    void unknownCommandIsAClearErrorWithExitCode2() {
        String[] r = run("frobnicate");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("Unmatched argument").contains("frobnicate");
    }
}
