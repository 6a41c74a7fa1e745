package io.memscope.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import static org.awaitility.Awaitility.await;

/**
 * The meters scraped by a real Prometheus (Debian's {@code prometheus} package; the test is skipped without it, or
 * fails when {@value #REQUIRED} is {@code true}): an application whose users' holdings churn all the time, exposed
 * with {@code maxOwners(5)}, scraped every 200 ms for 15 s. Prometheus's own store then holds a bounded number of
 * {@code user} series, and neither any series nor the sum over them is ever NaN.
 */
class PrometheusScrapeTest {
    /** Environment variable that makes a missing Prometheus a failure instead of a skip. */
    static final String REQUIRED = "MEMSCOPE_PROMETHEUS_TESTS_REQUIRED";

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String get(HttpClient http, String url) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url + ": " + r.body()).isEqualTo(200);
        return r.body();
    }

    private static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void prometheusStoresFewUserSeriesAndNoNaN(@TempDir Path tmp) throws Exception {
        Path binary = Path.of("/usr/bin/prometheus");
        if (!Files.isExecutable(binary)) {
            String what = "needs Debian's prometheus (apt-get install prometheus)";
            if (Boolean.parseBoolean(System.getenv(REQUIRED))) {
                Assertions.fail(what + " and " + REQUIRED + " is true");
            }
            Assumptions.abort(what + ": skipped");
        }
        MemoryAccounting acct = new MemoryAccounting();
        Instrument entries = acct.instrument("memory/cache/entries");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        int tenure = 30;
        MemscopeMetrics metrics = MemscopeMetrics.builder().accounting(acct).perOwner("memory/cache/entries")
                .maxOwners(5).minRefreshesShown(tenure).topSites(0).maxAge(Duration.ZERO)
                .refreshEvery(Duration.ofMillis(200)).build();
        metrics.bindTo(registry);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/metrics", exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        int port = freePort();
        Path config = tmp.resolve("prometheus.yml");
        Files.writeString(config, "global:\n  scrape_interval: 400ms\n  scrape_timeout: 400ms\nscrape_configs:\n"
                + "  - job_name: app\n    static_configs:\n      - targets: ['127.0.0.1:"
                + server.getAddress().getPort() + "']\n");
        Process prometheus = new ProcessBuilder(binary.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + tmp.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(tmp.resolve("prometheus.log").toFile()).start();
        HttpClient http = HttpClient.newHttpClient();
        String api = "http://127.0.0.1:" + port;
        try {
            await("Prometheus ready on " + api).atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(100)).ignoreExceptionsInstanceOf(java.io.IOException.class)
                    .failFast("Prometheus exited: see " + tmp.resolve("prometheus.log"), () -> !prometheus.isAlive())
                    .until(() -> http.send(HttpRequest.newBuilder(URI.create(api + "/-/ready")).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
            double start = System.currentTimeMillis() / 1000.0;

            // 100 users take and give back entries every 50 ms for 15 s: who holds most keeps changing
            UserChurn churn = new UserChurn(acct, entries, 100, 7);
            long end = System.nanoTime() + 15_000_000_000L;
            while (System.nanoTime() < end) {
                churn.round();
                Thread.sleep(50); // the scenario: a round every 50 ms for 15 s, under the scrapes
            }
            double churnEnd = System.currentTimeMillis() / 1000.0;
            await("a scrape after the churn ended").atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(100)).until(() -> {
                        String last = get(http, api + "/api/v1/query?query=" + q("timestamp(up{job=\"app\"})"));
                        Matcher t = Pattern.compile("\"value\":\\[[^,]+,\"([0-9.eE+]+)\"]").matcher(last);
                        return t.find() && Double.parseDouble(t.group(1)) >= churnEnd;
                    });
            double stop = System.currentTimeMillis() / 1000.0;
            String range = "&start=" + start + "&end=" + stop;

            String up = get(http, api + "/api/v1/query?query=" + q("count_over_time(up{job=\"app\"}[30s])"));
            Matcher scrapes = Pattern.compile("\"value\":\\[[^,]+,\"(\\d+)\"]").matcher(up);
            assertThat(scrapes.find()).as(up).isTrue();
            assertThat(Integer.parseInt(scrapes.group(1))).as("Prometheus scraped many times").isGreaterThan(20);

            String series = get(http, api + "/api/v1/series?match[]="
                    + q("memscope_accounting_user_used_bytes{instrument=\"memory/cache/entries\"}") + range);
            Set<String> users = new TreeSet<>();
            Matcher m = Pattern.compile("\"user\":\"([^\"]+)\"").matcher(series);
            while (m.find()) {
                users.add(m.group(1));
            }
            assertThat(users).contains("other");
            // each of the 5 places changes hands at most once per 30 refreshes (6 s at 200 ms)
            int bound = 5 * (1 + (int) Math.ceil((stop - start) / 0.2 / tenure));
            assertThat(users.size() - 1).as("user series Prometheus stored: %s", users)
                    .isLessThanOrEqualTo(bound).isPositive();

            for (String query : List.of("memscope_accounting_user_used_bytes",
                    "sum(memscope_accounting_user_used_bytes)", "memscope_accounting_used_bytes")) {
                String values = get(http, api + "/api/v1/query_range?query=" + q(query) + range + "&step=0.2");
                assertThat(values).as(query).contains("\"status\":\"success\"").contains("\"values\":[[")
                        .doesNotContainIgnoringCase("NaN");
            }
        } finally {
            prometheus.destroy();
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly();
            }
            server.stop(0);
            metrics.close();
        }
    }
}
