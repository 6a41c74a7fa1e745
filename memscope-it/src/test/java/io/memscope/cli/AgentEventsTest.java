package io.memscope.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The main agent (memscope-agent, as {@code memscope run} injects it) starts the runtime-event rings when
 * {@code MEMSCOPE_EVENTS_START=1}: the JVM leaves a {@code <pid>.events} file that {@code memscope events} reads,
 * with GC pause spans, next to its allocation report.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AgentEventsTest {
    @TempDir
    Path tmp;

    @Test
    @SuppressWarnings("unchecked")
    void mainAgentWritesRingsWhenEventsStart() throws Exception {
        for (String java : Jvms.javas()) {
            Path dir = tmp.resolve("events-" + Math.abs(java.hashCode()));
            Path out = tmp.resolve("out-" + Math.abs(java.hashCode()));
            // the class path of an application: the test classes and memscope-core (for GcChurnMain's own spans),
            // not the build's unshaded agent jar
            List<String> cmd = new ArrayList<>(List.of(java, "-Xmx96m", "-Dmemscope.test.awaitJfr=true",
                    "-javaagent:" + Jars.agent() + "=quiet=true,out=" + out,
                    "-cp", Jvms.classPath(GcChurnMain.class, io.memscope.events.RuntimeEvents.class),
                    GcChurnMain.class.getName(), "2500"));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(tmp.resolve("child-" + Math.abs(java.hashCode()) + ".txt").toFile());
            pb.environment().put("MEMSCOPE_EVENTS_START", "1");
            pb.environment().put("MEMSCOPE_EVENTS_DIR", dir.toString());
            pb.environment().put("MEMSCOPE_EVENTS_PRESERVE", "1");
            Process p = pb.start();
            assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
            String childOut = Files.readString(tmp.resolve("child-" + Math.abs(java.hashCode()) + ".txt"));
            assertThat(p.exitValue()).as(childOut).isZero();
            Path file = dir.resolve(p.pid() + ".events");
            assertThat(file).as(childOut).exists();
            CliRun cli = CliRun.run("events", "--json", file.toString());
            assertThat(cli.exit).isZero();
            long pauseBegins = 0;
            long pauseEnds = 0;
            boolean shutdown = false;
            for (String line : cli.out.lines().toList()) {
                Map<String, Object> m = (Map<String, Object>) Json.parse(line);
                String name = String.valueOf(m.get("name"));
                if (name.startsWith("gc.pause/Pause ")) {
                    pauseBegins += "begin".equals(m.get("kind")) ? 1 : 0;
                    pauseEnds += "end".equals(m.get("kind")) ? 1 : 0;
                }
                shutdown |= "vm.shutdown".equals(name) && ((Number) m.get("value")).longValue() == p.pid();
            }
            assertThat(pauseBegins).as(java + ": GC pause spans").isGreaterThan(5).isEqualTo(pauseEnds);
            assertThat(shutdown).as(java + ": vm.shutdown").isTrue();
            assertThat(cli.out).contains("\"app.work\""); // the application's own spans share the file
            assertThat(Jvms.reportFromRecording(out)).as("the allocation recording is still written").isNotNull();
        }
    }
}
