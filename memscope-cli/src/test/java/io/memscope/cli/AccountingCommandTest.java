package io.memscope.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Starts a real JVM that records memory and reads its tables with {@code memscope accounting <pid>}. */
@Timeout(120)
class AccountingCommandTest {

    private static Process start(String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new java.util.ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                AccountingTarget.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        assertThat(line).isEqualTo("READY");
        return p;
    }

    private static void stop(Process p) throws Exception {
        p.getOutputStream().close();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }

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

    @Test
    void printsTheTablesOfARunningJvm() throws Exception {
        Process target = start();
        try {
            String pid = Long.toString(target.pid());
            Object[] csv = run("accounting", pid, "--format", "csv");
            assertThat(csv[0]).as((String) csv[2]).isEqualTo(0);
            String text = (String) csv[1];
            assertThat(text).startsWith("TABLE,THREAD_ID,THREAD_NAME,USER,HOST,EVENT_NAME,COUNT_ALLOC,COUNT_FREE,");
            assertThat(text).contains(
                    "MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME,,,tenant-a,,memory/target/cache,2,0,1234,0,0,2,2,0,1234,1234,0",
                    "MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME,,,tenant-b,,memory/target/cache,1,1,50,50,0,0,1,0,0,50,0",
                    "MEMORY_SUMMARY_BY_ACCOUNT_BY_EVENT_NAME,,,tenant-a,h1,memory/target/cache,2,0,1234,0,0,2,2,0,1234,1234,0",
                    "MEMORY_SUMMARY_BY_HOST_BY_EVENT_NAME,,,,h1,memory/target/cache,3,1,1284,50,",
                    "MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME,,,,,memory/target/pool,1,0,4096,0,0,1,1,0,4096,4096,0",
                    ",main,,,memory/target/cache,1,0,7,0,0,1,1,0,7,7,0");
            assertThat(text).containsPattern("MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME,,,,,memory/target/cache,4,1,1291,50,0,3,\\d+,0,1241,\\d+,0");

            Object[] json = run("accounting", pid, "--json", "--table", "user");
            assertThat(json[0]).isEqualTo(0);
            assertThat((String) json[1]).startsWith("{\n  \"MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME\": [")
                    .contains("\"USER\": \"tenant-a\"", "\"CURRENT_NUMBER_OF_BYTES_USED\": 1234")
                    .doesNotContain("MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME");

            Object[] table = run("accounting", pid, "--table", "global");
            assertThat(table[0]).isEqualTo(0);
            assertThat((String) table[1]).startsWith("MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME (2 rows)")
                    .contains("EVENT_NAME", "HIGH_NUMBER_OF_BYTES_USED", "memory/target/pool");
        } finally {
            stop(target);
        }
    }

    @Test
    void clearErrorsForAMissingProcessOrAJvmWithoutAccounting() throws Exception {
        Process done = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-version")
                .redirectErrorStream(true).start();
        done.getInputStream().readAllBytes();
        done.waitFor(20, TimeUnit.SECONDS);
        Object[] gone = run("accounting", Long.toString(done.pid()));
        assertThat(gone[0]).isEqualTo(1);
        assertThat((String) gone[2]).contains("memscope accounting: no process with pid " + done.pid());

        Object[] bad = run("accounting", "12ab");
        assertThat(bad[0]).isEqualTo(1);
        assertThat((String) bad[2]).contains("'12ab' is not a process id");

        Process plain = start("--no-accounting");
        try {
            Object[] none = run("accounting", Long.toString(plain.pid()));
            assertThat(none[0]).as((String) none[2]).isEqualTo(1);
            assertThat((String) none[2]).contains("has no memscope accounting", "io.memscope:type=Accounting");
        } finally {
            stop(plain);
        }
    }
}
