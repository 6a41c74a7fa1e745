package io.memscope.junit.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.junit.Fixtures;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import memscope.fixtures.BudgetFixture;
import memscope.fixtures.OverheadFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The extension's cost per test, for docs/benchmarks.md ("JUnit extension"): 100 small tests per variant, rounds
 * alternating between variants, the median round of the test thread's CPU time (work on other threads, such as a
 * forced GC's, is not in it). Not part of the build (no timing is ever asserted):
 * <pre>
 * ./mvnw -B -ntp -pl memscope-junit -am verify -Dtest=ExtensionOverhead -Dsurefire.failIfNoSpecifiedTests=false \
 *     -DskipITs -Dmemscope.measure=true
 * </pre>
 * (runs in Surefire's with-agent execution too: there the agent samples every 64 KiB.)
 */
@EnabledIfSystemProperty(named = "memscope.measure", matches = "true")
class ExtensionOverhead {
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    @Test
    void measure() throws java.io.IOException {
        Object warm = BudgetFixture.ENTRIES; // registers the instrument the Budget variant watches
        assertThat(warm).isNotNull();
        Map<String, Class<?>> variants = new LinkedHashMap<>();
        variants.put("no annotation", OverheadFixture.Plain.class);
        variants.put("@MaxAllocation", OverheadFixture.Allocation.class);
        variants.put("@MemoryBudget", OverheadFixture.Budget.class);
        if (io.memscope.jmx.AgentClient.platform().isPresent()) {
            variants.put("@NoLeaks", OverheadFixture.Leaks.class);
            variants.put("@MaxNativeMemory", OverheadFixture.Native.class);
        }
        int rounds = 7;
        Map<String, List<Double>> perTest = new LinkedHashMap<>();
        for (int r = -2; r < rounds; r++) { // two warm-up rounds
            for (Map.Entry<String, Class<?>> v : variants.entrySet()) {
                // CPU time of this thread (EngineTestKit runs the tests on it): what the tests cost, less disturbed by
                // other processes on a loaded machine than the wall clock
                long t0 = CPU.getCurrentThreadCpuTime();
                Map<String, Fixtures.Outcome> out = Fixtures.run(v.getValue(), Map.of());
                double micros = (CPU.getCurrentThreadCpuTime() - t0) / 1e3 / out.size();
                assertThat(out).hasSize(100).allSatisfy((k, o) -> assertThat(o.passed()).as(o.message()).isTrue());
                if (r >= 0) {
                    perTest.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(micros);
                }
            }
        }
        StringBuilder sb = new StringBuilder(String.format("%nJUnit extension, CPU time of the test thread per test (median of "
                + "%d rounds of 100 tests; agent %s):%n", rounds, io.memscope.jmx.AgentClient.platform().isPresent() ? "on" : "off"));
        for (Map.Entry<String, List<Double>> e : perTest.entrySet()) {
            double[] a = e.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
            sb.append(String.format("  %-18s %10.1f us   (rounds: %s)%n", e.getKey(), a[a.length / 2],
                    Arrays.toString(Arrays.stream(a).mapToLong(Math::round).toArray())));
        }
        double[] gc = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            assertThat(io.memscope.junit.FullGcAccess.run()).isTrue();
            gc[i] = (System.nanoTime() - t0) / 1e3;
        }
        Arrays.sort(gc);
        sb.append(String.format("  forced full GC (wall time, heap of %d MiB used): %.0f us   (rounds: %s)%n",
                (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20, gc[rounds / 2],
                Arrays.toString(Arrays.stream(gc).mapToLong(Math::round).toArray())));
        System.out.println(sb);
        java.nio.file.Files.writeString(java.nio.file.Path.of("target", "extension-overhead-agent-"
                + (io.memscope.jmx.AgentClient.platform().isPresent() ? "on" : "off") + ".txt"), sb);
    }
}
