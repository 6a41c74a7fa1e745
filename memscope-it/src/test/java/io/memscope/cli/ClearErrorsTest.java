package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.memscope.internal.files.PrivateFiles;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.AttachFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Bad input gets a clear error: what is wrong, with the path the user gave; never an internal error or a long wait. */
class ClearErrorsTest {
    @TempDir
    Path tmp;

    private static void refused(CliRun r, String... words) {
        assertThat(r.exit).as(r.err).isEqualTo(1);
        assertThat(r.err).as(r.err).doesNotContain("internal error").doesNotContain("Exception");
        for (String w : words) {
            assertThat(r.err).contains(w);
        }
    }

    @Test
    void exportOfARecordingWithAMalformedNumberInItsMetadataSaysSoAndExports() {
        Path rec = SmallRecordings.write(tmp.resolve("odd.msrec"), 300, Map.of("intervalBytes", "12x4"));
        CliRun r = CliRun.run("export", rec.toString(), "--format", "pprof", "-o", tmp.resolve("p.pb").toString());
        assertThat(r.exit).as(r.err).isZero();
        assertThat(r.err).contains("metadata intervalBytes is not a number ('12x4')");
        assertThat(tmp.resolve("p.pb")).isNotEmptyFile();
        CliRun trace = CliRun.run("export", rec.toString(), "--format", "chrome-trace");
        assertThat(trace.exit).as(trace.err).isZero();
    }

    @Test
    void optionsOutOfRangeAreRefusedWithWhatIsAllowed() {
        Path rec = SmallRecordings.write(tmp.resolve("a.msrec"), 100, Map.of());
        refused(CliRun.run("events", rec.toString(), "--follow", "--interval-ms", "-1"),
                "--interval-ms must be from 1 to 60000, not -1");
        refused(CliRun.run("diff", rec.toString(), rec.toString(), "--fail-on-increase", "-10"),
                "--fail-on-increase must be a percentage of 0 or more, not -10");
        refused(CliRun.run("diff", rec.toString(), rec.toString(), "--top", "-1"), "--top must be 0 (all) or more");
        // a poll interval of 0 or less read the rings in a busy loop for the whole run
        refused(CliRun.run("latency", "--poll-ms", "0", "--", "true"), "--poll-ms must be from 1 to 60000, not 0");
        refused(CliRun.run("trace", "--poll-ms", "-1", tmp.resolve("t.json").toString(), "--", "true"),
                "--poll-ms must be from 1 to 60000, not -1");
        refused(CliRun.run("trace", "--pid", "1", "--duration", "-1", tmp.resolve("t.json").toString()),
                "--duration must be at least 1 second, not -1");
        assertThat(tmp.resolve("t.json")).doesNotExist();
        CliRun same = CliRun.run("diff", rec.toString(), rec.toString(), "--fail-on-increase", "0");
        assertThat(same.exit).as(same.err).isZero();
    }

    @Test
    void dumpTakesAJvmFolderAsReportDoes() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("4242"));
        SmallRecordings.write(dir.resolve("recording.msrec"), 100, Map.of());
        CliRun dump = CliRun.run("dump", dir.toString());
        assertThat(dump.exit).as(dump.err).isZero();
        assertThat(dump.out).contains("# pid 4242");
        refused(CliRun.run("dump", tmp.resolve("nothing").toString()), "no recording at");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void ioErrorsNameThePathGivenAndTheReason() throws Exception {
        Path rec = SmallRecordings.write(tmp.resolve("a.msrec"), 100, Map.of());
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        refused(CliRun.run("run", "--out", file.toString(), "--", "true"), file.toString(), "is not a folder");
        Path dangling = Files.createSymbolicLink(tmp.resolve("dangling"), tmp.resolve("nowhere"));
        refused(CliRun.run("run", "--out", dangling.toString(), "--", "true"), dangling.toString(),
                "is a symbolic link");
        String json = "missing/x.json";
        CliRun r = CliRun.run("report", rec.toString(), "--json", tmp.resolve(json).toString());
        refused(r, tmp.resolve(json).toString(), "its folder", "does not exist");
        assertThat(r.err).doesNotContain(".tmp");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void attachingToSomethingThatIsNoJvmFailsAtOnce() throws Exception {
        Process sleep = new ProcessBuilder("sleep", "60").start();
        try {
            refused(CliRun.run("attach", Long.toString(sleep.pid()), "--out", tmp.toString()), "pid " + sleep.pid()
                    + " is not a JVM", "sleep");
        } finally {
            sleep.destroyForcibly();
        }
        sleep.waitFor();
        refused(CliRun.run("attach", Long.toString(sleep.pid()), "--out", tmp.toString()), "no process with pid");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aSecondAttachToAJvmAlreadyRecordedIsRefusedAtOnce() throws Exception {
        Process target = new ProcessBuilder(Jvms.current(), "-cp", Jvms.classPath(AttachFixture.class),
                AttachFixture.class.getName(), tmp.resolve("stop").toString()).redirectErrorStream(true).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(target.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(lines.readLine()).isEqualTo("attach fixture ready");
            String pid = Long.toString(target.pid());
            CliRun first = CliRun.run("attach", pid, "--out", tmp.resolve("out").toString());
            assertThat(first.exit).as(first.err).isZero();
            refused(CliRun.run("attach", pid, "--duration", "1", "--out", tmp.resolve("out").toString()),
                    "pid " + pid + " is already recorded by memscope", "memscope detach " + pid);
            CliRun detach = CliRun.run("detach", pid);
            assertThat(detach.exit).as(detach.err).isZero();
        } finally {
            Files.writeString(tmp.resolve("stop"), "");
            target.destroyForcibly();
        }
    }

    /**
     * root attaching to another user's JVM with an output folder that user cannot write: said at once, the capture
     * stopped (it waited a minute, then said the recording was "not closed"). Root only.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anAttachWhoseTargetCannotWriteTheOutputSaysSoAtOnce() throws Exception {
        assumeTrue(PrivateFiles.selfUid() == 0 && Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "runs a JVM as another user: root and setpriv");
        Path out = Files.createDirectory(tmp.resolve("root-only"));
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwx------"));
        Process target = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                Jvms.current(), "-cp", Jvms.classPath(AttachFixture.class), AttachFixture.class.getName(),
                "/nonexistent/stop").directory(Path.of("/").toFile()).redirectErrorStream(true).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(target.getInputStream(),
                    StandardCharsets.UTF_8));
            String first = lines.readLine();
            assumeTrue("attach fixture ready".equals(first), "the JVM did not start as nobody: " + first);
            CliRun r = CliRun.run("attach", Long.toString(target.pid()), "--duration", "30", "--out", out.toString());
            assumeTrue(!r.err.contains("cannot attach"), "this JDK does not let root attach to another user: " + r.err);
            refused(r, "cannot write its recording into " + out, "this JVM runs as nobody", "capture was stopped");
        } finally {
            target.destroyForcibly();
        }
    }

    @Test
    void exportOfADamagedRecordingSaysSoOnStderrAndInTheProfile() throws Exception {
        Path rec = SmallRecordings.write(tmp.resolve("d.msrec"), 2000, Map.of());
        byte[] b = Files.readAllBytes(rec);
        b[b.length / 2] ^= 0x55; // a block in the middle: its CRC no longer matches
        Files.write(rec, b);
        CliRun collapsed = CliRun.run("export", rec.toString(), "--format", "collapsed", "-o",
                tmp.resolve("c.txt").toString());
        assertThat(collapsed.exit).isZero();
        assertThat(collapsed.err).contains("the recording is damaged at offset").contains("block CRC mismatch in block")
                .doesNotContain("not closed");
        CliRun pprof = CliRun.run("export", rec.toString(), "--format", "pprof", "-o", tmp.resolve("p.pb").toString());
        assertThat(pprof.err).contains("damaged");
        try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(
                Files.newInputStream(tmp.resolve("p.pb")))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1))
                    .contains("the recording is damaged at offset"); // a comment of the profile
        }
        CliRun trace = CliRun.run("export", rec.toString(), "--format", "chrome-trace");
        assertThat(trace.out).contains("process_labels").contains("damaged at offset");
        // damage named rightly: closed (the END block is intact) but a block in the middle failed its check
        CliRun report = CliRun.run("report", rec.toString());
        assertThat(report.err).contains("damaged at offset").contains("block CRC mismatch in block")
                .doesNotContain("not closed");
        assertThat(report.out).contains("! the recording is damaged at offset").doesNotContain("was not closed");
    }

    /** A diff against a recording read only in part looked like a large decrease, with nothing said. */
    @Test
    void diffOfADamagedRecordingSaysWhichRunAndWhere() throws Exception {
        Path sound = SmallRecordings.write(tmp.resolve("sound.msrec"), 2000, Map.of());
        byte[] b = Files.readAllBytes(sound);
        b[b.length / 2] ^= 0x55;
        Path damaged = Files.write(tmp.resolve("damaged.msrec"), b);
        CliRun text = CliRun.run("diff", sound.toString(), damaged.toString());
        assertThat(text.exit).as(text.err).isZero();
        assertThat(text.err).contains("memscope diff: the new run (" + damaged + ") is damaged at offset")
                .contains("block CRC mismatch in block").doesNotContain("base run");
        assertThat(text.out).contains("  ! the new run (" + damaged + ") is damaged at offset");
        CliRun json = CliRun.run("diff", damaged.toString(), sound.toString(), "--json");
        assertThat(json.err).contains("memscope diff: the base run (" + damaged + ") is damaged at offset");
        CliRun same = CliRun.run("diff", sound.toString(), sound.toString());
        assertThat(same.err).isEmpty();
        assertThat(same.out).doesNotContain("!");
    }

    /** One damaged ring: the other rings' events are printed, the damaged one is named, the exit status says so. */
    @Test
    void eventsPrintsTheReadableRingsAndNamesTheDamagedOne() throws Exception {
        Path file;
        io.memscope.events.RuntimeEvents.start(io.memscope.events.EventsSettings.fromEnvironment()
                .withDirectory(tmp).withRingSize(4096).withSlots(2).withPreserve(true));
        try {
            io.memscope.events.Counter first = io.memscope.events.RuntimeEvents.counter("ring.first");
            first.set(1); // this thread's ring: the first slot
            Thread other = new Thread(() -> io.memscope.events.RuntimeEvents.counter("ring.second").set(2), "second");
            other.start();
            other.join();
            file = io.memscope.events.RuntimeEvents.file();
        } finally {
            io.memscope.events.RuntimeEvents.stop();
        }
        byte[] b = Files.readAllBytes(file);
        java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int slots = (int) h.getLong(64); // the header's slots offset (docs/formats/events.md)
        int firstRecord = slots + 256;    // after the first slot's 256-byte header
        for (int k = 0; k < 8; k++) {
            b[firstRecord + k] ^= (byte) 0xA5;
        }
        Path damaged = Files.write(tmp.resolve("damaged.events"), b);
        CliRun r = CliRun.run("events", damaged.toString());
        assertThat(r.exit).as(r.err).isEqualTo(1);
        assertThat(r.out).contains("ring.second").doesNotContain("ring.first");
        assertThat(r.err).contains("ring is damaged and skipped").contains("slot 0").doesNotContain("Exception");
    }
}
