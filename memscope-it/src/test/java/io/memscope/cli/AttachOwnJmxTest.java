package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.AttachFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM memscope attached to and then read over JMX ({@code memscope live} starts the JVM's local management agent,
 * an RMI connector, and queries it): the connector's allocations are memscope's own, left out of the report like the
 * agent's start-up allocations, and counted.
 */
class AttachOwnJmxTest {
    /** Frames of the JDK's JMX remote and RMI plumbing, which memscope's own queries make run in the target. */
    private static final List<String> CONNECTOR = List.of("sun.rmi.", "java.rmi.", "javax.management.remote.",
            "com.sun.jmx.remote.", "jdk.internal.agent.", "sun.management.jmxremote.");

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void theJmxConnectorsAllocationsAreLeftOutAndCounted(@TempDir Path dir) throws Exception {
        Path stop = dir.resolve("stop");
        Path log = dir.resolve("fixture.log");
        Process p = new ProcessBuilder(Jvms.current(), "-cp", Jvms.classPath(AttachFixture.class),
                AttachFixture.class.getName(), stop.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Jvms.awaitOutput(log, "ready");
            String pid = Long.toString(p.pid());
            Path out = dir.resolve("out");
            // a small interval: the connector's few hundred KiB are sampled many times
            assertThat(Main.execute("attach", pid, "--out", out.toString(), "--interval", "2k")).isZero();
            for (int i = 0; i < 5; i++) {
                CliRun live = CliRun.run("live", pid, "--json");
                assertThat(live.exit).as(live.err).isZero();
            }
            CliRun detached = CliRun.run("detach", pid);
            assertThat(detached.exit).as(detached.err).isZero();
            Path jvmDir = out.resolve(pid);
            Object report = Jvms.report(out);
            Map<String, Object> meta = Json.obj(report, "metadata");
            Path folded = dir.resolve("all.txt");
            assertThat(Main.execute("export", jvmDir.toString(), "--format", "collapsed", "-o", folded.toString()))
                    .isZero();
            for (String line : Files.readAllLines(folded)) {
                assertThat(CONNECTOR).as("no stack of the report is the JMX connector's: %s", line)
                        .noneMatch(line::contains);
            }
            for (String list : List.of("topAllocationSites", "topLiveSites", "leakSuspects")) {
                assertThat(Jvms.sites(report, list)).noneMatch(s -> CONNECTOR.stream().anyMatch(s::startsWith));
            }
            assertThat(Jvms.metadataCount(meta, "jvmti.jmxConnector")).as("the connector's samples, counted")
                    .isPositive();

        } finally {
            Files.writeString(stop, "stop");
            p.waitFor(30, TimeUnit.SECONDS);
            p.destroyForcibly();
        }
    }
}
