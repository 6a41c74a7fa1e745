package io.memscope.events;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A producer JVM killed with SIGKILL leaves a file that is still fully readable; also for a JDK 17 producer. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostMortemTest {
    @TempDir
    Path tmp;

    static List<String> javas() {
        List<String> j = new ArrayList<>();
        j.add(ProcessHandle.current().info().command().orElse("java"));
        Path jdk17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64/bin/java");
        if (Files.isExecutable(jdk17)) {
            j.add(jdk17.toString());
        }
        return j;
    }

    @Test
    void fileOfAKilledProcessIsReadable() throws Exception {
        for (String java : javas()) {
            Path dir = tmp.resolve("run" + java.hashCode());
            Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    ProducerMain.class.getName(), dir.toString(), "1000").redirectErrorStream(true).start();
            String line;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                line = r.readLine();
                assertThat(line).as(java).startsWith("READY");
                p.destroyForcibly(); // SIGKILL: no shutdown hook runs
                assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
            Path file = dir.resolve(p.pid() + ".events");
            assertThat(file).exists();
            try (EventCursor c = EventCursor.open(file)) {
                Recorded rec = new Recorded();
                assertThat(c.poll(rec)).isEqualTo(1002);
                assertThat(c.pid()).isEqualTo(p.pid());
                assertThat(c.producerClosed()).isFalse();
                assertThat(rec.lines.get(0)).isEqualTo("begin child.span");
                assertThat(rec.lines.get(1001)).isEqualTo("end child.span");
                assertThat(rec.values.subList(1, 1001)).isSorted().doesNotHaveDuplicates();
                assertThat(rec.lost).isZero();
                assertThat(c.threadNames()).containsValue("main");
            }
        }
    }
}
