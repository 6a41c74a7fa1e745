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
 * alternating between variants, the median round. Not part of the build (no timing is ever asserted):
 * <pre>
 * ./mvnw -B -ntp -pl memscope-junit -am verify -Dtest=ExtensionOverhead -Dsurefire.failIfNoSpecifiedTests=false \
 *     -DskipITs -Dmemscope.measure=true
 * </pre>
 * (runs in Surefire's with-agent execution too: there the agent samples every 64 KiB.)
 */
@EnabledIfSystemProperty(named = "memscope.measure", matches = "true")
class ExtensionOverhead {
    @Test
    void measure() {
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
                long t0 = System.nanoTime();
                Map<String, Fixtures.Outcome> out = Fixtures.run(v.getValue(), Map.of());
                double micros = (System.nanoTime() - t0) / 1e3 / out.size();
                assertThat(out).hasSize(100).allSatisfy((k, o) -> assertThat(o.passed()).as(o.message()).isTrue());
                if (r >= 0) {
                    perTest.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(micros);
                }
            }
        }
        StringBuilder sb = new StringBuilder(String.format("%nJUnit extension, per test (median of %d rounds of 100 "
                + "tests; agent %s):%n", rounds, io.memscope.jmx.AgentClient.platform().isPresent() ? "on" : "off"));
        for (Map.Entry<String, List<Double>> e : perTest.entrySet()) {
            double[] a = e.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
            sb.append(String.format("  %-18s %10.1f us   (rounds: %s)%n", e.getKey(), a[a.length / 2],
                    Arrays.toString(Arrays.stream(a).mapToLong(Math::round).toArray())));
        }
        System.out.println(sb);
    }
}
