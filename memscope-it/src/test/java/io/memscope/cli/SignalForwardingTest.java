package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import memscope.fixtures.AttachFixture;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code memscope run} receiving SIGTERM, SIGINT or SIGHUP passes it on to the command, waits for it to end and
 * builds the reports: the application is never left running without its parent, and what it recorded is reported.
 * Linux ({@code kill}).
 */
@EnabledOnOs(OS.LINUX)
class SignalForwardingTest {

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT", "HUP"})
    @org.junit.jupiter.api.Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aSignalToMemscopeRunReachesTheCommandAndTheReportIsBuilt(String signal, @TempDir Path tmp) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(signal.equals("HUP") && Jvms.sighupIgnored(),
                "SIGHUP is ignored by this process (nohup): the processes it starts ignore it too");
        Path out = tmp.resolve("out");
        List<String> cmd = new ArrayList<>(List.of(Jvms.current(), "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "run", "--out", out.toString(), "--", Jvms.current(), "-cp",
                Jvms.classPath(AttachFixture.class), AttachFixture.class.getName(), tmp.resolve("stop").toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("MEMSCOPE_AGENT_JAR", System.getProperty("memscope.agent.jar"));
        Process cli = pb.start();
        StringBuilder output = new StringBuilder();
        long child = -1;
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(cli.getInputStream(), StandardCharsets.UTF_8));
            Pattern tracking = Pattern.compile("memscope agent: tracking pid (\\d+)");
            for (String line; (line = r.readLine()) != null; ) {
                output.append(line).append('\n');
                Matcher m = tracking.matcher(line);
                if (m.find()) {
                    child = Long.parseLong(m.group(1));
                }
                if (line.equals("attach fixture ready")) {
                    break;
                }
            }
            assertThat(child).as(output.toString()).isPositive();
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(cli.pid())).inheritIO().start();
            assertThat(kill.waitFor()).isZero();
            for (String line; (line = r.readLine()) != null; ) {
                output.append(line).append('\n');
            }
            assertThat(cli.waitFor(120, TimeUnit.SECONDS)).as(output.toString()).isTrue();
            String text = output.toString();
            assertThat(text).contains("memscope run: SIG" + signal + " passed on to the command (pid");
            assertThat(text).contains("memscope report for pid " + child);
            assertThat(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false))
                    .as("the command is not left running").isFalse();
            assertThat(Files.isRegularFile(out.resolve(Long.toString(child)).resolve("report.json"))).isTrue();
            assertThat(cli.exitValue()).as(text).isGreaterThan(128); // the command's: ended by the signal
        } finally {
            Files.writeString(tmp.resolve("stop"), "");
            cli.destroyForcibly();
            if (child > 0) {
                ProcessHandle.of(child).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }
}
