package io.memscope.bench.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The CPU time of a measured JVM's threads, polled from outside: every 50 ms, {@code utime + stime} of each
 * {@code /proc/PID/task/TID/stat} of the JVM (the child of the {@code /usr/bin/time} process the driver starts, or that
 * process itself), keeping each thread's last reading. A thread's time after its last reading is not seen (at most
 * 50 ms of it), nor a thread that lived less than 50 ms. Threads are grouped by their name without digits
 * ({@code GC Thread#0} and {@code GC Thread#1}: {@code GC Thread#}); Linux keeps 15 characters of a name.
 */
final class ThreadCpu {
    /** Clock ticks per second of /proc's times ({@code getconf CLK_TCK}: 100 on Linux x86_64). */
    private static final double MS_PER_TICK = 10;
    private static final long POLL_MS = 50;

    private final Process launched;
    private final Map<Long, String> names = new HashMap<>();
    private final Map<Long, Long> ticks = new HashMap<>();
    private final Thread poller;
    private volatile boolean stopped;

    private ThreadCpu(Process launched) {
        this.launched = launched;
        this.poller = new Thread(this::run, "thread-cpu-poller");
        poller.setDaemon(true);
    }

    /** Starts polling the threads of the JVM that {@code launched} is or starts. */
    static ThreadCpu start(Process launched) {
        ThreadCpu t = new ThreadCpu(launched);
        t.poller.start();
        return t;
    }

    /** Stops polling (the process has ended) and returns the CPU milliseconds per thread group. */
    Map<String, Double> stop() throws InterruptedException {
        stopped = true;
        poller.join();
        Map<String, Double> groups = new TreeMap<>();
        synchronized (this) {
            ticks.forEach((tid, t) -> groups.merge(names.get(tid).replaceAll("[0-9]", ""), t * MS_PER_TICK,
                    Double::sum));
        }
        return groups;
    }

    private void run() {
        long jvm = -1;
        while (!stopped && launched.isAlive()) {
            if (jvm < 0) {
                jvm = launched.toHandle().children().findFirst().map(ProcessHandle::pid).orElse(-1L);
            }
            if (jvm > 0) {
                poll(Path.of("/proc", Long.toString(jvm), "task"));
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void poll(Path tasks) {
        try (Stream<Path> list = Files.list(tasks)) {
            for (Path task : (Iterable<Path>) list::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException ended) {
                    continue; // the thread ended since the listing
                }
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                // after the name: state (field 3), ... utime (field 14), stime (field 15)
                String[] f = stat.substring(close + 2).split(" ");
                long tid = Long.parseLong(task.getFileName().toString());
                long t = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                synchronized (this) {
                    names.put(tid, stat.substring(open + 1, close));
                    ticks.put(tid, t);
                }
            }
        } catch (IOException | RuntimeException ended) {
            // the process ended during the listing: its last readings stand
        }
    }

    /** Prints, per configuration, the median CPU milliseconds of each thread group over the runs. */
    static void print(Map<String, Map<String, List<Double>>> perThread, int runs) {
        TreeSet<String> groups = new TreeSet<>();
        perThread.values().forEach(m -> groups.addAll(m.keySet()));
        List<String> configs = new ArrayList<>(perThread.keySet());
        StringBuilder head = new StringBuilder("| thread group (CPU ms, median of " + runs + ") |");
        StringBuilder rule = new StringBuilder("|---|");
        for (String c : configs) {
            head.append(' ').append(c).append(" |");
            rule.append("---:|");
        }
        System.out.println(head);
        System.out.println(rule);
        for (String g : groups) {
            StringBuilder row = new StringBuilder("| " + g + " |");
            for (String c : configs) {
                List<Double> v = perThread.get(c).getOrDefault(g, List.of());
                // a run in which the group did not appear counts as 0
                double[] all = new double[runs];
                for (int i = 0; i < v.size() && i < runs; i++) {
                    all[i] = v.get(i);
                }
                Arrays.sort(all);
                row.append(String.format(Locale.ROOT, " %.0f |", all[runs / 2]));
            }
            System.out.println(row);
        }
    }
}
