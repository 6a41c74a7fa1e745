package io.memscope.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * While {@code memscope run}'s command runs, SIGTERM, SIGINT and SIGHUP sent to memscope are passed on to the command's
 * processes (the command and every process it started) instead of ending memscope: memscope waits for the command to
 * end, then builds the reports of what its JVMs recorded, as after any end. Without it a signal ended memscope alone
 * and left the command running without its parent (re-parented to init, no report ever built).
 *
 * <p>A signal typed on the terminal (Ctrl-C: SIGINT to the whole foreground process group) reaches the command
 * directly as well; passing it on once more is harmless for a JVM (its shutdown is already under way). The handlers
 * are memscope's while the command runs and its reports are built ({@link #close} restores the JVM's, which end
 * memscope).
 */
final class SignalForwarding implements AutoCloseable {
    /** The signals passed on. */
    static final List<String> SIGNALS = List.of("TERM", "INT", "HUP");

    private final Process command;
    private final PrintStream err;
    private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();

    private SignalForwarding(Process command, PrintStream err) {
        this.command = command;
        this.err = err;
    }

    /** Installs the handlers (those the platform supports) until {@link #close}. */
    static SignalForwarding install(Process command, PrintStream err) {
        SignalForwarding f = new SignalForwarding(command, err);
        for (String name : SIGNALS) {
            try {
                Signal s = new Signal(name);
                f.previous.put(s, Signal.handle(s, f::received));
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // not on this platform, or used by the JVM (-Xrs): left alone
            }
        }
        return f;
    }

    private void received(Signal signal) {
        List<Long> pids = new ArrayList<>();
        if (command.isAlive()) {
            pids.add(command.pid());
        }
        command.descendants().forEach(p -> pids.add(p.pid()));
        if (pids.isEmpty()) {
            err.println("memscope run: SIG" + signal.getName() + ": the command has ended; its reports are being "
                    + "built and memscope ends right after (SIGKILL ends it now)");
            return;
        }
        err.println("memscope run: SIG" + signal.getName() + " passed on to the command (pid " + command.pid()
                + (pids.size() > 1 ? " and " + (pids.size() - 1) + " processes it started" : "") + "); the reports "
                + "follow when it ends");
        List<String> kill = new ArrayList<>(List.of("kill", "-s", signal.getName()));
        for (long pid : pids) {
            kill.add(Long.toString(pid));
        }
        try {
            Process k = new ProcessBuilder(kill).redirectErrorStream(true).redirectOutput(
                    ProcessBuilder.Redirect.DISCARD).start();
            k.waitFor();
        } catch (Exception e) {
            // no kill command: SIGTERM at least, the JDK's own
            if (signal.getName().equals("TERM") || signal.getName().equals("HUP")) {
                command.descendants().forEach(ProcessHandle::destroy);
                command.destroy();
            }
        }
    }

    /** Gives the signals back to the JVM. */
    @Override
    public void close() {
        for (Map.Entry<Signal, SignalHandler> e : previous.entrySet()) {
            try {
                Signal.handle(e.getKey(), e.getValue());
            } catch (IllegalArgumentException | UnsupportedOperationException ignored) {
                // as it was
            }
        }
        previous.clear();
    }
}
