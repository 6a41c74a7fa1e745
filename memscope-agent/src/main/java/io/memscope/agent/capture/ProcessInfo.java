package io.memscope.agent.capture;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;

/**
 * This JVM's process id and start time, from {@code /proc} on Linux: a few reads instead of initializing
 * {@code ProcessHandle}'s native support, which took tens of milliseconds of the agent's start. Elsewhere, or when
 * {@code /proc} does not answer, {@code ProcessHandle}.
 */
public final class ProcessInfo {
    /** Clock ticks per second of {@code /proc/<pid>/stat}'s times ({@code sysconf(_SC_CLK_TCK)}: 100 on Linux). */
    private static final long CLOCK_TICKS = 100;

    private ProcessInfo() {
    }

    /**
     * A file of {@code /proc} (its reported size is 0: read to the end), with java.io (no NIO channel), as Latin-1
     * by hand: {@code StandardCharsets}' initializer loads charsets that are not in the JDK's class data archive.
     */
    private static String read(String file) throws IOException {
        byte[] b;
        try (FileInputStream in = new FileInputStream(file)) {
            b = in.readAllBytes();
        }
        char[] c = new char[b.length];
        for (int i = 0; i < b.length; i++) {
            c[i] = (char) (b[i] & 0xff);
        }
        return new String(c);
    }

    /** @return this JVM's process id */
    public static long pid() {
        try {
            return Long.parseLong(new File("/proc/self").getCanonicalFile().getName());
        } catch (Exception | LinkageError e) {
            return ProcessHandle.current().pid();
        }
    }

    /** @return when this process started, ms since the epoch (about 10 ms precision on Linux), 0 if unknown */
    public static long startEpochMillis() {
        try {
            String stat = read("/proc/self/stat");
            // the command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            long startTicks = Long.parseLong(f[19]); // field 22: starttime, clock ticks after boot
            long bootSeconds = 0;
            for (String line : read("/proc/stat").split("\n")) {
                if (line.startsWith("btime ")) {
                    bootSeconds = Long.parseLong(line.substring(6).trim());
                }
            }
            return bootSeconds == 0 ? 0 : bootSeconds * 1000 + startTicks * 1000 / CLOCK_TICKS;
        } catch (Exception | LinkageError e) {
            return ProcessHandle.current().info().startInstant().map(i -> i.toEpochMilli()).orElse(0L);
        }
    }
}
