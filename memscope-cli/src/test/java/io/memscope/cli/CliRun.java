package io.memscope.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Runs the CLI in-process with stdout and stderr captured. */
final class CliRun {
    final int exit;
    final String out;
    final String err;

    private CliRun(int exit, String out, String err) {
        this.exit = exit;
        this.out = out;
        this.err = err;
    }

    static synchronized CliRun run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int exit = Main.execute(args);
            System.out.flush();
            System.err.flush();
            return new CliRun(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    static String testJava() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    static List<String> javas() {
        List<String> j = new ArrayList<>(List.of(testJava()));
        Path jdk17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64/bin/java");
        if (Files.isExecutable(jdk17)) {
            j.add(jdk17.toString());
        }
        return j;
    }

    /** java -cp <test class path> GcChurnMain millis, with extra JVM options first. */
    static List<String> churn(String java, long millis, String... jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx96m");
        cmd.addAll(List.of(jvmOptions));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(GcChurnMain.class.getName());
        cmd.add(Long.toString(millis));
        return cmd;
    }
}
