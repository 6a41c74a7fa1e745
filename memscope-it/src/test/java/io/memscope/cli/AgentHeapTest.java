package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.AgentHeapFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's own heap ({@code agent.heapBytes}, estimated from its tables' sizes) against an independent figure: the
 * heap in use after full collections in the same program run with the agent and without it (the JVM's figure), at
 * the same -Xmx (the agent's out-of-memory reserves follow it). The estimate must be within a factor of 2 of the
 * difference, both ways; the report.json carries it in its metadata and the summary names it beside the heap in use.
 * JDK 25 and 17.
 */
class AgentHeapTest {
    private static final String FIXTURE = AgentHeapFixture.class.getName();

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theAgentsOwnHeapIsInTheReport(@TempDir Path out) throws Exception {
        for (String java : Jvms.javas()) {
            Path dir = out.resolve(Path.of(java).getParent().getParent().getFileName().toString());
            Files.createDirectories(dir);
            Path withAgent = dir.resolve("with.txt");
            Path without = dir.resolve("without.txt");
            List<String> command = List.of(java, "-Xmx256m", "-XX:+UseG1GC", "-cp",
                    Jvms.classPath(AgentHeapFixture.class), FIXTURE);
            Process p = new ProcessBuilder(concat(command, without.toString())).inheritIO().start();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(java + ": without the agent").isTrue();
            assertThat(p.exitValue()).isZero();
            assertThat(Jvms.memscopeRun(dir.resolve("run"), List.of(), concat(command, withAgent.toString())))
                    .as(java).isZero();
            long difference = Jvms.fixtureNumbers(withAgent).get("heapAfterGc")
                    - Jvms.fixtureNumbers(without).get("heapAfterGc");
            @SuppressWarnings("unchecked")
            Map<String, Object> report = (Map<String, Object>) Jvms.report(dir.resolve("run"));
            @SuppressWarnings("unchecked")
            Map<String, Object> meta = (Map<String, Object>) report.get("metadata");
            long estimate = Jvms.metadataCount(meta, "agent.heapBytes");
            assertThat((double) estimate).as(java + ": the agent's heap, estimated, against the heap in use with "
                    + "the agent less without it (" + difference + " bytes)")
                    .isBetween(difference / 2.0, difference * 2.0);
            // the reserves' part (1/32 and 1/64 of -Xmx256m, each at most 4 MiB), let go before the end check
            assertThat(Jvms.metadataCount(meta, "agent.reserveBytes")).as(java).isBetween(7L << 20, 8L << 20);
            assertThat(Jvms.metadataCount(meta, "agent.reservesReleasedNanos")).as(java)
                    .isBetween(Jvms.metadataCount(meta, "startNanos"), Jvms.metadataCount(meta, "endNanos"));
            // the stacks' text is a part of it: hundreds of stacks were sampled
            assertThat(Jvms.metadataCount(meta, "bounds.stacks")).as(java).isGreaterThan(100);
            assertThat(Files.readString(Jvms.summaryFile(dir.resolve("run")))).as(java)
                    .contains("memscope's own tables about ");
        }
    }

    private static List<String> concat(List<String> l, String last) {
        List<String> all = new java.util.ArrayList<>(l);
        all.add(last);
        return all;
    }
}
