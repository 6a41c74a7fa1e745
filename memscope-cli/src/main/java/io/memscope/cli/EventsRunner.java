package io.memscope.cli;

import io.memscope.error.CorruptFileException;
import io.memscope.error.MemscopeException;
import io.memscope.events.EventCursor;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Runs a command with runtime events switched on, or attaches to a running JVM, and follows the ring files
 * that appear: each new {@code <pid>.events} file gets a cursor and the callbacks {@code sink} makes for it (a
 * command may start several JVMs). Files live in a private temporary directory that is removed at the end.
 */
final class EventsRunner {
    private final Function<EventCursor, EventCursor.Callbacks> sink;
    private final Map<Path, Followed> files = new LinkedHashMap<>();
    private final Path dir;
    private final PrintStream err;

    private static final class Followed {
        final EventCursor cursor;
        final EventCursor.Callbacks callbacks;

        Followed(EventCursor cursor, EventCursor.Callbacks callbacks) {
            this.cursor = cursor;
            this.callbacks = callbacks;
        }
    }

    /**
     * JFR settings of the recording started at VM start: the events the bridge maps. Thread start and end are in
     * it so that threads started before the bridge's own stream runs (its own threads, early application threads)
     * are recorded too, and delivered during the run rather than only by the racy final flush at exit.
     */
    static final String GC_JFC = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<configuration version=\"2.0\" label=\"memscope-gc\" description=\"GC events for memscope\">\n"
            + event("jdk.GCPhasePause") + event("jdk.GCPhasePauseLevel1") + event("jdk.GarbageCollection")
            + event("jdk.G1GarbageCollection")
            + "  <event name=\"jdk.GCHeapSummary\"><setting name=\"enabled\">true</setting></event>\n"
            + "  <event name=\"jdk.ThreadStart\"><setting name=\"enabled\">true</setting>"
            + "<setting name=\"stackTrace\">false</setting></event>\n"
            + "  <event name=\"jdk.ThreadEnd\"><setting name=\"enabled\">true</setting></event>\n"
            + "</configuration>\n";

    private static String event(String name) {
        return "  <event name=\"" + name + "\"><setting name=\"enabled\">true</setting>"
                + "<setting name=\"threshold\">0 ms</setting></event>\n";
    }

    private boolean gcLog;

    /**
     * Also has every JVM of the command write its unified GC log ({@code -Xlog:gc,gc+phases}, from VM start to exit, no
     * rotation) to {@link #gcLogOf(long)}.
     */
    EventsRunner withGcLog() {
        gcLog = true;
        return this;
    }

    EventsRunner(Function<EventCursor, EventCursor.Callbacks> sink, PrintStream err) throws IOException {
        this.sink = sink;
        this.err = err;
        this.dir = Files.createTempDirectory("memscope-events-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /** Refuses a poll interval out of 1 ms to 60 s (0 or less would read the rings in a busy loop). */
    static void checkPollMillis(long pollMillis) {
        if (pollMillis < 1 || pollMillis > 60_000) {
            throw MemscopeException.configuration("--poll-ms must be from 1 to 60000, not " + pollMillis);
        }
    }

    /** Runs {@code command} with the events agent and follows its ring files. @return the command's exit code */
    int run(List<String> command, long pollMillis) throws IOException, InterruptedException {
        if (command.isEmpty()) {
            throw MemscopeException.configuration("no command given after --");
        }
        String jar = Jars.eventsAgent().toString();
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        Map<String, String> env = pb.environment();
        String jto = env.getOrDefault("JAVA_TOOL_OPTIONS", "");
        Files.createDirectories(jfrDumps());
        if (gcLog) {
            Files.createDirectories(gcLogs());
        }
        Path jfc = dir.resolve("memscope-gc.jfc");
        Files.write(jfc, GC_JFC.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        // A JFR recording from VM start keeps the pauses that happen before the agent's stream runs.
        env.put("JAVA_TOOL_OPTIONS", (jto.isEmpty() ? "" : jto + " ") + "-javaagent:" + jar + "=waitjfr=1"
                + " -XX:StartFlightRecording:settings=" + jfc + ",filename=" + jfrDumps() + ",dumponexit=true"
                + " -Xlog:jfr+startup=error"
                + (gcLog ? " -Xlog:gc,gc+phases:file=" + gcLogs().resolve("gc-%p.log") + ":uptimenanos:filecount=0" : ""));
        env.put("MEMSCOPE_EVENTS_DIR", dir.toString());
        env.put("MEMSCOPE_EVENTS_PRESERVE", "1");
        env.put("MEMSCOPE_EVENTS_START", "1");
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw MemscopeException.configuration("cannot start " + command.get(0) + ": " + e.getMessage());
        }
        try {
            while (!p.waitFor(pollMillis, TimeUnit.MILLISECONDS)) {
                pollAll();
            }
            pollAll();
            return p.exitValue();
        } finally {
            if (p.isAlive()) {
                p.destroy();
            }
        }
    }

    /**
     * Loads the events agent into JVM {@code pid} and follows its ring file while {@code keepGoing} says so and the
     * process lives.
     */
    void attach(long pid, BooleanSupplier keepGoing, long pollMillis) throws Exception {
        String jar = Jars.eventsAgent().toString();
        try {
            Class<?> vmClass = Class.forName("com.sun.tools.attach.VirtualMachine");
            Object vm = vmClass.getMethod("attach", String.class).invoke(null, Long.toString(pid));
            try {
                vmClass.getMethod("loadAgent", String.class, String.class).invoke(vm, jar,
                        "dir=" + dir + ",preserve=1");
            } finally {
                vmClass.getMethod("detach").invoke(vm);
            }
        } catch (ClassNotFoundException e) {
            throw MemscopeException.system("attaching needs the jdk.attach module (run memscope on a JDK)", e);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw MemscopeException.system("cannot attach to pid " + pid + ": " + e.getCause(), e.getCause());
        }
        ProcessHandle ph = ProcessHandle.of(pid).orElse(null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (files.isEmpty()) {
            pollAll();
            if (!files.isEmpty()) {
                break;
            }
            if (System.nanoTime() > deadline) {
                throw MemscopeException.system("pid " + pid + " did not create its events file in " + dir
                        + " (runtime events may already run there with another directory)", null);
            }
            Thread.sleep(50);
        }
        while (keepGoing.getAsBoolean() && ph != null && ph.isAlive()) {
            Thread.sleep(pollMillis);
            pollAll();
        }
        pollAll();
    }

    /** Opens new ring files and polls every followed one. */
    synchronized void pollAll() throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.events")) {
            for (Path f : ds) {
                if (!files.containsKey(f)) {
                    try {
                        EventCursor c = EventCursor.open(f);
                        files.put(f, new Followed(c, sink.apply(c)));
                    } catch (CorruptFileException notReady) {
                        if (!notReady.getMessage().contains("not ready") && !notReady.getMessage().contains("truncated")) {
                            err.println("memscope: skipping " + f + ": " + notReady.getMessage());
                            files.put(f, null);
                        }
                    }
                }
            }
        }
        for (Followed fo : files.values()) {
            if (fo != null) {
                fo.cursor.poll(fo.callbacks);
            }
        }
    }

    /** @return cursors of the files followed so far */
    synchronized List<EventCursor> cursors() {
        List<EventCursor> l = new ArrayList<>();
        for (Followed fo : files.values()) {
            if (fo != null) {
                l.add(fo.cursor);
            }
        }
        return l;
    }

    /**
     * The directory where each JVM of the command dumps its GC recording at exit
     * ({@code hotspot-pid-<pid>-id-<n>-<date>.jfr}): the record of the last pauses, which the live stream of a
     * JVM can miss when JFR's own shutdown hook stops the recording first.
     */
    Path jfrDumps() {
        return dir.resolve("jfr");
    }

    /** @return the exit dump of process {@code pid}, or null */
    Path jfrDumpOf(long pid) throws IOException {
        if (!Files.isDirectory(jfrDumps())) {
            return null;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(jfrDumps(), "hotspot-pid-" + pid + "-*.jfr")) {
            for (Path p : ds) {
                return p;
            }
        }
        return null;
    }

    /** The directory of the GC logs ({@link #withGcLog()}): {@code gc-<pid>.log} per JVM. */
    Path gcLogs() {
        return dir.resolve("gclog");
    }

    /** @return the GC log of process {@code pid}, or null */
    Path gcLogOf(long pid) {
        Path p = gcLogs().resolve("gc-" + pid + ".log");
        return Files.isRegularFile(p) ? p : null;
    }

    /** @return the pids of the JVMs that wrote a GC log, in order */
    List<Long> gcLogPids() throws IOException {
        List<Long> pids = new ArrayList<>();
        if (Files.isDirectory(gcLogs())) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(gcLogs(), "gc-*.log")) {
                for (Path p : ds) {
                    String n = p.getFileName().toString();
                    try {
                        pids.add(Long.parseLong(n.substring(3, n.length() - 4)));
                    } catch (NumberFormatException notOurs) {
                        // ignore
                    }
                }
            }
        }
        pids.sort(null);
        return pids;
    }

    /** Deletes the ring files, the JFR dumps, the GC logs and the private directory. */
    void cleanup() {
        for (Path sub : List.of(jfrDumps(), gcLogs())) {
            try {
                if (Files.isDirectory(sub)) {
                    try (DirectoryStream<Path> ds = Files.newDirectoryStream(sub)) {
                        for (Path f : ds) {
                            Files.deleteIfExists(f);
                        }
                    }
                    Files.deleteIfExists(sub);
                }
            } catch (IOException e) {
                err.println("memscope: could not remove " + sub + ": " + e.getMessage());
            }
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path f : ds) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            err.println("memscope: could not remove " + dir + ": " + e.getMessage());
        }
    }
}
