package io.memscope.cli;

import io.memscope.error.MemscopeException;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.Callable;
import org.jline.utils.AttributedString;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope top <pid>}: a live view of a JVM under the memscope agent, refreshed every second: heap used and
 * held, allocation rate, native memory outstanding, GC pauses of the last interval, and the allocation sites ordered
 * by held bytes, allocation rate, live or allocated bytes. On a terminal it is a full-screen view ({@link TopTerminal},
 * JLine: works over ssh, follows resizes; keys change the sort, pause and quit); when the output is not a terminal
 * (a pipe, a file, {@code --plain}) it prints one block of plain lines per refresh.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        description = {"A live view of a JVM running under the memscope agent (memscope run, -javaagent or memscope "
                + "attach), refreshed every second: heap used and held (reachable at the last GC, estimated from "
                + "samples), allocation rate, native memory outstanding, GC pauses of the last interval, and the "
                + "allocation sites by held bytes, allocation rate, live or allocated bytes.",
            "Keys on a terminal: h held, r rate, l live, a allocated (sort), p or space pause, q quit. When the "
                + "output is not a terminal, prints plain lines every interval."})
public final class TopCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "<pid>", description = "Process id of the JVM.")
    String pid;

    @Option(names = {"-d", "--interval"}, paramLabel = "SECONDS",
            description = "Seconds between refreshes (default: 1; at least 0.1).")
    double interval = 1.0;

    @Option(names = {"-n", "--iterations"}, paramLabel = "N",
            description = "Stop after N refreshes (default: until q, Ctrl-C or the JVM ends).")
    int iterations;

    @Option(names = {"-s", "--sort"}, paramLabel = "KEY",
            description = "Order of the sites: held, rate, live or allocated (default: held).")
    TopSort sort = TopSort.HELD;

    @Option(names = "--top", paramLabel = "N",
            description = "Sites shown (default: as many as the terminal fits; 10 in plain output).")
    int top;

    @Option(names = "--plain", description = "Plain lines even on a terminal.")
    boolean plain;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (interval < 0.1) {
            throw MemscopeException.configuration("--interval must be at least 0.1 seconds, not " + interval);
        }
        if (iterations < 0 || top < 0) {
            throw MemscopeException.configuration("--iterations and --top must not be negative");
        }
        long periodMillis = Math.round(interval * 1000);
        try (LocalJmx.Connection c = LocalJmx.connect(pid)) {
            TopSource source = new TopSource(c.server, pid);
            if (!plain && outputIsTerminal()) {
                return new TopTerminal(source, pid, periodMillis, iterations, sort, top).run();
            }
            return plainLoop(source, periodMillis);
        }
    }

    private int plainLoop(TopSource source, long periodMillis) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        int rows = top > 0 ? top : 10;
        long start = System.nanoTime();
        for (int i = 0; iterations == 0 || i < iterations; i++) {
            long wait = (start + i * periodMillis * 1_000_000L - System.nanoTime()) / 1_000_000L;
            if (wait > 0) {
                Thread.sleep(wait); // refreshes on a fixed schedule, however long a read takes
            }
            TopFrame f;
            try {
                f = source.next(sort, rows);
            } catch (TopSource.Ended e) {
                out.println("memscope top: " + e.getMessage());
                out.flush();
                return 0;
            }
            if (i > 0) {
                out.println();
            }
            List<AttributedString> lines = TopScreen.render(f, 0, false, false);
            for (AttributedString l : lines) {
                out.println(l.toString());
            }
            out.flush();
        }
        return 0;
    }

    /**
     * @return whether standard input and output are a terminal: {@code System.console()} is null otherwise up to
     *         JDK 21; from JDK 22 on it may exist anyway, and {@code Console.isTerminal()} says
     */
    static boolean outputIsTerminal() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method m = java.io.Console.class.getMethod("isTerminal");
            return (Boolean) m.invoke(console);
        } catch (NoSuchMethodException beforeJdk22) {
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
