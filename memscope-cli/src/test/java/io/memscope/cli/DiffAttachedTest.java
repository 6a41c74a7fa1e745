package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
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

    @Test
    void anAttachedRunAgainstAStartedOneIsSaid() {
        Path attached = SmallRecordings.write(dir.resolve("attached.msrec"), 400, Map.of("attached", "true"));
        Path started = SmallRecordings.write(dir.resolve("started.msrec"), 800, Map.of("attached", "false"));
        CliRun r = CliRun.run("diff", attached.toString(), started.toString());
        assertThat(r.exit).as(r.err).isZero();
        String note = "the base run (" + attached + ") was attached to a running JVM: it saw only what was allocated "
                + "after the attach, the other run everything from its start";
        assertThat(r.out).contains("  ! " + note);
        assertThat(r.err).contains("memscope diff: " + note);
    }

    @Test
    void twoAttachedRunsGetNoNote() {
        Path a = SmallRecordings.write(dir.resolve("a.msrec"), 400, Map.of("attached", "true"));
        Path b = SmallRecordings.write(dir.resolve("b.msrec"), 800, Map.of("attached", "true"));
        CliRun r = CliRun.run("diff", a.toString(), b.toString());
        assertThat(r.exit).as(r.err).isZero();
        assertThat(r.out).doesNotContain("attached to a running JVM");
    }
}
