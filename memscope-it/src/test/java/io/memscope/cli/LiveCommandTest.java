package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.ChurnFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import static org.awaitility.Awaitility.await;
import java.time.Duration;

/** {@code memscope live <pid>} against a real JVM under the agent whose live set grows. */
class LiveCommandTest {

    private static Map<String, Object> growing(Object json, String list, String site) {
        for (Map<String, Object> row : Json.list(json, list)) {
            if (site.equals(row.get("site"))) {
                return row;
            }
        }
        throw new AssertionError(site + " not in " + list + ": " + json);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void liveBytesPerSiteGrowWhileTheProgramRuns(@TempDir Path out) throws Exception {
        // Grows by 64 KiB every 10 ms (about 6 MiB/s) and churns short-lived arrays meanwhile.
        Process p = new ProcessBuilder(Jvms.current(),
                "-javaagent:" + System.getProperty("memscope.agent.jar") + "=interval=64k,quiet=true,out=" + out,
                "-cp", Jvms.classPath(ChurnFixture.class), ChurnFixture.class.getName(), "60", "10")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            assertThat(r.readLine()).isEqualTo("churning");
            String pid = Long.toString(p.pid());
            String site = "memscope.fixtures.ChurnFixture.main(ChurnFixture.java:"
                    + Jvms.lineOf("memscope/fixtures/ChurnFixture.java", "GROWING-SITE") + ")";
            long[] read = new long[1];
            await("the growing site in memscope live").atMost(Duration.ofSeconds(60)).pollInSameThread()
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                        CliRun first = CliRun.run("live", pid, "--json", "--top", "5");
                        assertThat(first.exit).as(first.err).isEqualTo(0);
                        read[0] = Json.num(growing(Json.parse(first.out), "byLiveBytes", site), "liveBytes");
                    });
            long live1 = read[0];
            // Reads until the site has grown by 4 MiB (under a second at 6 MiB/s) and every figure below holds in
            // one read: the GCs that clear the churning site's references lag behind.
            await("memscope live: the growing site grown by 4 MiB, the churning one's dead objects gone")
                    .atMost(Duration.ofSeconds(60)).pollInSameThread().pollDelay(Duration.ofMillis(500))
                    .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                        Object j2 = Json.parse(CliRun.run("live", pid, "--json", "--top", "5").out);
                        Map<String, Object> row2 = growing(j2, "byLiveBytes", site);
                        long live2 = Json.num(row2, "liveBytes");
                        assertThat(row2.get("type")).isEqualTo("byte[]");
                        assertThat(live2).as("live bytes grew between two reads").isGreaterThan(live1 + (4L << 20));
                        // Nearly everything the growing site allocated is still alive; the churning site's objects
                        // died.
                        assertThat((double) live2).isGreaterThan(0.7 * Json.num(row2, "allocatedBytes"));
                        Map<String, Object> churn = Json.list(j2, "byAllocatedBytes").get(0);
                        assertThat(churn.get("site")).isNotEqualTo(site);
                        // Its dead objects drop out once the GC cleared their references.
                        assertThat(Json.num(churn, "liveBytes")).isLessThan(Json.num(churn, "allocatedBytes") / 4);
                        assertThat(Json.num(Json.obj(j2), "liveBytes")).isGreaterThanOrEqualTo(live2);
                    });

            CliRun text = CliRun.run("live", pid, "--top", "3");
            assertThat(text.exit).isEqualTo(0);
            assertThat(text.out).contains("Top sites by live bytes", "Top sites by allocated bytes", site,
                    "byte[]", "sample mode");
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aJvmWithoutTheAgentIsAClearError() throws Exception {
        Process p = new ProcessBuilder(Jvms.current(), "-cp", Jvms.classPath(ChurnFixture.class),
                ChurnFixture.class.getName(), "60").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            assertThat(r.readLine()).isEqualTo("churning");
            CliRun res = CliRun.run("live", Long.toString(p.pid()));
            assertThat(res.exit).isNotEqualTo(0);
            assertThat(res.err).contains("runs no memscope agent");
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
