package io.memscope.micrometer.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.jmx.AgentClient;
import io.memscope.micrometer.MemscopeMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import static org.awaitility.Awaitility.await;

/** The agent's meters, with the agent in this JVM (Surefire execution {@code with-agent}, interval 64 KiB). */
class AgentMetricsTest {
    static final List<ByteBuffer> BUFFERS = new ArrayList<>();

    private static int lineOf(String marker) throws java.io.IOException {
        List<String> lines = java.nio.file.Files.readAllLines(java.nio.file.Path.of("src/test/java/memscope/fixtures/Holder.java"));
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(marker)) {
                return i + 1;
            }
        }
        throw new AssertionError(marker);
    }

    @Test
    void heapNativeSitesAndTheAgentsOwnCounters() throws Exception {
        if (Boolean.getBoolean("memscope.test.withAgent")) {
            assertThat(AgentClient.platform().isPresent()).as("the agent runs in this JVM").isTrue();
        }
        Assumptions.assumeTrue(AgentClient.platform().isPresent(), "needs the agent (Surefire execution with-agent)");
        memscope.fixtures.Holder.keep();
        for (int i = 0; i < 4; i++) {
            BUFFERS.add(ByteBuffer.allocateDirect(1 << 20));
        }
        // "held" is what the last GC the agent processed found reachable: collect, and wait until the agent has seen it
        AgentClient agent = AgentClient.platform();
        // polled on this thread: a polling thread of its own would allocate under the agent and end, moving the
        // agent's counters read below
        await("the agent's held bytes after a GC").atMost(Duration.ofSeconds(60)).pollInSameThread()
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
                    System.gc();
                    assertThat(agent.heldBytes()).as("held bytes").isGreaterThanOrEqualTo(12 << 20);
                });
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (MemscopeMetrics m = MemscopeMetrics.builder().topSites(5).maxAge(Duration.ZERO)
                .refreshEvery(Duration.ZERO).build()) {
            m.bindTo(r);
            assertThat(r.find("memscope.agent.heap.live").gauge().value()).isGreaterThan(12 << 20);
            assertThat(r.find("memscope.agent.heap.held").gauge().value()).isGreaterThan(12 << 20);
            assertThat(r.find("memscope.agent.heap.allocated").functionCounter().count()).isGreaterThan(12 << 20);
            assertThat(r.find("memscope.agent.native.outstanding").gauge().value()).isGreaterThanOrEqualTo(4 << 20);
            assertThat(r.find("memscope.agent.samples.dropped").functionCounter().count()).isZero();
            assertThat(r.find("memscope.agent.failures").functionCounter().count()).isZero();
            List<Gauge> sites = new ArrayList<>(r.find("memscope.agent.site.held").gauges());
            assertThat(sites).hasSizeLessThanOrEqualTo(5);
            String site = "memscope.fixtures.Holder.keep(Holder.java:" + lineOf("// held") + ")";
            Gauge held = r.find("memscope.agent.site.held").tag("site", site)
                    .tag("type", "byte[]").gauge();
            assertThat(held).as("the holding site among %s", sites).isNotNull();
            assertThat(held.value()).isGreaterThan(12 << 20);
            String text = r.scrape();
            assertThat(text).contains("# TYPE memscope_agent_heap_live_bytes gauge")
                    .contains("memscope_agent_native_outstanding_bytes ")
                    .contains("memscope_agent_samples_dropped_total 0.0")
                    .contains("memscope_agent_heap_held_bytes ")
                    .contains("memscope_agent_site_held_bytes{site=\"" + site + "\",type=\"byte[]\"}");
            assertThat(text).doesNotContain("NaN");
        }
        // method-level sites: the label has no line, so it survives a deploy that moves the code
        PrometheusMeterRegistry byMethod = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (MemscopeMetrics m = MemscopeMetrics.builder().topSites(5).sitesByMethod(true).maxAge(Duration.ZERO)
                .refreshEvery(Duration.ZERO).build()) {
            m.bindTo(byMethod);
            Gauge held = byMethod.find("memscope.agent.site.held").tag("site", "memscope.fixtures.Holder.keep(Holder.java)")
                    .tag("type", "byte[]").gauge();
            assertThat(held).as("the holding method among %s", byMethod.find("memscope.agent.site.held").gauges()
                    .stream().map(g -> g.getId().getTag("site")).toList()).isNotNull();
            assertThat(held.value()).isGreaterThan(12 << 20);
            for (Gauge g : byMethod.find("memscope.agent.site.held").gauges()) {
                assertThat(g.getId().getTag("site")).doesNotMatch(".*:\\d+\\)$");
            }
        }
    }
}
