package io.memscope.cli;

import io.memscope.error.MemscopeException;
import io.memscope.launch.OutputFolders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope run [options] [--out DIR] -- <command...>}: runs any command with the agent injected through
 * {@code JAVA_TOOL_OPTIONS} (appended to an existing value), so that every JVM it starts (java -jar, java -cp,
 * scripts, build tools, child JVMs) records its allocations into {@code DIR/<pid>/recording.msrec}; when the command
 * has exited, prints each JVM's report, built here from its recording (report.json and summary.txt go next to the
 * recording); a JVM that ended while the command still runs has its report built then ({@link ReportsDuringRun}). A JVM that died without closing its recording (kill -9, the kernel's OOM
 * killer, a crash) gets its report too, from what the recording holds, with the damage named. Exit code: the
 * command's.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run a command with the memscope agent in every JVM it starts, then print each JVM's report.",
        footerHeading = "%n", footer = {"Examples:",
            "  memscope run --demo",
            "  memscope run --mode exact --out /tmp/ms -- java -jar app.jar",
            "  memscope run -- ./gradlew test"})
final class RunCommand implements Callable<Integer> {
    @Option(names = "--out", paramLabel = "DIR",
            description = "output directory; each JVM records into DIR/<pid>/, its report goes next to the recording "
                    + "(default ./memscope-out/<time>/)")
    Path out;

    /**
     * The demo JVM's heap. Leak suspects are judged only at collections that examined the whole heap; in a default
     * heap (a quarter of the machine's memory) the demo's few seconds see young collections only. 128 MiB holds the
     * leak's ~67 MiB, its bounded sessions' 8 MiB and the rest, and makes G1 start concurrent markings (old
     * generation past its initiating occupancy, adaptive from 45% of the heap) several times while the leak grows,
     * as a real leaking service would: 5 to 7 whole-heap collections per run on JDK 17, 5 on JDK 25 (eight runs, two
     * at a time), the leak judged in each.
     */
    static final String DEMO_HEAP = "-Xmx128m";

    /** The demo's profiled functions, unless {@code --functions} says otherwise: its request handler. */
    static final String DEMO_FUNCTIONS = "io.memscope.demo.RequestHandler.*";

    @Option(names = "--demo", description = "run the bundled demo workloads (a leak, needless temporaries, a native "
            + "leak, per-tenant budgets, scopes with a pool leak; with --functions " + DEMO_FUNCTIONS + " unless "
            + "given); extra arguments select workloads by name")
    boolean demo;

    @Mixin
    AgentArgs agent = new AgentArgs();

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "the command to run (after --)")
    List<String> command = new ArrayList<>();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /**
     * Says how a JVM whose recording is not closed ended: still running (a child left behind by the command), or
     * killed by a signal when it was the command itself.
     */
    private static void describeEnd(Path dir, Process command, int exitCode) {
        Path recording = Reports.currentRecording(dir);
        if (io.memscope.recording.RecordingReader.isClosed(recording)) {
            return;
        }
        long pid;
        try {
            pid = io.memscope.recording.RecordingReader.readHeader(recording).pid();
        } catch (RuntimeException e) {
            return;
        }
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            System.err.println("memscope run: pid " + pid + " is still running; its report covers what it recorded "
                    + "so far");
        } else if (pid == command.pid() && exitCode > 128) {
            System.err.println("memscope run: pid " + pid + " was killed by signal " + (exitCode - 128)
                    + (exitCode - 128 == 9 ? " (SIGKILL)" : "") + " before it could close its recording");
        } else if (diskFull(dir)) {
            System.err.println("memscope run: pid " + pid + " could not finish its recording: the disk holding " + dir
                    + " is full; the report covers what was written");
        } else {
            System.err.println("memscope run: pid " + pid + " ended without closing its recording (killed, crashed "
                    + "or out of memory)");
        }
    }

    /**
     * An option {@code run} does not know, before the command: most likely the command's own (a JVM option such as
     * {@code -Xmx1g}), so say where the command goes, then picocli's own message and usage.
     */
    static int commandGoesAfterDashDash(picocli.CommandLine.ParameterException ex, String[] args,
                                        picocli.CommandLine.IParameterExceptionHandler usual) throws Exception {
        picocli.CommandLine cl = ex.getCommandLine();
        java.io.PrintWriter err = cl.getErr();
        if (ex instanceof picocli.CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            err.println("memscope run: unknown option '" + u.getUnmatched().get(0) + "'. The command to run goes "
                    + "after --, with its own options: memscope run [options] -- <command...>, for example "
                    + "memscope run -- java " + u.getUnmatched().get(0) + " ...");
            return cl.getCommandSpec().exitCodeOnInvalidInput();
        }
        return usual.handleParseException(ex, args);
    }

    /** @return whether the file system holding {@code dir} has less room than the agent needs to end a recording */
    static boolean diskFull(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace() < 64 * 1024;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public Integer call() throws Exception {
        List<String> cmd = new ArrayList<>();
        if (demo) {
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            cmd.add(java.toString());
            cmd.add(DEMO_HEAP);
            cmd.add("-cp");
            cmd.add(Jars.demo().toString());
            cmd.add("io.memscope.demo.DemoMain");
            cmd.addAll(command);
            if (agent.functions.isEmpty()) {
                agent.functions.add(DEMO_FUNCTIONS);
            }
        } else {
            if (command.isEmpty()) {
                throw MemscopeException.configuration("no command given: memscope run [options] -- <command...> "
                        + "(or --demo)");
            }
            cmd.addAll(command);
        }
        Path dir = out != null ? out : OutputFolders.defaultOutputBase().resolve(
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        dir = OutputFolder.prepare(dir);
        List<Path> before = Reports.recordingDirs(dir);
        String agentArgs = agent.toAgentString(dir, null);
        Path agentJar = Jars.agent();

        ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
        Map<String, String> env = pb.environment();
        String javaagent = "-javaagent:" + agentJar + (agentArgs.isEmpty() ? "" : "=" + agentArgs);
        if (javaagent.contains(" ")) {
            javaagent = "\"" + javaagent + "\"";
        }
        String existing = env.get("JAVA_TOOL_OPTIONS");
        env.put("JAVA_TOOL_OPTIONS", existing == null || existing.isBlank() ? javaagent : existing + " " + javaagent);
        env.put("MEMSCOPE_OUT", dir.toString());

        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw MemscopeException.configuration("cannot start " + cmd.get(0) + ": " + e.getMessage());
        }
        int code;
        // Until the reports are built: a signal goes to the command, and once it ended, waits for the reports.
        try (SignalForwarding signals = SignalForwarding.install(p, System.err)) {
            ReportsDuringRun early = new ReportsDuringRun(dir, before);
            try {
                code = p.waitFor();
            } catch (InterruptedException e) {
                p.destroy();
                throw e;
            } finally {
                early.close();
            }
            List<Path> recorded = Reports.recordingDirs(dir);
            recorded.removeAll(before);
            if (recorded.isEmpty()) {
                System.err.println("memscope run: no JVM wrote a recording under " + dir + " (did the command start "
                        + "a Java 17+ JVM?)");
            }
            for (Path d : recorded) {
                describeEnd(d, p, code);
                Reports.Built built = early.take(d);
                (built != null ? built : Reports.build(d)).print(System.out, System.err);
            }
        }
        return code;
    }
}
