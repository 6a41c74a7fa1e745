package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memscope diff} of a run attached to a running JVM against one recorded from its start (a user comparing an
 * {@code attach} with a {@code run}): the two cover different spans of their programs, which the table must say,
 * on stdout under it and on stderr; two attached runs, or two started ones, get no such note.
 */
@Timeout(60)
class DiffAttachedTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream oldOut;
    private PrintStream oldErr;

    @BeforeEach
    void capture() {
        oldOut = System.out;
        oldErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(oldOut);
        System.setErr(oldErr);
    }

    @Test
    void anAttachedRunAgainstAStartedOneIsSaid() {
        Path attached = SmallRecordings.write(dir.resolve("attached.msrec"), 400, Map.of("attached", "true"));
        Path started = SmallRecordings.write(dir.resolve("started.msrec"), 800, Map.of("attached", "false"));
        assertThat(Main.execute(new String[] {"diff", attached.toString(), started.toString()})).isZero();
        String note = "the base run (" + attached + ") was attached to a running JVM: it saw only what was allocated "
                + "after the attach, the other run everything from its start";
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("  ! " + note);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("memscope diff: " + note);
    }

    @Test
    void twoAttachedRunsGetNoNote() {
        Path a = SmallRecordings.write(dir.resolve("a.msrec"), 400, Map.of("attached", "true"));
        Path b = SmallRecordings.write(dir.resolve("b.msrec"), 800, Map.of("attached", "true"));
        assertThat(Main.execute(new String[] {"diff", a.toString(), b.toString()})).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("attached to a running JVM");
    }
}
