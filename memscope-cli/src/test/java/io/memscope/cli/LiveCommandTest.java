package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import memscope.fixtures.ChurnFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code memscope live <pid>} against a real JVM under the agent whose live set grows. */
class LiveCommandTest {

    /** Runs the CLI in this JVM; returns {exit code, stdout, stderr}. */
    private static Object[] run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int code = Main.execute(args);
            return new Object[] {code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8)};
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    private static Map<String, Object> growing(Object json, String list, String site) {
        for (Map<String, Object> row : MiniJson.list(json, list)) {
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
            Thread.sleep(1500);
            Object[] first = run("live", pid, "--json", "--top", "5");
            assertThat(first[0]).as((String) first[2]).isEqualTo(0);
            Object j1 = MiniJson.parse((String) first[1]);
            long live1 = MiniJson.num(growing(j1, "byLiveBytes", site), "liveBytes");
            Thread.sleep(2000);
            Object j2 = MiniJson.parse((String) run("live", pid, "--json", "--top", "5")[1]);
            Map<String, Object> row2 = growing(j2, "byLiveBytes", site);
            long live2 = MiniJson.num(row2, "liveBytes");
            assertThat(row2.get("type")).isEqualTo("byte[]");
            assertThat(live2).as("live bytes grew between two reads").isGreaterThan(live1 + (4L << 20));
            // Nearly everything the growing site allocated is still alive; the churning site's objects died.
            assertThat((double) live2).isGreaterThan(0.7 * MiniJson.num(row2, "allocatedBytes"));
            Map<String, Object> churn = MiniJson.list(j2, "byAllocatedBytes").get(0);
            assertThat(churn.get("site")).isNotEqualTo(site);
            // Its dead objects drop out once the GC cleared their references (the few GCs in flight lag behind).
            assertThat(MiniJson.num(churn, "liveBytes")).isLessThan(MiniJson.num(churn, "allocatedBytes") / 4);
            assertThat(MiniJson.num(MiniJson.obj(j2), "liveBytes")).isGreaterThanOrEqualTo(live2);

            Object[] text = run("live", pid, "--top", "3");
            assertThat(text[0]).isEqualTo(0);
            assertThat((String) text[1]).contains("Top sites by live bytes", "Top sites by allocated bytes", site,
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
            Object[] res = run("live", Long.toString(p.pid()));
            assertThat(res[0]).isNotEqualTo(0);
            assertThat((String) res[2]).contains("runs no memscope agent");
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
