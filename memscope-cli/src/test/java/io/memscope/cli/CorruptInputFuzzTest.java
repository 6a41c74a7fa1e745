package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged input through the commands users run: a few hundred seeded mutants of a recording (bytes flipped, blocks
 * truncated, duplicated or cut short) through {@code report}, {@code dump} and {@code export}, and of a ring file
 * through {@code events}. For every one: no stack trace, no internal error (exit 70), no hang (each command within a
 * generous bound), and no silent loss: when {@code dump} finds the recording damaged, {@code report} and
 * {@code export} say so too.
 */
class CorruptInputFuzzTest {
    private static final long SEED = 20261127L;

    @TempDir
    Path tmp;

    private static CliRun bounded(String... args) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> CliRun.run(args), () -> String.join(" ", args));
    }

    private static void noCrash(CliRun r, String what) {
        assertThat(r.exit).as(what + "\n" + r.err).isIn(0, 1);
        assertThat(r.out + r.err).as(what).doesNotContain("internal error").doesNotContain("\tat ")
                .doesNotContain("Exception in thread");
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void mutatedRecordingsAreReadOrNamedDamagedNeverCrashHangOrLoseSilently() throws Exception {
        byte[] good = Files.readAllBytes(SmallRecordings.write(tmp.resolve("good.msrec"), 1500, Map.of()));
        Random rnd = new Random(SEED);
        int damagedSeen = 0;
        for (int i = 0; i < 240; i++) {
            byte[] m = mutate(good, rnd);
            Path f = Files.write(tmp.resolve("mutant.msrec"), m);
            String what = "mutant " + i + " of seed " + SEED;
            CliRun dump = bounded("dump", f.toString());
            noCrash(dump, what + ": dump");
            CliRun report = bounded("report", f.toString());
            noCrash(report, what + ": report");
            CliRun export = bounded("export", f.toString(), "--format", "collapsed");
            noCrash(export, what + ": export");
            boolean damaged = dump.err.contains("damaged recording");
            boolean unreadable = dump.exit == 1 && !damaged; // no valid header: nothing read by any command
            if (damaged) {
                damagedSeen++;
                assertThat(report.err).as(what + ": report says what dump found").containsAnyOf("damaged",
                        "not closed");
                assertThat(export.err).as(what + ": export says what dump found").containsAnyOf("damaged",
                        "not closed");
            }
            if (unreadable) {
                assertThat(report.exit).as(what).isEqualTo(1);
                assertThat(export.exit).as(what).isEqualTo(1);
            }
        }
        assertThat(damagedSeen).as("mutants found damaged").isGreaterThan(50);
    }

    /** Flips bytes, cuts the file, duplicates or drops a range: what a disk, a copy or a hand can do to a file. */
    static byte[] mutate(byte[] good, Random rnd) {
        byte[] m = good.clone();
        switch (rnd.nextInt(5)) {
            case 0, 1 -> {
                int flips = 1 + rnd.nextInt(6);
                for (int k = 0; k < flips; k++) {
                    int at = rnd.nextInt(m.length);
                    m[at] = (byte) (rnd.nextBoolean() ? rnd.nextInt(256) : m[at] ^ (1 << rnd.nextInt(8)));
                }
            }
            case 2 -> m = Arrays.copyOf(m, rnd.nextInt(m.length));
            case 3 -> {
                int from = rnd.nextInt(m.length);
                int len = Math.min(m.length - from, 1 + rnd.nextInt(2048));
                byte[] out = new byte[m.length + len];
                System.arraycopy(m, 0, out, 0, from + len);
                System.arraycopy(m, from, out, from + len, m.length - from);
                m = out;
            }
            default -> {
                int from = rnd.nextInt(m.length);
                int len = Math.min(m.length - from, 1 + rnd.nextInt(2048));
                byte[] out = new byte[m.length - len];
                System.arraycopy(m, 0, out, 0, from);
                System.arraycopy(m, from + len, out, from, m.length - from - len);
                m = out;
            }
        }
        return m;
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void mutatedRingFilesArePrintedOrNamedDamagedNeverCrashOrHang() throws Exception {
        Path file;
        io.memscope.events.RuntimeEvents.start(io.memscope.events.EventsSettings.fromEnvironment()
                .withDirectory(tmp).withRingSize(4096).withSlots(2).withPreserve(true));
        try {
            io.memscope.events.Counter c = io.memscope.events.RuntimeEvents.counter("fuzz.counter");
            io.memscope.events.Span s = io.memscope.events.RuntimeEvents.span("fuzz.span");
            for (int i = 0; i < 500; i++) { // wraps the ring: padding and a moved head
                s.begin();
                c.set(i);
                s.end();
            }
            file = io.memscope.events.RuntimeEvents.file();
        } finally {
            io.memscope.events.RuntimeEvents.stop();
        }
        byte[] good = Files.readAllBytes(file);
        int slots = (int) ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN).getLong(64);
        Random rnd = new Random(SEED + 1);
        for (int i = 0; i < 200; i++) {
            byte[] m = good.clone();
            int flips = 1 + rnd.nextInt(6);
            for (int k = 0; k < flips; k++) {
                int at = switch (rnd.nextInt(4)) {
                    case 0 -> rnd.nextInt(128);                    // header
                    case 1 -> 4096 + rnd.nextInt(512);             // names
                    case 2 -> slots + rnd.nextInt(256);            // a slot's header
                    default -> slots + 256 + rnd.nextInt(4096);    // records
                };
                m[at] = (byte) (m[at] ^ (1 << rnd.nextInt(8)));
            }
            if (rnd.nextInt(10) == 0) {
                m = Arrays.copyOf(m, rnd.nextInt(m.length));
            }
            Path f = Files.write(tmp.resolve("mutant.events"), m);
            for (List<String> args : List.of(List.of("events", f.toString()), List.of("events", f.toString(),
                    "--json"))) {
                CliRun r = bounded(args.toArray(new String[0]));
                noCrash(r, "ring mutant " + i + " of seed " + (SEED + 1) + " " + args);
                if (r.exit == 1) {
                    assertThat(r.err).as("a failure says what").isNotBlank();
                }
            }
        }
    }
}
