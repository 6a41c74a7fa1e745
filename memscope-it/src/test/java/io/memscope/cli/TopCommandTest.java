package io.memscope.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import memscope.fixtures.ChurnFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.awaitility.Awaitility;
import java.time.Duration;

/**
 * {@code memscope top} against a real JVM under the agent whose live set grows at one site and churns garbage at
 * another: plain lines when the output is not a terminal, and the full-screen view in a real terminal (tmux) with
 * its screen captured while keys are typed.
 */
class TopCommandTest {
    @TempDir
    static Path out;
    private static Process target;
    private static String pid;
    private static String growing;
    private static String churning;

    @BeforeAll
    static void startTheTarget() throws Exception {
        // Grows by 64 KiB every 50 ms: its 256 MiB last the 120 s it runs, however slowly the tests go.
        target = new ProcessBuilder(Jvms.current(), "-Xmx256m",
                "-javaagent:" + System.getProperty("memscope.agent.jar") + "=quiet=true,out=" + out,
                "-cp", Jvms.classPath(ChurnFixture.class), ChurnFixture.class.getName(), "120", "50")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8));
        assertThat(r.readLine()).isEqualTo("churning");
        pid = Long.toString(target.pid());
        String file = "memscope/fixtures/ChurnFixture.java";
        growing = "memscope.fixtures.ChurnFixture.main(ChurnFixture.java:" + Jvms.lineOf(file, "GROWING-SITE") + ")";
        churning = "memscope.fixtures.ChurnFixture.main(ChurnFixture.java:" + Jvms.lineOf(file, "sink = new byte[")
                + ")";
    }

    @AfterAll
    static void stopTheTarget() throws Exception {
        target.destroyForcibly();
        target.waitFor(30, TimeUnit.SECONDS);
    }

    /** @return the frames of plain output (blocks separated by a blank line before the header) */
    private static List<String> frames(String text) {
        List<String> frames = new ArrayList<>();
        for (String f : text.split("\n(?=memscope top  pid)")) {
            frames.add(f);
        }
        return frames;
    }

    private static String line(String frame, String start) {
        return frame.lines().filter(l -> l.startsWith(start)).findFirst().orElseThrow(() ->
                new AssertionError("no line starting with '" + start + "' in\n" + frame));
    }

    private static String row(String frame, String site) {
        return frame.lines().filter(l -> l.endsWith(" " + site)).findFirst().orElse(null);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void plainLinesWhenTheOutputIsNotATerminal() throws Exception {
        CliRun held = CliRun.run("top", pid, "--iterations", "3", "--interval", "0.5", "--top", "5");
        assertThat(held.exit).as(held.err).isZero();
        List<String> frames = frames(held.out);
        assertThat(frames).hasSize(3);
        assertThat(held.out).doesNotContain("\u001b[", "keys:", "[running]");
        String last = frames.get(2);
        assertThat(line(last, "memscope top  pid " + pid)).contains("sample mode");
        assertThat(line(last, "heap   used")).contains("committed", "held");
        assertThat(line(last, "alloc  ")).contains("/s (all threads)", "native outstanding")
                .doesNotContain("since the attach"); // started with the JVM
        assertThat(line(last, "memscope top  pid " + pid)).contains(" up ");
        assertThat(line(last, "gc     last ")).contains("pause");
        // the agent's latest process memory sample (Linux: /proc/self/status)
        assertThat(line(last, "rss    ")).matches("rss    [0-9.]+ [KMG]iB \\(anon .*\\)  heap .*  metaspace .*  code .*  "
                + "threads [0-9]+ \\(stacks .*\\)  direct .*  malloc .*  other .*");
        assertThat(line(last, "sort: ")).isEqualTo("sort: held");
        // The growing site is held (its blocks stay reachable); the churning one's garbage is not, however much of
        // it is live (not yet collected) at any moment.
        assertThat(row(last, growing)).as(last).isNotNull();
        String churn = row(last, churning);
        assertThat(churn == null || churn.trim().startsWith("0 B")).as(last).isTrue();

        CliRun rate = CliRun.run("top", pid, "-n", "2", "-d", "1", "--top", "3", "--sort", "rate");
        assertThat(rate.exit).as(rate.err).isZero();
        String byRate = frames(rate.out).get(1);
        assertThat(line(byRate, "sort: ")).isEqualTo("sort: rate");
        List<String> rows = byRate.lines().dropWhile(l -> !l.contains("*rate")).skip(1).toList();
        assertThat(rows.get(0)).as(byRate).endsWith(" " + churning);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badOptionsAndAJvmWithoutTheAgentAreClearErrors() {
        CliRun res = CliRun.run("top", Long.toString(ProcessHandle.current().pid()), "-n", "1");
        assertThat(res.exit).isEqualTo(1);
        assertThat(res.err).contains("runs no memscope agent");
        assertThat(CliRun.run("top", pid, "--interval", "0.01").err).contains("at least 0.1");
        assertThat(CliRun.run("top", pid, "--sort", "size").exit).isNotZero();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void itStopsWhenTheJvmEndsOrTheCaptureStops() throws Exception {
        // A JVM that ends after 12 s (long enough for top to attach on a loaded machine): top says so and exits 0.
        Process shortLived = new ProcessBuilder(Jvms.current(), "-Xmx128m",
                "-javaagent:" + System.getProperty("memscope.agent.jar") + "=quiet=true,out=" + out.resolve("short"),
                "-cp", Jvms.classPath(ChurnFixture.class), ChurnFixture.class.getName(), "12")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(shortLived.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(r.readLine()).isEqualTo("churning");
            CliRun res = CliRun.run("top", Long.toString(shortLived.pid()), "-d", "0.5", "--top", "2");
            assertThat(res.exit).as(res.err).isZero();
            assertThat(res.out).contains("memscope top  pid " + shortLived.pid())
                    .endsWith("memscope top: JVM " + shortLived.pid() + " ended\n");
        } finally {
            shortLived.destroyForcibly();
        }
        // A capture that stops after 10 s while the JVM runs on: a clear error, not a hang or a stack trace.
        Process detached = new ProcessBuilder(Jvms.current(), "-Xmx128m",
                "-javaagent:" + System.getProperty("memscope.agent.jar") + "=quiet=true,duration=10,out="
                        + out.resolve("detached"),
                "-cp", Jvms.classPath(ChurnFixture.class), ChurnFixture.class.getName(), "60")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(detached.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(r.readLine()).isEqualTo("churning");
            CliRun res = CliRun.run("top", Long.toString(detached.pid()), "-d", "0.5", "--top", "2");
            assertThat(res.exit).isEqualTo(1);
            assertThat(res.err).contains("stopped capturing");
            assertThat(detached.isAlive()).isTrue();
        } finally {
            detached.destroyForcibly();
            detached.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aRealTerminalShowsTheScreenAndFollowsKeys() throws Exception {
        Tmux tmux = Tmux.start(out.resolve("tmux.sock"), 160, 40, List.of(Jvms.current(), "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "top", pid));
        try {
            String screen = tmux.await(s -> s.contains("*held") && s.contains(growing) && s.contains("[running]"));
            assertThat(screen).contains("keys: h held  r rate  l live  a allocated  w why held  p pause  q quit",
                    "memscope top  pid " + pid, "heap   used");
            for (String l : screen.split("\n")) {
                assertThat(l.length()).isLessThanOrEqualTo(160);
            }
            tmux.keys("r");
            screen = tmux.await(s -> s.contains("sort: rate") && s.contains("*rate"));
            List<String> rows = screen.lines().dropWhile(l -> !l.contains("*rate")).skip(1)
                    .filter(l -> !l.isBlank()).toList();
            assertThat(rows.get(0)).as(screen).endsWith(" " + churning);
            tmux.keys("p");
            screen = tmux.await(s -> s.contains("[PAUSED]"));
            String clock = screen.lines().findFirst().orElseThrow();
            // The scenario, not a wait: paused for 1.5 s (more than a refresh), the frame and its clock must not change
            Thread.sleep(1500);
            assertThat(tmux.screen().lines().findFirst().orElseThrow()).isEqualTo(clock);
            tmux.keys("p");
            tmux.await(s -> s.contains("[running]"));
            tmux.keys("q");
            int status = tmux.awaitExit();
            assertThat(status).as("exit status (128 + n: signal n)").isZero();
            // The alternate screen is left: nothing of the view remains on the terminal's own screen.
            assertThat(tmux.screenAndHistory()).doesNotContain("*rate", "keys:");
        } finally {
            tmux.kill();
        }
    }

    /**
     * A tmux server of its own (a private socket: nothing shared with other tmux users of the machine, and an
     * environment that is this test's) running one command in a detached terminal of a fixed size, its screen read
     * back.
     */
    static final class Tmux {
        private static final String SESSION = "top";
        /**
         * Printed by the pane's shell with the command's exit status once it ended (tmux's own pane_dead_status is not
         * always set by the time the pane is dead).
         */
        private static final String EXIT_MARK = "command-exited:";
        private final String socket;

        private Tmux(String socket) {
            this.socket = socket;
        }

        static Tmux start(Path socket, int width, int height, List<String> command) throws Exception {
            try {
                run("tmux", "-V");
            } catch (IOException e) {
                throw new AssertionError("this test needs tmux (apt-get install tmux; .ci/run installs it)", e);
            }
            StringBuilder cmd = new StringBuilder();
            for (String part : command) {
                cmd.append('\'').append(part.replace("'", "'\\''")).append("' ");
            }
            Tmux t = new Tmux(socket.toString());
            t.tmux("new-session", "-d", "-s", SESSION, "-x", Integer.toString(width), "-y", Integer.toString(height),
                    "bash", "-c", cmd + "; echo " + EXIT_MARK + "$?");
            t.tmux("set-option", "-t", SESSION, "remain-on-exit", "on");
            return t;
        }

        private String tmux(String... args) throws Exception {
            String[] cmd = new String[args.length + 3];
            cmd[0] = "tmux";
            cmd[1] = "-S";
            cmd[2] = socket;
            System.arraycopy(args, 0, cmd, 3, args.length);
            return run(cmd);
        }

        String screen() throws Exception {
            return tmux("capture-pane", "-p", "-t", SESSION);
        }

        /**
         * @return the screen with the lines scrolled off it (the alternate screen the view runs in has none; once it is
         *         left, the shell's own screen may have scrolled)
         */
        String screenAndHistory() throws Exception {
            return tmux("capture-pane", "-p", "-S", "-", "-t", SESSION);
        }

        void keys(String keys) throws Exception {
            tmux("send-keys", "-t", SESSION, keys);
        }

        /** Waits until the screen satisfies the condition (the JVM starts and attaches: seconds under load). */
        String await(Predicate<String> condition) {
            String[] last = {null};
            Awaitility.await("the screen of memscope top to match").atMost(Duration.ofSeconds(60))
                    .pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(last[0] = screen()).as("the screen").matches(condition));
            return last[0];
        }

        /** @return the exit status of the command once it ended (128 + n: ended by signal n), as its shell saw it */
        int awaitExit() {
            String[] last = {null};
            Awaitility.await("memscope top's exit status after q").atMost(Duration.ofSeconds(30))
                    .pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(last[0] = screenAndHistory()).as("screen and history")
                            .contains(EXIT_MARK));
            String s = last[0];
            return Integer.parseInt(s.substring(s.indexOf(EXIT_MARK) + EXIT_MARK.length()).lines().findFirst()
                    .orElseThrow().trim());
        }

        /** Ends the command, the session and this test's tmux server. */
        void kill() throws Exception {
            new ProcessBuilder("tmux", "-S", socket, "kill-server").start().waitFor();
        }

        private static String run(String... cmd) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd) + " failed: " + text);
            }
            return text;
        }
    }
}
