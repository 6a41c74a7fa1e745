package io.memscope.bench.accounting;

import io.memscope.accounting.Instrument;
import io.memscope.accounting.MemoryAccounting;
import io.memscope.accounting.Owner;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;

/**
 * A companion to {@link AccountingBenchmark} for a shared machine: the CPU time one thread spends per alloc+free
 * pair ({@code ThreadMXBean.getCurrentThreadCpuTime}), for memscope and the naive design. CPU time excludes the
 * time the thread waits for a core, so it stays meaningful when other processes load the machine (JMH's
 * wall-clock numbers do not). It says nothing about scaling: with more runnable threads than cores, two threads
 * rarely run at the same moment, so contention does not show.
 *
 * <pre>java -cp memscope-bench/target/benchmarks.jar io.memscope.bench.accounting.AccountingCpuCost [pairs]</pre>
 */
public final class AccountingCpuCost {
    private static volatile long sink;

    private AccountingCpuCost() {
    }

    public static void main(String[] args) throws Exception {
        long pairs = args.length > 0 ? Long.parseLong(args[0]) : 50_000_000L;
        System.out.println("pairs per thread: " + pairs + ", JVM " + System.getProperty("java.version")
                + ", " + Runtime.getRuntime().availableProcessors() + " cores");
        for (int round = 0; round < 2; round++) {   // round 0 is warm-up
            double m1 = run("memscope", 1, pairs, round == 1);
            double n1 = run("naive", 1, pairs, round == 1);
            if (round == 1) {
                System.out.printf(Locale.ROOT, "naive / memscope CPU per pair: %.2fx%n", n1 / m1);
            }
        }
    }

    /** @return mean CPU nanoseconds per pair per thread */
    private static double run(String design, int threads, long pairs, boolean print) throws Exception {
        MemoryAccounting acct = new MemoryAccounting();
        Instrument inst = acct.instrument("memory/bench/blocks");
        AccountingBenchmark.Naive naive = new AccountingBenchmark.Naive();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        CyclicBarrier start = new CyclicBarrier(threads);
        long[] cpu = new long[threads];
        List<Thread> ts = new ArrayList<>();
        long wall0 = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int slot = t;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                long c0 = mx.getCurrentThreadCpuTime();
                long acc = 0;
                if (design.equals("memscope")) {
                    for (long i = 0; i < pairs; i++) {
                        Owner o = acct.alloc(inst, 64);
                        acct.free(inst, 64, o);
                        acc += o.threadId();
                    }
                } else {
                    for (long i = 0; i < pairs; i++) {
                        acc += naive.pair();
                    }
                }
                cpu[slot] = mx.getCurrentThreadCpuTime() - c0;
                sink += acc;
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
        long wall = System.nanoTime() - wall0;
        double perPair = 0;
        for (long c : cpu) {
            perPair += (double) c / pairs;
        }
        perPair /= threads;
        if (print) {
            System.out.printf(Locale.ROOT, "%-8s %d thread(s): %6.2f ns CPU per pair per thread, wall %6.1f pairs/us%n",
                    design, threads, perPair, threads * pairs / (wall / 1000.0));
        }
        return perPair;
    }
}
