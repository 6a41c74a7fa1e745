package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.MemoryEventType;
import io.memscope.recording.Recording;
import io.memscope.recording.RecordingReader;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import memscope.fixtures.ChurnFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The agent streams its events into the recording while the program runs. */
class StreamingTest {
    private static final Pattern FLUSHED = Pattern.compile(
            "memscope agent: flushed (\\d+) events; store holds (\\d+) events in (\\d+) bytes; recording has (\\d+)"
                    + " events");

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aJvmKilledWithKill9LeavesARecordingAndTheStoreStaysBounded(@TempDir Path out) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Jvms.current(),
                "-javaagent:" + System.getProperty("memscope.agent.jar") + "=interval=16k,stackDepth=4,flush=200,"
                        + "debug=true,out=" + out,
                "-cp", Jvms.classPath(ChurnFixture.class), ChurnFixture.class.getName());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        List<long[]> flushes = new ArrayList<>();
        List<String> output = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                output.add(line);
                Matcher m = FLUSHED.matcher(line);
                if (m.find()) {
                    flushes.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)),
                            Long.parseLong(m.group(3)), Long.parseLong(m.group(4))});
                    if (flushes.size() == 15) {
                        break;
                    }
                }
            }
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(flushes).as("flush lines in %s", output).hasSize(15);
        assertThat(output).as("no bootstrap class path append, class data sharing stays on")
                .noneMatch(l -> l.contains("Sharing is only supported"));
        long[] last = flushes.get(flushes.size() - 1);
        long streamed = last[3];
        assertThat(streamed).as("events streamed into the recording").isGreaterThan(20_000);
        long maxRetained = 0;
        long maxHeld = 0;
        for (long[] f : flushes) {
            maxRetained = Math.max(maxRetained, f[2]);
            maxHeld = Math.max(maxHeld, f[1]);
        }
        System.out.println("streamed " + streamed + " events; store held at most " + maxHeld + " events, "
                + maxRetained + " bytes");
        // Bounded: the store never holds more than a small fraction of what went through it (32 bytes an event).
        assertThat(maxRetained).as("bytes held by the store").isLessThan(8L << 20).isLessThan(streamed * 32 / 4);
        assertThat(maxHeld).as("events held by the store after a flush").isLessThan(streamed / 4);

        Path[] dirs;
        try (var s = Files.list(out)) {
            dirs = s.toArray(Path[]::new);
        }
        assertThat(dirs).hasSize(1);
        assertThat(dirs[0].resolve("report.json")).as("killed: no report").doesNotExist();
        Recording rec = RecordingReader.read(dirs[0].resolve("recording.msrec"));
        assertThat(rec.events().size()).as("everything up to the last complete block").isGreaterThanOrEqualTo(
                (int) streamed);
        assertThat(rec.totals()).as("no END block: the JVM was killed").isEmpty();
        if (rec.damage().isPresent()) {
            assertThat(rec.damage().get().offset()).as("damage only at the tail").isGreaterThan(rec.fileBytes() / 2);
        }
        assertThat(rec.metadata()).containsKeys("mode", "startNanos", "pid");
        long allocations = rec.events().stream().filter(e -> e.type() == MemoryEventType.ALLOCATE).count();
        assertThat(allocations).isGreaterThan(10_000);
        assertThat(rec.sites()).as("site definitions streamed with their events").isNotEmpty();
        assertThat(rec.events().stream().allMatch(e -> e.siteId() == 0 || rec.sites().containsKey(e.siteId())))
                .isTrue();

        // The report can still be made from what the dead JVM left behind.
        int code = Main.execute("report", dirs[0].resolve("recording.msrec").toString(), "--json",
                out.resolve("from-killed.json").toString());
        assertThat(code).isZero();
        assertThat(Json.num(Json.obj(Json.parse(Files.readString(out.resolve("from-killed.json"))),
                "totals"), "allocatedBytes")).isGreaterThan(100L << 20);
    }
}
