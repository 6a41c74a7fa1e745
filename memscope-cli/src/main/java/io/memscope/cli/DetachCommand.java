package io.memscope.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope detach <pid>}: tells the agent in a JVM to stop: sampling stops, instrumented classes are
 * restored (retransformed without memscope), and the report is written where {@code attach} said.
 */
@Command(name = "detach", mixinStandardHelpOptions = true,
        description = "Stop the memscope agent in a running JVM: restore its classes and write the report.")
final class DetachCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID", description = "process id of the JVM")
    long pid;

    @Override
    public Integer call() throws Exception {
        AttachCommand.load(pid, Jars.agent(), "command=detach");
        System.out.println("memscope: detached from pid " + pid + "; its report is written to the attach output "
                + "directory");
        return 0;
    }
}
