package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.recording.RecordingReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import memscope.fixtures.AttachCycleFixture;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A capture is an owned session: attaching the agent, detaching it and attaching it again, 20 times in one JVM that
 * keeps allocating, leaves nothing behind: no memscope thread, no MXBean, none of the JVMTI sampler library's weak or
 * global references or buffers, no capture session or stack table (its stacks and resolved methods) reachable once
 * it ended, no growth of heap or non-heap memory beyond noise; and every capture closed its own recording. Linux x86_64 (the JVMTI sampler).
 */
class AttachDetachCycleTest {
    static List<String> javas() {
        return Jvms.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void twentyCyclesLeaveNothingBehind(String java, @TempDir Path out) throws Exception {
        Path result = out.resolve("result.txt");
        Path recordings = out.resolve("recordings");
        Process p = new ProcessBuilder(java, "-Djdk.attach.allowAttachSelf=true", "-Xmx256m", "-cp",
                Jvms.classPath(AttachCycleFixture.class), AttachCycleFixture.class.getName(),
                System.getProperty("memscope.agent.jar"), recordings.toString(), "20", result.toString())
                .inheritIO().start();
        assertThat(p.waitFor(170, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        Map<String, Long> r = new HashMap<>();
        for (String line : Files.readAllLines(result)) {
            int eq = line.indexOf('=');
            String v = line.substring(eq + 1);
            r.put(line.substring(0, eq), v.equals("true") ? 1L : v.equals("false") ? 0L : Long.parseLong(v));
        }
        System.out.println("attach/detach x20 on " + java + ": " + r);
        assertThat(r.get("registeredDuring")).as("the MXBean was there during each capture").isEqualTo(20);
        assertThat(r.get("threads")).as("memscope threads alive").isZero();
        assertThat(r.get("sessionsWatched")).as("each capture's session seen while it ran").isEqualTo(20);
        assertThat(r.get("stacksDuring")).as("captures whose stack table held the worker's stacks").isEqualTo(20);
        // (stacksAfterDetach, what the tables held right after their detach, is reported, not asserted: the table
        // is emptied at the end, but a hook that read the session just before it ended may still add a stack)
        assertThat(r.get("sessionsReachable")).as("ended sessions still reachable after a GC").isZero();
        assertThat(r.get("stackTablesReachable")).as("ended captures' stack tables still reachable after a GC")
                .isZero();
        assertThat(r.get("mbeanRegistered")).as("the MXBean after the last detach").isZero();
        assertThat(r.get("weakRefs")).as("weak global references the sampler library holds").isZero();
        assertThat(r.get("globalRefs")).as("global references the sampler library holds").isZero();
        assertThat(r.get("buffers")).as("buffers the sampler library holds").isZero();
        assertThat(r.get("liveTable")).as("samples still tracked").isZero();
        assertThat(r.get("heapLast") - r.get("heapFirst")).as("heap growth over 19 cycles")
                .isLessThan(16L << 20);
        // (resident memory is not asserted: it moves by tens of MiB from one cycle to the next with no trend)
        assertThat(r.get("nonHeapLast") - r.get("nonHeapFirst")).as("metaspace and code cache growth over 19 cycles "
                + "(the JDK classes with hooks are not retransformed again)").isLessThan(4L << 20);
        try (Stream<Path> dirs = Files.list(recordings)) {
            List<Path> all = dirs.filter(Files::isDirectory).toList();
            assertThat(all).hasSize(20);
            for (Path d : all) {
                assertThat(RecordingReader.isClosed(d.resolve("recording.msrec"))).as(d.toString()).isTrue();
            }
        }
    }
}
