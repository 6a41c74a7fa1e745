package io.memscope.micrometer.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.BoundedCacheService;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code memscope.agent.heap.held} follows "held means reachable" in an application that does not leak: a bounded LRU
 * cache whose entries are promoted and then evicted. Its evicted entries are old-generation garbage that young
 * collections never free: counted as held they made the gauge climb to many times the cache's size. Here the gauge,
 * read every 100 ms in the service's own JVM (agent interval 64 KiB, for about 200 samples in the cache), never goes
 * above the cache's size, and old-generation garbage shows up as unconfirmed, never as held.
 * Platform: Linux x86_64 (the agent's JVMTI sampler).
 */
class HeldGaugeTest {
    private static final Path AGENT = Path.of("../memscope-agent/target/memscope-agent.jar").toAbsolutePath();

    /**
     * @param confirmed the share of the cache the gauge must reach at least once: Parallel's full collections judge
     *                  everything allocated before they start, so the whole cache; G1's marking judges what was
     *                  allocated before it started (memscope bounds that by an earlier young pause), so of a cache that
     *                  turns over in about a second only the entries older than the marking, the rest unconfirmed
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"G1,0.05", "Parallel,0.7"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theHeldGaugeStaysFlatForAServiceThatDoesNotLeak(String gc, double confirmed, @TempDir Path dir)
            throws Exception {
        Path scrapes = dir.resolve("scrapes.txt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx64m", "-XX:+Use" + gc + "GC",
                "-javaagent:" + AGENT + "=interval=64k,quiet=true,out=" + dir.resolve("out"),
                "-cp", System.getProperty("java.class.path"), BoundedCacheService.class.getName(),
                scrapes.toString(), "12000").redirectErrorStream(true).redirectOutput(dir.resolve("log").toFile())
                .start();
        assertThat(p.waitFor(100, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("log"))).isZero();

        List<String> lines = Files.readAllLines(scrapes);
        long cache = Long.parseLong(lines.get(lines.size() - 1).substring("cache=".length()));
        List<double[]> points = new ArrayList<>();
        for (String l : lines.subList(0, lines.size() - 1)) {
            String[] f = l.split(" ");
            points.add(new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])});
        }
        assertThat(points).as("scrapes").hasSizeGreaterThan(40);
        assertThat(points).allSatisfy(x -> assertThat(x[1]).as("held is a number").isNotNaN().isNotNegative());
        // the cache fills within its first second; from the second half on, every scrape: about the cache, no climb
        List<double[]> late = points.subList(points.size() / 2, points.size());
        double maxLate = late.stream().mapToDouble(x -> x[1]).max().orElseThrow();
        double maxUnconfirmed = points.stream().mapToDouble(x -> x[2]).max().orElseThrow();
        String series = seriesOf(points);
        assertThat(maxLate).as("held at most the cache (+30%% and 2 MiB of everything else) in %s", series)
                .isLessThanOrEqualTo(cache * 1.3 + (2 << 20));
        assertThat(maxLate).as("collections of the whole heap confirmed the cache: %s", series)
                .isGreaterThanOrEqualTo(cache * confirmed);
        assertThat(maxUnconfirmed + maxLate).as("old-generation garbage was there, unconfirmed: %s", series)
                .isGreaterThan(cache * 1.3 + (2 << 20));
    }

    private static String seriesOf(List<double[]> points) {
        StringBuilder sb = new StringBuilder();
        for (double[] x : points) {
            sb.append(String.format("%n%6.0f ms held %6.2f MiB unconfirmed %6.2f MiB", x[0], x[1] / (1 << 20),
                    x[2] / (1 << 20)));
        }
        return sb.toString();
    }
}
