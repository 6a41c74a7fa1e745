package io.memscope.cli;

import com.sun.tools.attach.VirtualMachine;
import io.memscope.error.MemscopeException;
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
 * the agent stops after S seconds, restores the classes and writes its report, which this command waits for and
 * prints; without it, recording runs until {@code memscope detach <pid>} or the JVM's exit.
 */
@Command(name = "attach", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Load the memscope agent into a running JVM and record its allocations.")
final class AttachCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID", description = "process id of the JVM")
    long pid;

    @Option(names = "--duration", paramLabel = "SECONDS",
            description = "stop after this many seconds, write and print the report (default: until detach or exit)")
    Long duration;

    @Option(names = "--out", paramLabel = "DIR", description = "output directory (default ./memscope-out)")
    Path out = Path.of("memscope-out");

    @Mixin
    AgentArgs agent = new AgentArgs();

    @Override
    public Integer call() throws Exception {
        Path dir = out.toAbsolutePath();
        Files.createDirectories(dir);
        String args = agent.toAgentString(dir, duration);
        List<Path> before = Reports.find(dir);
        load(pid, Jars.agent(), args);
        if (duration == null) {
            System.out.println("memscope: recording in pid " + pid + "; run `memscope detach " + pid
                    + "` to stop, the report goes to " + dir.resolve(Long.toString(pid)));
            return 0;
        }
        long deadline = System.nanoTime() + (duration + 60) * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<Path> now = Reports.find(dir);
            now.removeAll(before);
            now.removeIf(d -> !d.getFileName().toString().startsWith(Long.toString(pid)));
            if (!now.isEmpty()) {
                Reports.writePages(now, System.err);
                Reports.print(now, System.out);
                return 0;
            }
            Thread.sleep(200);
        }
        throw MemscopeException.system("no report from pid " + pid + " within " + (duration + 60) + " s", null);
    }

    static void load(long pid, Path agentJar, String args) throws Exception {
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (Exception e) {
            throw MemscopeException.system("cannot attach to pid " + pid + " (is it a JVM of this user, started "
                    + "without -XX:+DisableAttachMechanism?): " + e.getMessage(), e);
        }
        try {
            vm.loadAgent(agentJar.toString(), args);
        } finally {
            vm.detach();
        }
    }
}
