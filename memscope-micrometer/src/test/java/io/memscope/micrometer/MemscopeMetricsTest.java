package io.memscope.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;
import io.memscope.accounting.OwnerScope;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import static org.awaitility.Awaitility.await;

/** The binder over a private accounting registry, read through Micrometer's SimpleMeterRegistry and a Prometheus scrape. */
class MemscopeMetricsTest {
    private final MemoryAccounting acct = new MemoryAccounting();
    private final Instrument entries = acct.instrument("memory/cache/entries");
    private final Instrument keys = acct.instrument("memory/cache/keys");

    private MemscopeMetrics metrics(String... perOwner) {
        return MemscopeMetrics.builder().accounting(acct).perOwner(perOwner).maxOwners(2).topSites(0)
                .minRefreshesShown(1).maxAge(Duration.ZERO).refreshEvery(Duration.ZERO).build();
    }

    private void charge(String user, String host, Instrument i, long bytes, int times) {
        try (OwnerScope s = acct.scope(user, host)) {
            for (int k = 0; k < times; k++) {
                acct.alloc(i, bytes);
            }
        }
    }

    private static double gauge(SimpleMeterRegistry r, String name, String... tags) {
        Gauge g = r.find(name).tags(tags).gauge();
        assertThat(g).as(name + " " + String.join(",", tags)).isNotNull();
        return g.value();
    }

    @Test
    void instrumentsExposeCurrentAndHighBytesAndCounts() {
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        try (MemscopeMetrics m = metrics()) {
            m.bindTo(r);
            Owner o = acct.alloc(entries, 4096);
            acct.alloc(entries, 1024);
            acct.free(entries, 4096, o);
            assertThat(gauge(r, "memscope.accounting.used", "instrument", "memory/cache/entries")).isEqualTo(1024);
            assertThat(gauge(r, "memscope.accounting.used.high", "instrument", "memory/cache/entries")).isEqualTo(5120);
            assertThat(gauge(r, "memscope.accounting.objects", "instrument", "memory/cache/entries")).isEqualTo(1);
            assertThat(gauge(r, "memscope.accounting.objects.high", "instrument", "memory/cache/entries")).isEqualTo(2);
            FunctionCounter allocs = r.find("memscope.accounting.allocations").tag("instrument", "memory/cache/entries")
                    .functionCounter();
            assertThat(allocs.count()).isEqualTo(2);
            assertThat(r.find("memscope.accounting.allocated").tag("instrument", "memory/cache/entries")
                    .functionCounter().count()).isEqualTo(5120);
            assertThat(r.find("memscope.accounting.used").gauge().getId().getBaseUnit()).isEqualTo("bytes");

            // an instrument registered later gets its meters at the next refresh
            Instrument late = acct.instrument("memory/cache/late");
            acct.alloc(late, 7);
            assertThat(r.find("memscope.accounting.used").tag("instrument", "memory/cache/late").gauge()).isNull();
            m.refresh();
            assertThat(gauge(r, "memscope.accounting.used", "instrument", "memory/cache/late")).isEqualTo(7);
        }
        assertThat(r.getMeters()).isEmpty();
    }

    @Test
    void usersAndHostsOfMarkedInstrumentsAreBoundedWithTheRestAsOther() {
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        charge("alice", "eu-1", entries, 1000, 3);
        charge("bob", "eu-1", entries, 1000, 2);
        charge("carol", "us-1", entries, 1000, 1);
        charge("dave", "us-2", entries, 100, 1);
        charge("alice", "eu-1", keys, 64, 1);
        try (MemscopeMetrics m = metrics("memory/cache/entries")) {
            m.bindTo(r);
            assertThat(gauge(r, "memscope.accounting.user.used", "instrument", "memory/cache/entries", "user", "alice"))
                    .isEqualTo(3000);
            assertThat(gauge(r, "memscope.accounting.user.used", "instrument", "memory/cache/entries", "user", "bob"))
                    .isEqualTo(2000);
            assertThat(r.find("memscope.accounting.user.used").tag("user", "carol").gauge()).isNull();
            assertThat(gauge(r, "memscope.accounting.user.used", "instrument", "memory/cache/entries", "user", "other"))
                    .isEqualTo(1100);
            assertThat(gauge(r, "memscope.accounting.host.used", "instrument", "memory/cache/entries", "host", "eu-1"))
                    .isEqualTo(5000);
            assertThat(gauge(r, "memscope.accounting.host.used", "instrument", "memory/cache/entries", "host", "us-1"))
                    .isEqualTo(1000);
            assertThat(gauge(r, "memscope.accounting.host.used", "instrument", "memory/cache/entries", "host", "other"))
                    .isEqualTo(100);
            // the unmarked instrument has no per-user meters
            assertThat(r.find("memscope.accounting.user.used").tag("instrument", "memory/cache/keys").gauge()).isNull();
            assertThat(r.find("memscope.accounting.user.used").gauges()).hasSize(3);

            // carol grows past bob: the bounded set follows at the next refresh
            charge("carol", "us-1", entries, 1000, 4);
            m.refresh();
            assertThat(gauge(r, "memscope.accounting.user.used", "instrument", "memory/cache/entries", "user", "carol"))
                    .isEqualTo(5000);
            assertThat(r.find("memscope.accounting.user.used").tag("user", "bob").gauge()).isNull();
            assertThat(gauge(r, "memscope.accounting.user.used", "instrument", "memory/cache/entries", "user", "other"))
                    .isEqualTo(2100);
            assertThat(r.find("memscope.accounting.user.used").gauges()).hasSize(3);
        }
    }

    @Test
    void budgetsExposeLimitUsedPeakAndCrossings() {
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        acct.setBudget(entries, 2048);
        acct.setUserBudget("alice", 1 << 20);
        try (MemscopeMetrics m = metrics()) {
            m.bindTo(r);
            Owner a = acct.alloc(entries, 3000); // over
            acct.free(entries, 3000, a);
            acct.alloc(entries, 3000); // over again
            assertThat(acct.tryAlloc(entries, 10)).isNull();
            assertThat(gauge(r, "memscope.budget.limit", "kind", "instrument", "target", "memory/cache/entries"))
                    .isEqualTo(2048);
            assertThat(gauge(r, "memscope.budget.used", "kind", "instrument", "target", "memory/cache/entries"))
                    .isEqualTo(3000);
            assertThat(gauge(r, "memscope.budget.peak", "kind", "instrument", "target", "memory/cache/entries"))
                    .isEqualTo(3000);
            assertThat(r.find("memscope.budget.exceeded").tag("target", "memory/cache/entries").functionCounter().count())
                    .isEqualTo(2);
            assertThat(r.find("memscope.budget.refusals").tag("target", "memory/cache/entries").functionCounter().count())
                    .isEqualTo(1);
            assertThat(gauge(r, "memscope.budget.limit", "kind", "user", "target", "alice")).isEqualTo(1 << 20);
        }
    }

    @Test
    void aPrometheusScrapeShowsTheMeters() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        charge("alice", "eu-1", entries, 4096, 2);
        acct.setBudget(entries, 1 << 20);
        try (MemscopeMetrics m = metrics("memory/cache/entries")) {
            m.bindTo(prometheus);
            String text = prometheus.scrape();
            assertThat(text)
                    .contains("# TYPE memscope_accounting_used_bytes gauge")
                    .contains("memscope_accounting_used_bytes{instrument=\"memory/cache/entries\"} 8192.0")
                    .contains("memscope_accounting_used_high_bytes{instrument=\"memory/cache/entries\"} 8192.0")
                    .contains("memscope_accounting_objects{instrument=\"memory/cache/entries\"} 2.0")
                    .contains("# TYPE memscope_accounting_allocations_total counter")
                    .contains("memscope_accounting_allocations_total{instrument=\"memory/cache/entries\"} 2.0")
                    .contains("memscope_accounting_allocated_bytes_total{instrument=\"memory/cache/entries\"} 8192.0")
                    .contains("memscope_accounting_user_used_bytes{instrument=\"memory/cache/entries\",user=\"alice\"} 8192.0")
                    .contains("memscope_accounting_user_used_bytes{instrument=\"memory/cache/entries\",user=\"other\"} 0.0")
                    .contains("memscope_budget_limit_bytes{kind=\"instrument\",target=\"memory/cache/entries\"} 1048576.0")
                    .contains("memscope_budget_used_bytes{kind=\"instrument\",target=\"memory/cache/entries\"} 8192.0")
                    .contains("memscope_budget_exceeded_total{kind=\"instrument\",target=\"memory/cache/entries\"} 0.0");
        }
    }

    @Test
    void theRefreshThreadPicksUpNewRowsAndStopsOnClose() throws Exception {
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        MemscopeMetrics m = MemscopeMetrics.builder().accounting(acct).topSites(0)
                .refreshEvery(Duration.ofMillis(20)).build();
        m.bindTo(r);
        acct.alloc(acct.instrument("memory/cache/later"), 99);
        await("the refresh thread's gauge of memory/cache/later").atMost(Duration.ofSeconds(30))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
                .until(() -> r.find("memscope.accounting.used").tag("instrument", "memory/cache/later").gauge() != null);
        assertThat(gauge(r, "memscope.accounting.used", "instrument", "memory/cache/later")).isEqualTo(99);
        Thread refresher = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("memscope-metrics")).findFirst().orElseThrow();
        assertThat(refresher.isDaemon()).isTrue();
        m.close();
        refresher.join(30_000);
        assertThat(refresher.isAlive()).isFalse();
        assertThat(r.getMeters()).isEmpty();
    }

    /**
     * A hundred users whose holdings move every refresh, so that who holds most changes all the time, scraped 300
     * times with {@code maxOwners(5)}: each scrape has at most 5 users and "other", their sum is the instrument's
     * figure, no value is NaN, and over all the scrapes only a bounded number of distinct users ever got series of
     * their own (a monitoring system stores each for its retention), where following the top 5 of each refresh
     * exposes most of the hundred.
     */
    @Test
    void ownerSeriesStayFewOverManyScrapesAndNoneIsNaN() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        int users = 100;
        int scrapes = 300;
        int tenure = 30;
        UserChurn churn = new UserChurn(acct, entries, users, 42);
        Pattern userSeries = Pattern.compile(
                "memscope_accounting_user_used_bytes\\{instrument=\"memory/cache/entries\",user=\"([^\"]+)\"} (\\S+)");
        Pattern total = Pattern.compile("memscope_accounting_used_bytes\\{instrument=\"memory/cache/entries\"} (\\S+)");
        Set<String> everShown = new HashSet<>();
        Set<String> everHolding = new HashSet<>();
        try (MemscopeMetrics m = MemscopeMetrics.builder().accounting(acct).perOwner("memory/cache/entries")
                .maxOwners(5).minRefreshesShown(tenure).topSites(0).maxAge(Duration.ZERO)
                .refreshEvery(Duration.ZERO).build()) {
            m.bindTo(prometheus);
            for (int scrape = 0; scrape < scrapes; scrape++) {
                // every user takes or gives back some entries: the ranking churns
                churn.round();
                for (int u = 0; u < users; u++) {
                    if (churn.holds(u)) {
                        everHolding.add("user-" + u);
                    }
                }
                m.refresh();
                String text = prometheus.scrape();
                assertThat(text).as("scrape %d", scrape).doesNotContain("NaN");
                Matcher x = userSeries.matcher(text);
                Map<String, Double> shown = new HashMap<>();
                while (x.find()) {
                    shown.put(x.group(1), Double.parseDouble(x.group(2)));
                }
                assertThat(shown).as("scrape %d", scrape).containsKey("other").hasSizeLessThanOrEqualTo(6);
                Matcher t = total.matcher(text);
                assertThat(t.find()).isTrue();
                assertThat(shown.values().stream().mapToDouble(Double::doubleValue).sum())
                        .as("the users' rows add up to the instrument").isEqualTo(Double.parseDouble(t.group(1)));
                shown.keySet().stream().filter(k -> !k.equals("other")).forEach(everShown::add);
            }
        }
        assertThat(everHolding).as("the ranking moved among most users").hasSizeGreaterThan(90);
        assertThat(everShown).as("distinct users that ever had series of their own, over %d scrapes", scrapes)
                .hasSizeLessThanOrEqualTo(5 * (1 + scrapes / tenure));
        assertThat(everShown.size()).as("far fewer than the users who were in some refresh's top 5").isLessThan(30);
    }

    /** A row that goes between two refreshes (a budget removed) reads its last value, never NaN, until removed. */
    @Test
    void aRowGoneBeforeTheRefreshReadsItsLastValueNotNaN() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        io.memscope.accounting.Budget b = acct.setBudget(entries, 2048);
        acct.alloc(entries, 1000);
        try (MemscopeMetrics m = metrics()) {
            m.bindTo(prometheus);
            assertThat(prometheus.scrape()).contains(
                    "memscope_budget_used_bytes{kind=\"instrument\",target=\"memory/cache/entries\"} 1000.0");
            acct.removeBudget(b);
            String between = prometheus.scrape();
            assertThat(between).doesNotContain("NaN").contains(
                    "memscope_budget_used_bytes{kind=\"instrument\",target=\"memory/cache/entries\"} 1000.0");
            m.refresh();
            assertThat(prometheus.scrape()).doesNotContain("memscope_budget_used_bytes");
        }
    }
}
