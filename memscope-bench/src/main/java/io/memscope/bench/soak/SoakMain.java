package io.memscope.bench.soak;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The agent's memory over a long run (docs/benchmarks.md, "Agent memory over hours"). Two modes:
 *
 * <ul>
 *   <li>{@code SoakMain work SECONDS}: the workload. New code all the time (every 20 ms a class defined from
 *       {@link SoakTemplate00000} under a new name in its own class loader, dropped at once, so classes are also
 *       unloaded: new sites and stacks in its method and lambda), an allocator thread at about 200 MB/s that also
 *       calls the newest class, a 64 MiB ring of retained {@code byte[4096]} replaced continually (fixed size, so
 *       that the heap after a full collection is the same in every minute), a short-lived thread with a new name
 *       every 50 ms;</li>
 *   <li>{@code SoakMain measure MINUTES AGENT_JAR OUT [AGENT_OPTIONS]}: runs the workload twice at once for
 *       {@code MINUTES}, with the agent ({@code -javaagent:AGENT_JAR=out=OUT,quiet=true,AGENT_OPTIONS}) and without,
 *       same heap settings, and prints each minute the resident set of both ({@code VmRSS} of
 *       {@code /proc/PID/status}), and the heap each uses right after a full collection ({@code jcmd PID GC.run},
 *       the figure from the JVM's GC log in OUT: the agent's Java tables live in the heap, whose resident pages the
 *       fixed-size heap hides from RSS), and the differences: the agent's memory, which must not grow after the
 *       first minutes. Both run with NMT ({@code summary}); its figures at minute 1, every tenth minute and the last
 *       go to {@code OUT/nmt-with-M.txt} and {@code OUT/nmt-without-M.txt}, and the class histogram of the JVM with the
 *       agent ({@code jcmd PID GC.class_histogram}) to {@code OUT/histogram-with-M.txt}.</li>
 * </ul>
 */
public final class SoakMain {
    private static final String TEMPLATE = "SoakTemplate00000";

    private SoakMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("work")) {
            work(Long.parseLong(args[1]));
        } else if (args.length >= 4 && args[0].equals("measure")) {
            measure(Integer.parseInt(args[1]), Path.of(args[2]), Path.of(args[3]), args.length > 4 ? args[4] : "");
        } else {
            System.err.println("usage: SoakMain work SECONDS | measure MINUTES AGENT_JAR OUT [AGENT_OPTIONS]");
            System.exit(2);
        }
    }

    private static void measure(int minutes, Path agent, Path out, String options) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = Path.of(SoakMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        long seconds = minutes * 60L + 30;
        // NMT in both: where the resident difference outside the heap goes (its own cost is the same in both)
        List<String> heap = List.of("-Xms512m", "-Xmx512m", "-XX:+UseG1GC", "-XX:NativeMemoryTracking=summary");
        Files.createDirectories(out);
        Path gcWith = out.resolve("gc-with.log");
        Path gcWithout = out.resolve("gc-without.log");
        List<String> with = new ArrayList<>(List.of(java, "-Xlog:gc:file=" + gcWith));
        with.addAll(heap);
        with.add("-javaagent:" + agent + "=quiet=true,out=" + out + (options.isEmpty() ? "" : "," + options));
        with.addAll(List.of("-cp", cp, SoakMain.class.getName(), "work", Long.toString(seconds)));
        List<String> without = new ArrayList<>(List.of(java, "-Xlog:gc:file=" + gcWithout));
        without.addAll(heap);
        without.addAll(List.of("-cp", cp, SoakMain.class.getName(), "work", Long.toString(seconds)));
        Process a = new ProcessBuilder(with).inheritIO().start();
        Process b = new ProcessBuilder(without).inheritIO().start();
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        System.out.printf("minute  rss with MiB  rss without MiB  rss diff MiB  heap after full GC with MiB  "
                + "without MiB  heap diff MiB%n");
        try {
            for (int m = 1; m <= minutes; m++) {
                Thread.sleep(60_000);
                long ha = heapAfterFullGc(jcmd, a.pid(), gcWith);
                long hb = heapAfterFullGc(jcmd, b.pid(), gcWithout);
                long ra = rss(a.pid());
                long rb = rss(b.pid());
                System.out.printf("%6d  %12.1f  %15.1f  %12.1f  %27.1f  %11.1f  %13.1f%n", m, ra / 1048576.0,
                        rb / 1048576.0, (ra - rb) / 1048576.0, ha / 1048576.0, hb / 1048576.0, (ha - hb) / 1048576.0);
                if (m == 1 || m % 10 == 0 || m == minutes) {
                    Files.writeString(out.resolve("nmt-with-" + m + ".txt"),
                            run(jcmd, Long.toString(a.pid()), "VM.native_memory", "summary"));
                    Files.writeString(out.resolve("nmt-without-" + m + ".txt"),
                            run(jcmd, Long.toString(b.pid()), "VM.native_memory", "summary"));
                    // what the agent's heap holds, by class: which table grows, if one does
                    Files.writeString(out.resolve("histogram-with-" + m + ".txt"),
                            run(jcmd, Long.toString(a.pid()), "GC.class_histogram"));
                }
            }
        } finally {
            System.out.println("with agent exited " + a.waitFor() + ", without " + b.waitFor());
        }
    }

    /**
     * @return the heap a JVM uses right after a full collection asked for now ({@code jcmd PID GC.run}), as its GC
     *         log says ({@code Pause Full (Diagnostic Command) 300M->80M(512M)}: the 80M), bytes; 0 when unknown
     */
    private static long heapAfterFullGc(String jcmd, long pid, Path gcLog) throws Exception {
        run(jcmd, Long.toString(pid), "GC.run");
        java.util.regex.Pattern full = java.util.regex.Pattern.compile("Pause Full \\(Diagnostic Command\\) "
                + "\\d+M->(\\d+)M");
        long after = 0;
        for (String line : Files.readAllLines(gcLog)) {
            java.util.regex.Matcher m = full.matcher(line);
            if (m.find()) {
                after = Long.parseLong(m.group(1)) << 20;
            }
        }
        return after;
    }

    private static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    /** @return the resident set of a process, from /proc/PID/status (bytes), 0 when gone */
    private static long rss(long pid) throws Exception {
        Path status = Path.of("/proc", Long.toString(pid), "status");
        if (!Files.exists(status)) {
            return 0;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return 0;
    }

    /** Defines one class from bytes, alone: dropped with it. */
    private static final class OneClassLoader extends ClassLoader {
        OneClassLoader() {
            super(SoakMain.class.getClassLoader());
        }

        Class<?> define(String name, byte[] b) {
            return defineClass(name, b, 0, b.length);
        }
    }

    private static void work(long seconds) throws Exception {
        byte[] template;
        try (InputStream in = SoakMain.class.getResourceAsStream(TEMPLATE + ".class")) {
            template = in.readAllBytes();
        }
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        Object[] ring = new Object[1 << 14]; // 64 MiB retained, byte[4096] each
        current = null;
        Thread allocator = new Thread(() -> allocate(end, ring), "soak-allocator");
        allocator.setDaemon(true);
        allocator.start();
        int classes = 0;
        long lastThread = 0;
        while (System.nanoTime() < end) {
            String simple = String.format("SoakTemplate%05d", 1 + classes % 99_999);
            Class<?> c = new OneClassLoader().define("io.memscope.bench.soak." + simple, rename(template, simple));
            @SuppressWarnings("unchecked")
            IntFunction<Object> f = (IntFunction<Object>) c.getDeclaredConstructor().newInstance();
            current = f;
            for (int i = 0; i < 64; i++) {
                sink += ((Object[]) f.apply(1024 + (i & 15) * 512)).length;
                ring[(classes * 64 + i) & (ring.length - 1)] = new byte[4096];
            }
            Thread.sleep(20);
            if (System.nanoTime() - lastThread > 50_000_000L) {
                lastThread = System.nanoTime();
                int n = classes;
                Thread t = new Thread(() -> ring[n & (ring.length - 1)] = new byte[4096], "soak-worker-" + n);
                t.start();
                t.join();
            }
            classes++;
        }
        System.out.println("soak workload: " + classes + " classes (" + sink + ")");
    }

    /** What the garbage allocated added up to (so that the JIT keeps the allocations). */
    private static volatile long sink;

    /** The class the allocator thread uses too (so that its stacks change with the classes). */
    private static volatile IntFunction<Object> current;

    /** Allocates at {@value #RATE} bytes a second (about: it sleeps whenever it is ahead). */
    private static void allocate(long end, Object[] ring) {
        int i = 0;
        long start = System.nanoTime();
        long bytes = 0;
        while (System.nanoTime() < end) {
            IntFunction<Object> f = current;
            for (int k = 0; k < 256; k++) {
                if ((k & 3) == 0 && f != null) {
                    sink += ((Object[]) f.apply(2048)).length;
                    bytes += 2048 + 256 + 64;
                } else {
                    int n = 256 + (k & 63) * 64;
                    sink += new byte[n].length;
                    bytes += n + 16;
                }
                if ((k & 15) == 0) { // retained: a fixed-size ring, so that the heap after a full GC is the same
                    ring[(i++ * 7919) & (ring.length - 1)] = new byte[4096];
                    bytes += 4112;
                }
            }
            long aheadNanos = (long) (bytes * 1e9 / RATE) - (System.nanoTime() - start);
            if (aheadNanos > 1_000_000) {
                try {
                    Thread.sleep(aheadNanos / 1_000_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** The allocator thread's rate, bytes a second. */
    private static final double RATE = 200e6;

    /** @return the class file with every occurrence of the template's simple name replaced (same length) */
    private static byte[] rename(byte[] template, String simple) {
        byte[] from = TEMPLATE.getBytes(StandardCharsets.US_ASCII);
        byte[] to = simple.getBytes(StandardCharsets.US_ASCII);
        byte[] b = template.clone();
        for (int i = 0; i + from.length <= b.length; i++) {
            boolean match = true;
            for (int k = 0; k < from.length && match; k++) {
                match = b[i + k] == from[k];
            }
            if (match) {
                System.arraycopy(to, 0, b, i, to.length);
                i += from.length - 1;
            }
        }
        return b;
    }
}
