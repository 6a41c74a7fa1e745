package io.memscope.cli;

import io.memscope.error.MemscopeException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code memscope trace OUT.json [-- <command...> | --pid N]}: runtime events (GC pauses and phases, heap
 * counters, thread and VM lifecycle, application spans, counters and custom events) as a Chrome trace.
 */
@Command(name = "trace", mixinStandardHelpOptions = true,
        description = "Record runtime events of a command (or a running JVM) as Chrome trace-event JSON for "
                + "Perfetto or chrome://tracing.")
public final class TraceCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "OUT.json", description = "trace file to write")
    Path out;

    @Parameters(index = "1..*", paramLabel = "COMMAND", description = "command to run (after --)")
    List<String> command = new ArrayList<>();

    @Option(names = "--pid", description = "attach to this running JVM instead of running a command")
    Long pid;

    @Option(names = "--duration", description = "with --pid: stop after this many seconds (default: until exit or Ctrl-C)")
    Long durationSeconds;

    @Option(names = "--poll-ms", defaultValue = "50", description = "how often the rings are read (ms, 1 to 60000)")
    long pollMs;

    private volatile boolean stopping;

    @Override
    public Integer call() throws Exception {
        if ((pid == null) == command.isEmpty()) {
            throw MemscopeException.configuration("give either a command after -- or --pid N");
        }
        EventsRunner.checkPollMillis(pollMs);
        if (durationSeconds != null && durationSeconds < 1) {
            throw MemscopeException.configuration("--duration must be at least 1 second, not " + durationSeconds);
        }
        RingTraceEvents trace = new RingTraceEvents(out);
        EventsRunner runner = new EventsRunner(trace::forCursor, System.err);
        Thread hook = new Thread(() -> {
            stopping = true;
            try {
                runner.pollAll();
                trace.close();
            } catch (Exception ignored) {
                // best effort on Ctrl-C
            }
        }, "memscope-trace-close");
        Runtime.getRuntime().addShutdownHook(hook);
        int exit = 0;
        try {
            if (pid != null) {
                long deadline = durationSeconds == null ? Long.MAX_VALUE
                        : System.nanoTime() + durationSeconds * 1_000_000_000L;
                runner.attach(pid, () -> !stopping && System.nanoTime() < deadline, pollMs);
            } else {
                exit = runner.run(command, pollMs);
            }
            trace.close();
        } finally {
            runner.cleanup();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running
            }
        }
        System.err.println("memscope trace: " + trace.events() + " trace events written to " + out);
        return exit;
    }
}
