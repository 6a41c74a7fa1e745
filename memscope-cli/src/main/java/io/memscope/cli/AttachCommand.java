package io.memscope.cli;

import com.sun.tools.attach.VirtualMachine;
import io.memscope.analysis.ReportFiles;
import io.memscope.analysis.text.TerminalText;
import io.memscope.error.MemscopeException;
import io.memscope.launch.AgentPropertyNames;
import io.memscope.launch.OutputFolders;
import io.memscope.recording.RecordingReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope attach <pid> [--duration S] [--out DIR]}: loads the agent into a running JVM of the same user
 * (started without any memscope option); its already loaded classes are retransformed. With {@code --duration}
 * the agent stops after S seconds, restores the classes and closes its recording; this command waits for that,
 * then builds the report here, writes it next to the recording and prints it. Without it, recording runs until
 * {@code memscope detach <pid>} (which builds the report the same way) or the JVM's exit ({@code memscope report
 * DIR/<pid>} then).
 */
@Command(name = "attach", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Load the memscope agent into a running JVM and record its allocations.")
final class AttachCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID", description = "process id of the JVM")
    long pid;

    @Option(names = "--duration", paramLabel = "SECONDS",
            description = "stop after this many seconds, then build and print the report (default: until detach or "
                    + "exit)")
    Long duration;

    @Option(names = "--out", paramLabel = "DIR", description = "output directory (default ./memscope-out, or "
            + "~/memscope-out when others can write in the current directory)")
    Path out;

    @Mixin
    AgentArgs agent = new AgentArgs();

    @Override
    public Integer call() throws Exception {
        Path dir = OutputFolder.prepare(out != null ? out : OutputFolders.defaultOutputBase());
        String args = agent.toAgentString(dir, duration);
        List<Path> before = Reports.recordingDirs(dir);
        requireJvm(pid);
        VirtualMachine vm = attach(pid);
        String recording;
        try {
            String running = recordingOf(vm);
            if (running != null && !RecordingReader.isClosed(Reports.current(Path.of(running)))) {
                throw MemscopeException.configuration("pid " + pid + " is already recorded by memscope (into "
                        + running + "): `memscope detach " + pid + "` ends that capture first");
            }
            vm.loadAgent(Jars.agent().toString(), args);
            recording = recordingOf(vm);
            String cannot = property(vm, AgentPropertyNames.RECORDING_ERROR);
            if (cannot != null) {
                // the capture could not make its folder: ended now rather than waited for
                vm.loadAgent(Jars.agent().toString(), "command=detach");
                throw MemscopeException.configuration("pid " + pid + " cannot write its recording into " + dir + ": "
                        + cannot + "; give --out a folder that the JVM's user can write (the capture was stopped)");
            }
        } finally {
            vm.detach();
        }
        Path file;
        if (recording != null) {
            file = Path.of(recording);
        } else {
            // An agent that could not publish where it records: the new directory for this pid.
            List<Path> now = Reports.recordingDirs(dir);
            now.removeAll(before);
            now.removeIf(d -> !d.getFileName().toString().startsWith(Long.toString(pid)));
            file = now.isEmpty() ? dir.resolve(Long.toString(pid)).resolve(ReportFiles.RECORDING)
                    : now.get(now.size() - 1).resolve(ReportFiles.RECORDING);
        }
        if (duration == null) {
            System.out.println("memscope: recording pid " + pid + " into " + file + "; run `memscope detach " + pid
                    + "` to stop and get the report");
            return 0;
        }
        if (!Reports.awaitClosed(file, (duration + 60) * 1000)) {
            throw MemscopeException.system("the recording " + file + " of pid " + pid + " was not closed within "
                    + (duration + 60) + " s", null);
        }
        Reports.buildAndPrint(file.getParent(), System.out, System.err);
        return 0;
    }

    /**
     * Fails at once, saying so, when {@code pid} is no process or a process that is not a JVM (attaching to one takes
     * the attach API about ten seconds to give up). Linux: the process's mapped libraries name libjvm; elsewhere, or
     * when they cannot be read, the attach API decides.
     */
    static void requireJvm(long pid) {
        java.util.Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            throw MemscopeException.configuration("no process with pid " + pid);
        }
        Path maps = Path.of("/proc", Long.toString(pid), "maps");
        try {
            if (Files.isReadable(maps) && Files.readString(maps).indexOf("/libjvm.so") < 0) {
                String command = p.get().info().commandLine().orElse(p.get().info().command().orElse("?"));
                throw MemscopeException.configuration("pid " + pid + " is not a JVM (" + TerminalText.safe(command)
                        + ")");
            }
        } catch (java.io.IOException e) {
            // unreadable: the attach API tells
        }
    }

    private static String property(VirtualMachine vm, String key) {
        try {
            return vm.getAgentProperties().getProperty(key);
        } catch (Exception e) {
            return null;
        }
    }

    /** Attaches to a JVM of this user, with a message naming what to check when it fails. */
    static VirtualMachine attach(long pid) throws MemscopeException {
        try {
            return VirtualMachine.attach(Long.toString(pid));
        } catch (Exception e) {
            throw MemscopeException.system("cannot attach to pid " + pid + " (is it a JVM of this user, started "
                    + "without -XX:+DisableAttachMechanism?): " + e.getMessage(), e);
        }
    }

    /**
     * @return the recording the agent in that JVM writes or last wrote (its agent property
     *         {@code memscope.recording}), or null when there is none
     */
    static String recordingOf(VirtualMachine vm) {
        try {
            return vm.getAgentProperties().getProperty(AgentPropertyNames.RECORDING);
        } catch (Exception e) {
            return null;
        }
    }
}
