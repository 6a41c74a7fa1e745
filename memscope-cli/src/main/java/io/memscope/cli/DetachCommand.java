package io.memscope.cli;

import com.sun.tools.attach.VirtualMachine;
import io.memscope.error.MemscopeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code memscope detach <pid>}: tells the agent in a JVM to stop: sampling stops, instrumented classes are
 * restored (retransformed without memscope) and the recording is closed; then the report is built here, from the
 * recording, written next to it and printed.
 */
@Command(name = "detach", mixinStandardHelpOptions = true,
        description = "Stop the memscope agent in a running JVM: restore its classes, close the recording and print "
                + "the report.")
final class DetachCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID", description = "process id of the JVM")
    long pid;

    @Override
    public Integer call() throws Exception {
        VirtualMachine vm = AttachCommand.attach(pid);
        String recording;
        try {
            recording = AttachCommand.recordingOf(vm);
            vm.loadAgent(Jars.agent().toString(), "command=detach");
        } finally {
            vm.detach();
        }
        if (recording == null) {
            System.out.println("memscope: detached from pid " + pid + "; build its report with memscope report "
                    + "<its output directory>/" + pid);
            return 0;
        }
        Path file = Path.of(recording);
        if (!Reports.awaitClosed(file, 30_000)) {
            throw MemscopeException.system("the recording " + file + " of pid " + pid + " was not closed", null);
        }
        System.out.println("memscope: detached from pid " + pid);
        if (Files.isRegularFile(file)) {
            Reports.buildAndPrint(file.getParent(), System.out, System.err);
        }
        return 0;
    }
}
