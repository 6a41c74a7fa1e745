package io.memscope.cli;

import io.memscope.events.Counter;
import io.memscope.events.EventType;
import io.memscope.events.EventsSettings;
import io.memscope.events.Lifecycle;
import io.memscope.events.RuntimeEvents;
import io.memscope.events.Span;
import io.memscope.events.UserEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code memscope events}, and the Python reader of the same file printing the same lines. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EventsCommandTest {
    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        RuntimeEvents.stop();
    }

    private Path writeSampleFile() {
        assertThat(RuntimeEvents.start(EventsSettings.fromEnvironment().withDirectory(tmp.resolve("ev"))
                .withRingSize(4096).withSlots(4).withPreserve(true))).isTrue();
        Path file = RuntimeEvents.file();
        Span span = RuntimeEvents.span("sample.span");
        Counter counter = RuntimeEvents.counter("sample \"quoted\" counter");
        Lifecycle life = RuntimeEvents.lifecycle("sample.life");
        UserEvent<Integer> ints = RuntimeEvents.register("sample.int", EventType.INT);
        UserEvent<Long> longs = RuntimeEvents.register("sample.long", EventType.LONG);
        UserEvent<Void> unit = RuntimeEvents.register("sample.unit", EventType.UNIT);
        UserEvent<io.memscope.events.Span.Edge> uspan = RuntimeEvents.register("sample.uspan", EventType.SPAN);
        UserEvent<byte[]> blob = RuntimeEvents.register("sample.blob", EventType.register("bytes",
                new EventType.Codec<byte[]>() {
                    @Override
                    public int encode(byte[] value, byte[] buffer) {
                        System.arraycopy(value, 0, buffer, 0, value.length);
                        return value.length;
                    }

                    @Override
                    public byte[] decode(byte[] buffer, int length) {
                        return java.util.Arrays.copyOf(buffer, length);
                    }
                }));
        for (int i = 0; i < 200; i++) { // wraps the 4 KiB ring: padding, and the oldest events are lost
            span.begin();
            counter.set(i);
            life.emit(-i);
            ints.writeInt(-i);
            longs.writeLong(1L << 40 | i);
            unit.write();
            uspan.begin();
            blob.write(new byte[] {1, 2, (byte) i});
            uspan.end();
            span.end();
        }
        Thread other = new Thread(() -> counter.set(12345), "second thread");
        other.start();
        try {
            other.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        RuntimeEvents.stop();
        return file;
    }

    @Test
    void pythonReaderPrintsTheSameEventsAsTheCli() throws Exception {
        Path file = writeSampleFile();
        CliRun cli = CliRun.run("events", file.toString());
        assertThat(cli.exit).isZero();
        List<String> lines = cli.out.lines().toList();
        assertThat(lines.get(0)).matches("-\t\\d+\tlost\t\\d+");
        assertThat(lines).anyMatch(l -> l.endsWith("\tcustom\tsample.blob\tbytes\t0102c7"));
        assertThat(lines).anyMatch(l -> l.endsWith("\tcustom\tsample.long\tlong\t1099511627975"));
        assertThat(lines).anyMatch(l -> l.endsWith("\tcounter\tsample \"quoted\" counter\t12345"));
        boolean python;
        try {
            python = new ProcessBuilder("python3", "--version").start().waitFor() == 0;
        } catch (java.io.IOException e) {
            python = false;
        }
        Assumptions.assumeTrue(python, "python3 is not installed");
        Path script = Paths.get("src/test/python/read_events.py").toAbsolutePath();
        Process p = new ProcessBuilder("python3", script.toString(), file.toString()).redirectErrorStream(true).start();
        String py = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(py).isZero();
        assertThat(py).isEqualTo(cli.out);
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonLinesParse() throws Exception {
        Path file = writeSampleFile();
        CliRun cli = CliRun.run("events", "--json", file.toString());
        assertThat(cli.exit).isZero();
        int n = 0;
        for (String line : cli.out.lines().toList()) {
            Map<String, Object> m = (Map<String, Object>) Json.parse(line);
            assertThat(m).containsKey("kind").containsKey("tid");
            if ("custom".equals(m.get("kind")) && "sample.int".equals(m.get("name"))) {
                assertThat(m.get("value")).isInstanceOf(Number.class);
            }
            n++;
        }
        assertThat(n).isGreaterThan(50);
    }

    @Test
    void badFileGivesAClearError() throws Exception {
        Path f = tmp.resolve("junk.events");
        Files.write(f, new byte[10_000]);
        Files.write(f, "this is not a ring file".getBytes(StandardCharsets.UTF_8), java.nio.file.StandardOpenOption.WRITE);
        assertThat(CliRun.run("events", f.toString()).exit).isEqualTo(CliErrors.EXIT_FAILURE);
        assertThat(CliRun.run("events", tmp.resolve("missing.events").toString()).exit).isEqualTo(CliErrors.EXIT_FAILURE);
    }

    @Test
    void followReadsUntilTheProcessExits() throws Exception {
        Path dir = tmp.resolve("follow");
        String jar = Jars.eventsAgent().toString();
        Process child = new ProcessBuilder(CliRun.churn(CliRun.testJava(), 1500,
                "-javaagent:" + jar + "=dir=" + dir + ",preserve=1")).redirectErrorStream(true).start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null && !line.equals("started")) {
                // JAVA_TOOL_OPTIONS notices and the like
            }
            Path file = dir.resolve(child.pid() + ".events");
            assertThat(file).exists();
            CliRun cli = CliRun.run("events", "--follow", "--interval-ms", "20", file.toString());
            assertThat(cli.exit).isZero();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue(); // --follow returned: it saw the end
            assertThat(cli.out.lines().filter(l -> l.contains("\tend\tapp.work")).count()).isEqualTo(20);
            assertThat(cli.out).contains("\tlifecycle\tvm.shutdown\t" + child.pid());
        } finally {
            child.destroyForcibly();
        }
    }
}
