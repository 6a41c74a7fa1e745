package com.example.catalog;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.memscope.accounting.MemoryAccounting;
import io.memscope.jmx.AgentClient;
import io.memscope.micrometer.MemscopeMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * memscope's meters scraped as Prometheus would scrape them, many times, while users come and go. Isolated: with
 * two workers, CatalogTest and NeighbourTest wait for each other and need both.
 */
@Isolated
class MetricsTest {
    static Sessions snapshots;

    @Test
    void fewUserSeriesOverManyScrapesAndNeverNaN() {
        MemoryAccounting accounting = new MemoryAccounting();
        Sessions sessions = new Sessions(accounting, 100);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        int tenure = 30;
        int scrapes = 300;
        Set<String> users = new TreeSet<>();
        Pattern user = Pattern.compile("memscope_accounting_user_used_bytes\\{[^}]*user=\"([^\"]+)\"[^}]*} (\\S+)");
        try (MemscopeMetrics metrics = MemscopeMetrics.builder().accounting(accounting)
                .perOwner("memory/sessions/entries").maxOwners(5).minRefreshesShown(tenure).topSites(0)
                .maxAge(Duration.ZERO).refreshEvery(Duration.ZERO).build()) {
            metrics.bindTo(registry);
            SplittableRandom random = new SplittableRandom(7);
            for (int scrape = 0; scrape < scrapes; scrape++) {
                for (int u = 0; u < 100; u++) {
                    sessions.change(u, random.nextInt(-6, 7)); // who holds most keeps changing
                }
                metrics.refresh();
                String text = registry.scrape();
                assertFalse(text.contains("NaN"), text);
                Matcher m = user.matcher(text);
                while (m.find()) {
                    users.add(m.group(1));
                }
            }
        }
        // each of the 5 places changes hands at most once per 30 refreshes, plus "other"
        int bound = 5 * (1 + scrapes / tenure) + 1;
        assertTrue(users.contains("other"), users.toString());
        assertTrue(users.size() <= bound, users.size() + " user series over " + scrapes + " scrapes: " + users);
    }

    @Test
    void siteLabelsByMethodSurviveDeploys() throws InterruptedException {
        AgentClient agent = AgentClient.platform();
        assertTrue(agent.isPresent(), "the agent runs in this JVM (Surefire's argLine)");
        snapshots = new Sessions(new MemoryAccounting(), 1);
        snapshots.snapshot();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (MemscopeMetrics metrics = MemscopeMetrics.builder().topSites(10).sitesByMethod(true)
                .maxAge(Duration.ZERO).refreshEvery(Duration.ZERO).build()) {
            metrics.bindTo(registry);
            // "held" is what the last collection the agent processed found reachable: collect until it has seen one
            Gauge held = null;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while ((held == null || held.value() < 12 << 20) && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(50);
                metrics.refresh();
                held = registry.find("memscope.agent.site.held")
                        .tag("site", "com.example.catalog.Sessions.snapshot(Sessions.java)").gauge();
            }
            assertNotNull(held, registry.scrape());
            assertTrue(held.value() > 12 << 20, registry.scrape());
            for (Gauge g : registry.find("memscope.agent.site.held").gauges()) {
                assertFalse(g.getId().getTag("site").matches(".*:\\d+\\)$"), g.getId().toString());
            }
            assertFalse(registry.scrape().contains("NaN"));
        }
    }
}
