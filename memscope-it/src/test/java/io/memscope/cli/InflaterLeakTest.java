package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.memscope.MemoryEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.InflaterLeakFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native memory that Java code leaks through a JDK class, found with malloc sampling under {@code memscope run
 * --malloc}: inflaters kept reachable and never ended keep zlib's state and window malloc'd. Their samples are at the
 * line that created them, with zlib's (libz, or the JDK's libzip that bundles it) native frames under the Java ones,
 * and their estimate is within the sampling precision of the truth: what every block costs, counted with an
 * interval of one byte (every allocation sampled) on the same JVM. Inflaters ended at once leave nothing outstanding.
 * Linux x86_64 with glibc (the malloc sampler's platform); JDK 25 and 17.
 */
class InflaterLeakTest {
    private static final String SRC = "memscope/fixtures/InflaterLeakFixture.java";
    private static final String FIXTURE = InflaterLeakFixture.class.getName();
    private static final int TRUTH_KEPT = 200;
    private static final int KEPT = 2000;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void keptInflatersAreOutstandingAtTheirLineWithZlibFramesAndEstimatedWithinPrecision(@TempDir Path out)
            throws Exception {
        assumeThat(System.getProperty("os.arch")).as("the malloc sampler is Linux x86_64").isIn("amd64", "x86_64");
        int leak = Jvms.lineOf(SRC, "// LEAK");
        int ended = Jvms.lineOf(SRC, "// ENDED");
        for (String java : Jvms.javas()) {
            String name = Path.of(java).getParent().getParent().getFileName().toString();
            // The truth: every allocation sampled (interval 1 byte: p = 1 - exp(-size) = 1 for every size).
            MallocRecording truth = run(out.resolve(name + "-truth"), java, "1", TRUTH_KEPT, 10, null);
            assertThat(truth.metadata("malloc.dropped")).as(java + ": the truth run lost nothing").isZero();
            List<MemoryEvent> truthLeak = truth.outstandingAt(FIXTURE, leak);
            assertThat(truthLeak).as(java + ": a block or more per kept inflater").hasSizeGreaterThanOrEqualTo(TRUTH_KEPT);
            assertThat(truth.outstandingAt(FIXTURE, ended)).as(java + ": ended inflaters keep nothing").isEmpty();
            long perInflater = truthLeak.stream().mapToLong(MemoryEvent::size).sum() / TRUTH_KEPT;
            // zlib's inflate state (its code tables alone are 5.6 KiB), its z_stream, and a window when one is needed
            assertThat(perInflater).as(java + ": zlib's state and stream per inflater").isBetween(5L << 10, 64L << 10);

            Path figure = out.resolve(name + "-mxbean.txt");
            MallocRecording sampled = run(out.resolve(name), java, "16k", KEPT, KEPT, figure);
            assertThat(sampled.metadataText("malloc.selfTest")).as(java).isEqualTo("passed");
            assertThat(sampled.metadataText("malloc.off")).as(java).isNull();
            List<MemoryEvent> leaked = sampled.outstandingAt(FIXTURE, leak);
            assertThat(leaked).as(java + ": samples at the creating line").isNotEmpty();
            for (MemoryEvent e : leaked.subList(0, Math.min(20, leaked.size()))) {
                List<String> stack = sampled.stack(e);
                assertThat(stack.get(0)).as(java + ": innermost frame is native: " + stack)
                        .doesNotEndWith(")").containsAnyOf("libz", "libzip");
                assertThat(stack).as(java).anyMatch(f -> f.startsWith(FIXTURE + ".main(") && f.endsWith(":" + leak + ")"));
                assertThat(e.threadId()).as(java + ": an OS thread id, bit 63 set").isNegative();
            }
            double truthBytes = (double) perInflater * KEPT;
            List<Long> sizes = new ArrayList<>();
            for (int i = 0; i < KEPT / TRUTH_KEPT; i++) {
                truthLeak.forEach(e -> sizes.add(e.size()));
            }
            double sd = MallocRecording.standardDeviation(sizes, sampled.interval);
            double estimate = sampled.estimate(leaked);
            assertThat(Math.abs(estimate - truthBytes)).as(java + ": estimate " + estimate + " vs truth " + truthBytes
                    + " (sd " + sd + ")").isLessThan(4 * sd);
            assertThat(sampled.outstandingAt(FIXTURE, ended)).as(java + ": ended inflaters keep nothing").isEmpty();
            assertThat(sampled.allocationsAt(FIXTURE, ended)).as(java + ": ended inflaters were sampled").isNotEmpty();

            // The agent's MXBean (memscope top, AgentClient) while the program ran: the same samples, the same weights
            String[] f = Files.readString(figure).trim().split(" ");
            long at = Long.parseLong(f[0]);
            long mxbean = Long.parseLong(f[1]);
            double recorded = sampled.estimateOutstandingAt(at);
            assertThat((double) mxbean).as(java + ": MallocOutstandingBytes against the recording at that time")
                    .isCloseTo(recorded, org.assertj.core.api.Assertions.within(recorded * 0.01 + 1024));
            assertThat((double) mxbean).as(java + ": at least the kept inflaters").isGreaterThan(estimate * 0.9);
        }
    }

    private static MallocRecording run(Path dir, String java, String interval, int kept, int ended, Path figure)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(java, "-cp",
                Jvms.classPath(InflaterLeakFixture.class, io.memscope.Memscope.class)));
        if (figure != null) {
            command.add("-DmallocFigureTo=" + figure);
        }
        command.addAll(List.of(FIXTURE, Integer.toString(kept), Integer.toString(ended)));
        int code = Jvms.memscopeRun(dir, List.of("--malloc", "--malloc-interval", interval), command);
        assertThat(code).as(java).isZero();
        return MallocRecording.read(dir);
    }
}
