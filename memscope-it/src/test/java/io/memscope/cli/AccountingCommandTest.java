package io.memscope.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
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

    @Test
    void printsTheTablesOfARunningJvm() throws Exception {
        Process target = start();
        try {
            String pid = Long.toString(target.pid());
            CliRun csv = CliRun.run("accounting", pid, "--format", "csv");
            assertThat(csv.exit).as(csv.err).isEqualTo(0);
            String text = csv.out;
            assertThat(text).startsWith("TABLE,THREAD_ID,THREAD_NAME,USER,HOST,EVENT_NAME,COUNT_ALLOC,COUNT_FREE,");
            assertThat(text).contains(
                    "MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME,,,tenant-a,,memory/target/cache,2,0,1234,0,0,2,2,0,1234,1234,0",
                    "MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME,,,tenant-b,,memory/target/cache,1,1,50,50,0,0,1,0,0,50,0",
                    "MEMORY_SUMMARY_BY_ACCOUNT_BY_EVENT_NAME,,,tenant-a,h1,memory/target/cache,2,0,1234,0,0,2,2,0,1234,1234,0",
                    "MEMORY_SUMMARY_BY_HOST_BY_EVENT_NAME,,,,h1,memory/target/cache,3,1,1284,50,",
                    "MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME,,,,,memory/target/pool,1,0,4096,0,0,1,1,0,4096,4096,0",
                    ",main,,,memory/target/cache,1,0,7,0,0,1,1,0,7,7,0");
            assertThat(text).containsPattern("MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME,,,,,memory/target/cache,4,1,1291,50,0,3,\\d+,0,1241,\\d+,0");

            CliRun json = CliRun.run("accounting", pid, "--json", "--table", "user");
            assertThat(json.exit).isEqualTo(0);
            assertThat(json.out).startsWith("{\n  \"tables\": [")
                    .contains("\"table\": \"USER\"", "\"name\": \"MEMORY_SUMMARY_BY_USER_BY_EVENT_NAME\"",
                            "\"user\": \"tenant-a\"", "\"CURRENT_NUMBER_OF_BYTES_USED\": 1234")
                    .doesNotContain("MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME");

            CliRun table = CliRun.run("accounting", pid, "--table", "global");
            assertThat(table.exit).isEqualTo(0);
            assertThat(table.out).startsWith("MEMORY_SUMMARY_GLOBAL_BY_EVENT_NAME (2 rows)")
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
        CliRun gone = CliRun.run("accounting", Long.toString(done.pid()));
        assertThat(gone.exit).isEqualTo(1);
        assertThat(gone.err).contains("memscope accounting: no process with pid " + done.pid());

        CliRun bad = CliRun.run("accounting", "12ab");
        assertThat(bad.exit).isEqualTo(1);
        assertThat(bad.err).contains("'12ab' is not a process id");

        Process plain = start("--no-accounting");
        try {
            CliRun none = CliRun.run("accounting", Long.toString(plain.pid()));
            assertThat(none.exit).as(none.err).isEqualTo(1);
            assertThat(none.err).contains("has no memscope accounting", "io.memscope:type=Accounting");
        } finally {
            stop(plain);
        }
    }
}
