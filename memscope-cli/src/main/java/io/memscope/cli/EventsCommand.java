package io.memscope.cli;

import io.memscope.error.MemscopeException;
import io.memscope.events.EventCursor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code memscope events <pid|file> [--follow] [--json]}: prints the events of a ring file. */
@Command(name = "events", mixinStandardHelpOptions = true,
        description = "Print the runtime events of a JVM (by pid) or of a <pid>.events ring file, as text or JSON lines.")
public final class EventsCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID|FILE", description = "process id, or path of a .events file")
    String target;

    @Option(names = "--follow", description = "keep polling until the process exits (or Ctrl-C)")
    boolean follow;

    @Option(names = "--json", description = "one JSON object per line")
    boolean json;

    @Option(names = "--interval-ms", defaultValue = "100", description = "poll interval when following (ms, 1 to "
            + "60000)")
    long intervalMs;

    @Override
    public Integer call() throws Exception {
        if (intervalMs < 1 || intervalMs > 60_000) {
            throw MemscopeException.configuration("--interval-ms must be from 1 to 60000, not " + intervalMs);
        }
        Path file = resolve(target);
        EventText text;
        PrintStream out = System.out;
        try (EventCursor cursor = EventCursor.open(file)) {
            text = new EventText(out, json, cursor, false);
            cursor.poll(text);
            if (follow) {
                Optional<ProcessHandle> proc = ProcessHandle.of(cursor.pid());
                while (proc.isPresent() && proc.get().isAlive() && !cursor.producerClosed()) {
                    Thread.sleep(intervalMs);
                    cursor.poll(text);
                    out.flush();
                }
                cursor.poll(text);
            }
        }
        out.flush();
        return text.damaged.isEmpty() ? 0 : CliErrors.EXIT_FAILURE; // what was readable is printed; the damage named
    }

    static Path resolve(String target) {
        if (target.matches("\\d+")) {
            Path p = EventCursor.fileOf(Long.parseLong(target));
            if (!Files.exists(p)) {
                throw MemscopeException.configuration("no events file for pid " + target + " at " + p
                        + " (start it with MEMSCOPE_EVENTS_START=1, or set MEMSCOPE_EVENTS_DIR to its directory)");
            }
            return p;
        }
        return Paths.get(target);
    }
}
